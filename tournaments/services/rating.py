"""Elo updates per rating pool, applied live in ledger order, and recomputed from scratch.

A finished match is rated in exactly one pool (``tournaments.ratings.pools.pool_key`` of its
game, seat count and options). Under the pool's ledger lock it gets the next
position, the live Elo moves, the version's record there grows, the pairwise
sums the Bradley-Terry refit reads are updated (and their sums per pair of bots,
``tournaments.read_models.opponents``), and a refit is asked for (at most
one pending per pool: ``tournaments.services.fitting``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from bots.models import BotVersion
from tournaments.models import Match, Rating, RatingChange, RatingLedger, RatingPair
from tournaments.models.row_statements import Batch, from_row, insert_rows, select_sql, update_rows
from tournaments.ratings import elo, pools
from tournaments.read_models import leaderboard_rows, opponents
from tournaments.services.queueing import request_fit_after_commit

log = logging.getLogger(__name__)


def version_parents(version_ids: Iterable[int]) -> dict[int, int]:
    """{version: parent} for every version of the bots of ``version_ids`` (ancestor walks)."""
    bots = BotVersion.objects.filter(pk__in=list(version_ids)).values("bot_id")
    return dict(
        BotVersion.objects.filter(bot_id__in=bots, parent__isnull=False).values_list(
            "pk", "parent_id"
        )
    )


@transaction.atomic
def rate_match(*, match: Match) -> None:
    """Apply one finished match to its pool's ratings, under the pool's ledger lock."""
    if match.rated_seq is not None:
        return
    versions = [seat.version_id for seat in sorted(match.seats.all(), key=lambda s: s.seat)]
    rated = rate_result(
        match_id=match.pk,
        game=match.game,
        options=match.options,
        versions=versions,
        result=match.result,
    )
    if rated is not None:
        match.rated_seq, match.pool = rated


def rate_result(
    *,
    match_id: int,
    game: str,
    options: dict,
    versions: list[int],
    result: dict,
    batch: Batch | None = None,
    taken: tuple[tuple | None, dict[int, Rating]] | None = None,
    settle: list[Callable[[], None]] | None = None,
) -> tuple[int, str] | None:
    """``rate_match`` from what the caller already holds: the versions in seat order and
    the result. Call it inside a transaction; returns (ledger position, pool), or None for
    a match with no pool. A handful of queries whatever the seat count: the ledger locked
    and its position taken in one, the versions' rows locked, one write each for ratings,
    changes, pairs and match, and the leaderboard rows' (parents are looked up only for a
    version's first match in the pool). The writes nobody reads back go in one round trip
    (``batch``: the caller's, with writes of its own waiting, or one of its own), sent
    before the leaderboard rows are written. ``taken``: the ledger position and ratings
    the caller already took for this pool (``add_position_and_lock``), if it did.
    ``settle``: given, the leaderboard rows' write waits in the caller's ``batch`` as well
    (nothing is sent here but what the first game of a version reads), and the check
    that must follow its send is appended, for the caller to call after sending it.
    """
    batch = batch if batch is not None else Batch()
    try:
        pool = pools.pool_key(game, len(versions), options)
    except pools.InvalidPool:
        # Options the engine no longer accepts (a rules change): no pool to rate it in.
        log.warning("match %s is not rated: no pool for its options", match_id)
        return None
    rated = elo.sides_from_match_result(result, versions)
    keys = {key for side in rated.sides for key in side}
    # The ledger locked and its next position taken, then the versions' rows locked: one
    # round trip, in that order (or the caller's, already sent).
    taken, rows = taken if taken is not None else _take_position_and_lock(pool, keys)
    if taken is None:
        RatingLedger.objects.get_or_create(pool=pool)
        taken = _take_position(pool)
    seq, fit_requested_at = taken
    parents: dict[int, int] = {}
    current: dict[int, float] = {}
    if keys - rows.keys():
        # A version's first match here: it starts from its nearest rated ancestor (only
        # this lock writes those ratings).
        parents = version_parents(keys)
        current = dict(
            Rating.objects.filter(pool=pool, version_id__in=set(parents.values())).values_list(
                "version_id", "elo"
            )
        )
    current.update({key: row.elo for key, row in rows.items()})
    moved = elo.apply(current, rated, settings.ARENA_ELO_K, settings.ARENA_ELO_START, parents)
    side_of = {key: i for i, side in enumerate(rated.sides) for key in side}
    now = timezone.now()
    fresh, changes = [], []
    for key, (before, after) in moved.items():
        row = rows.get(key)
        if row is None:
            row = Rating(pool=pool, version_id=key, elo=before)
            fresh.append(row)
        row.elo = after
        elo.count_game(row, rated, side_of[key])
        row.updated_at = now
        changes.append((match_id, key, pool, seq, before, after, now))
    if fresh:
        Rating.objects.bulk_create(fresh)
    if rows:
        update_rows(
            Rating,
            keys=["id"],
            fields=RATING_FIELDS,
            rows=[
                (row.pk, *(getattr(row, name) for name in RATING_FIELDS)) for row in rows.values()
            ],
            batch=batch,
        )
    insert_rows(RatingChange, fields=CHANGE_FIELDS, rows=changes, batch=batch)
    records = elo.pair_records(rated)
    _add_pairs(pool, records, batch)
    opponents.add_records(pool, records, batch)
    if fit_requested_at is None:
        RatingLedger.objects.filter(pool=pool).update(fit_requested_at=now)
        request_fit_after_commit(pool)
    update_rows(
        Match, keys=["id"], fields=["rated_seq", "pool"], rows=[(match_id, seq, pool)], batch=batch
    )
    written = {row.version_id: row for row in [*rows.values(), *fresh]}
    check = leaderboard_rows.after_rating(
        pool=pool, version_ids=keys, ratings=written, batch=batch, send=settle is None
    )
    if check is not None:
        settle.append(check)
    return seq, pool


def _take_position(pool: str) -> tuple[int, object] | None:
    """Lock the pool's ledger and take its next position, in one statement: (position,
    when a refit was last asked for and not yet done), or None when the pool has none."""
    with connection.cursor() as cursor:
        cursor.execute(*_position_statement(pool))
        row = cursor.fetchone()
    if row is None:
        return None
    return row[0], row[1]


def _position_statement(pool: str) -> tuple[str, list]:
    table = connection.ops.quote_name(RatingLedger._meta.db_table)
    return (
        f"UPDATE {table} SET last_seq = last_seq + 1 WHERE pool = %s"
        " RETURNING last_seq, fit_requested_at",
        [pool],
    )


def _take_position_and_lock(pool: str, keys: set[int]) -> tuple[tuple | None, dict[int, Rating]]:
    """``_take_position``, then the pool's rows of the versions ``keys`` locked and read
    ({version: row}), in one round trip."""
    batch = Batch()
    add_position_and_lock(batch, pool, keys)
    return read_position_and_lock(*batch.send())


def add_position_and_lock(
    batch: Batch, pool: str, keys: set[int], *, guard: tuple[str, list] | None = None
) -> None:
    """Add to ``batch`` the two statements of ``_take_position_and_lock``; with a
    ``guard`` (SQL and its parameters), both do nothing unless it holds."""
    sql, params = _position_statement(pool)
    extra, extra_params = (f" AND {guard[0]}", guard[1]) if guard else ("", [])
    returning = sql.index(" RETURNING")
    batch.add(sql[:returning] + extra + sql[returning:], [*params, *extra_params], prepare=True)
    quote = connection.ops.quote_name
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""  # SQLite: none
    batch.add(
        f"SELECT {select_sql(_RATING, 'r')} FROM {quote(Rating._meta.db_table)} r"
        f" WHERE r.pool = %s AND r.version_id IN ({', '.join(['%s'] * len(keys)) or 'NULL'})"
        f"{extra}{lock}",
        [pool, *sorted(keys), *extra_params],
        prepare=True,
    )


def read_position_and_lock(position, ratings) -> tuple[tuple | None, dict[int, Rating]]:
    """The answers of ``add_position_and_lock``'s statements: (position, when a refit was
    last asked for) or None, and the versions' ratings ({version: row})."""
    taken = (position.rows[0][0], position.rows[0][1]) if position.rows else None
    read = (from_row(Rating, _RATING, row) for row in ratings.rows)
    return taken, {row.version_id: row for row in read}


