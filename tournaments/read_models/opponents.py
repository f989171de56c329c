"""Each bot's results against each other bot per pool (``BotOpponent``): the pool's pair
sums (``RatingPair``, per pair of versions) summed per pair of bots, in both directions.

They change with the pair sums and nowhere else: ``add_records`` in the rating transaction
(``tournaments.services.rating.rate_result``), with the same records as the pairs, and
``rebuild_pool`` wherever the pairs are rewritten (``recompute.rebuild_ratings``; ``manage.py
rebuild_read_models``; the migration that made the table). So the rows always equal
``RatingPair`` summed over each bot's versions, which a test checks after every kind of write.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from django.db import connection, transaction

from bots.models import BotVersion
from tournaments.models import BotOpponent, RatingLedger, RatingPair
from tournaments.models.row_statements import Batch


@lru_cache(maxsize=32)
def _add_sql(vendor: str, rows: int) -> str:
    quote = connection.ops.quote_name
    table = quote(BotOpponent._meta.db_table)
    versions = quote(BotVersion._meta.db_table)
    field = BotOpponent._meta.get_field
    key = f"CAST(%s AS {field('bot').cast_db_type(connection)})"
    value = f"CAST(%s AS {field('wins').cast_db_type(connection)})"
    one = f"({key}, {key}, {value}, {value}, {value})"
    # The versions' bots looked up in the statement itself (the caller knows versions
    # only); sums per pair of bots, as one row may not be updated twice by one statement.
    return (
        f"INSERT INTO {table} (pool, bot_id, opponent_id, wins, draws, losses)"
        f" SELECT CAST(%s AS {field('pool').cast_db_type(connection)}), a.bot_id, b.bot_id,"
        " SUM(r.column3), SUM(r.column4), SUM(r.column5)"
        f" FROM (VALUES {', '.join([one] * rows)}) AS r"
        f" JOIN {versions} a ON a.id = r.column1 JOIN {versions} b ON b.id = r.column2"
        " WHERE a.bot_id <> b.bot_id GROUP BY a.bot_id, b.bot_id"
        " ON CONFLICT (pool, bot_id, opponent_id) DO UPDATE SET"
        f" wins = {table}.wins + excluded.wins, draws = {table}.draws + excluded.draws,"
        f" losses = {table}.losses + excluded.losses"
    )


def add_records(pool: str, records: Sequence[tuple], batch: Batch) -> None:
    """Add a rated result's pairwise records (``elo.pair_records``: first and second
    version, wins, draws and losses of the first) to its bots' rows, both directions, in
    ``batch`` (the caller holds the pool's ledger lock, as for the pairs)."""
    if not records:
        return
    params: list = [pool]
    for first, second, wins, draws, losses in records:
        params += [first, second, wins, draws, losses, second, first, losses, draws, wins]
    batch.add(_add_sql(connection.vendor, 2 * len(records)), params, prepare=True)


def rebuild_pool(*, pool: str) -> int:
    """Write the rows of ``pool`` again from its pair sums; how many. Under the pool's
    ledger lock, which every rating transaction takes first: no result lands between
    the delete and the insert (safe while workers record results)."""
    quote = connection.ops.quote_name
    table = quote(BotOpponent._meta.db_table)
    pairs = quote(RatingPair._meta.db_table)
    versions = quote(BotVersion._meta.db_table)

    def side(wins: str, losses: str, one: str, other: str) -> str:
        return (
            f"SELECT p.pool, a.bot_id AS bot, b.bot_id AS opponent, p.{wins} AS wins, p.draws,"
            f" p.{losses} AS losses FROM {pairs} p JOIN {versions} a ON a.id = p.{one}"
            f" JOIN {versions} b ON b.id = p.{other} WHERE p.pool = %s"
        )

    sql = (
        f"INSERT INTO {table} (pool, bot_id, opponent_id, wins, draws, losses)"
        " SELECT s.pool, s.bot, s.opponent, SUM(s.wins), SUM(s.draws), SUM(s.losses) FROM ("
        f"{side('wins', 'losses', 'first_id', 'second_id')} UNION ALL"
        f" {side('losses', 'wins', 'second_id', 'first_id')}"
        ") s WHERE s.bot <> s.opponent GROUP BY s.pool, s.bot, s.opponent"
    )
    with transaction.atomic():
        RatingLedger.objects.select_for_update().filter(pool=pool).exists()
        BotOpponent.objects.filter(pool=pool).delete()
        with connection.cursor() as cursor:
            cursor.execute(sql, [pool, pool])
            return cursor.rowcount


def rebuild_every_pool() -> int:
    """``rebuild_pool`` for every pool with pair sums or rows; how many rows in all."""
    found = set(RatingPair.objects.values_list("pool", flat=True).distinct())
    found |= set(BotOpponent.objects.values_list("pool", flat=True).distinct())
    return sum(rebuild_pool(pool=pool) for pool in sorted(found))