def pool_or_none(game: str, seats: int, options: dict) -> str | None:
    """The pool of a match of ``game`` with ``seats`` and ``options``; None for none."""
    try:
        return pools.pool_key(game, seats, options)
    except pools.InvalidPool:
        return None


_RATING = Rating._meta.concrete_fields


CHANGE_FIELDS = ["match", "version", "pool", "seq", "before", "after", "created_at"]
RATING_FIELDS = [
    "elo", "matches", "wins", "draws", "losses", "rank_total", "sides_total", "updated_at"
]  # fmt: skip


def _add_pairs(pool: str, records: list[tuple], batch: Batch) -> None:
    """Add the result's pairwise records to the pool's sums (the caller holds the lock)."""
    totals: dict[tuple[int, int], list[float]] = {}
    for first, second, wins, draws, losses in records:
        if first > second:
            first, second, wins, losses = second, first, losses, wins
        total = totals.setdefault((first, second), [0.0, 0.0, 0.0])
        total[0] += wins
        total[1] += draws
        total[2] += losses
    if not totals:
        return
    # One upsert for every pair of the result (PostgreSQL and SQLite alike), against the
    # (pool, first, second) unique constraint; the sums only ever grow under the lock.
    insert_rows(
        RatingPair,
        fields=["pool", "first", "second", "wins", "draws", "losses"],
        rows=[(pool, first, second, *sums) for (first, second), sums in totals.items()],
        batch=batch,
        suffix="ON CONFLICT (pool, first_id, second_id) DO UPDATE SET"
        " wins = {table}.wins + excluded.wins, draws = {table}.draws + excluded.draws,"
        " losses = {table}.losses + excluded.losses",
    )
