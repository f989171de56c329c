"""Ratings from scratch, streamed: a pool's rated results folded in ledger order.

The live path (``rating.rate_result``) applies one result at a time under the pool's
lock; this module folds every rated result of a pool again, for a check
(``recompute_ratings``) or to rewrite the pool's ratings, records and pair sums
(``rebuild_ratings``, after a change to K or a repaired result, say).

It never builds a model instance per match: one ordered query reads (ledger position,
seat, version, rank) rows of the pool's seats, fetched in chunks through a server-side
cursor on PostgreSQL, so memory follows the number of versions and pairs, not of
matches. The fold is ``tournaments.ratings.elo.apply`` with a fast path for the common case (two
seats, one version each), written to give bit-for-bit the same floats; the ranks come
from the seats, which ``record_result`` writes from the same result as ``Match.result``.
Parents are every version's parent (a version's parent is an earlier version of the
same bot, so this is the map the live path walks).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from psycopg import sql

from bots.models import BotVersion
from tournaments.models import Match, MatchSeat, Rating, RatingLedger, RatingPair
from tournaments.ratings import elo, pools
from tournaments.read_models import leaderboard_rows, opponents

CHUNK = 20_000  # seat rows per fetch


@dataclass
class Record:
    """A version's record in a pool, as the live path keeps it on ``Rating``."""

    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rank_total: int = 0
    sides_total: int = 0


@dataclass
class Fold:
    """Everything the pool's rated results add up to."""

    ratings: dict = field(default_factory=dict)  # version -> Elo
    records: dict = field(default_factory=dict)  # version -> Record
    pairs: dict = field(default_factory=dict)  # (first, second), first < second -> [w, d, l]
    matches: int = 0


def _seat_rows_sql(vendor: str) -> str:
    seat = connection.ops.quote_name(MatchSeat._meta.db_table)
    match = connection.ops.quote_name(Match._meta.db_table)
    # The result's teams, read once per match (on seat 0); "[]" or null for no teams.
    teams = (
        "(m.result -> 'teams')::text"
        if vendor == "postgresql"
        else "json_extract(m.result, '$.teams')"
    )
    return (
        f"SELECT m.rated_seq, s.seat, s.version_id, {_rank_sql(vendor)},"
        f" CASE WHEN s.seat = 0 THEN {teams} END, m.id"
        f" FROM {match} m JOIN {seat} s ON s.match_id = m.id"
        f" WHERE m.pool = %s AND m.rated_seq IS NOT NULL"
        f" ORDER BY m.rated_seq, s.seat"
    )


def _rank_sql(vendor: str) -> str:
    """The seat's rank; from the match's result for a seat that has none (older rows)."""
    if vendor == "postgresql":
        return "coalesce(s.rank, (m.result -> 'seats' -> s.seat ->> 'rank')::int)"
    return "coalesce(s.rank, json_extract(m.result, '$.seats[' || s.seat || '].rank'))"


def _chunks(pool: str) -> Iterator[list[tuple]]:
    """The pool's seat rows in ledger order, a chunk at a time (call inside a transaction)."""
    sql = _seat_rows_sql(connection.vendor)
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        with connection.connection.cursor(name="arena_recompute") as cursor:
            cursor.itersize = CHUNK
            cursor.execute(sql, [pool])
            while rows := cursor.fetchmany(CHUNK):
                yield rows
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, [pool])
            while rows := cursor.fetchmany(CHUNK):
                yield rows


def rated_results(pool: str) -> Iterator[tuple[int, elo.RatedResult]]:
    """(match id, rated result) of every rated match of the pool, in ledger order."""
    for match_id, versions, ranks, teams in _results(pool):
        yield match_id, _rated(versions, ranks, teams)


def _results(pool: str) -> Iterator[tuple[int, list, list, str | None]]:
    """(match id, versions, ranks, teams JSON) per match, in ledger order."""
    versions: list = []
    ranks: list = []
    teams = None
    match_id = None
    for rows in _chunks(pool):
        for _seq, seat, version, rank, seat_teams, row_match in rows:
            if seat == 0:
                if versions:
                    yield match_id, versions, ranks, teams
                versions, ranks, teams, match_id = [], [], seat_teams, row_match
            versions.append(version)
            ranks.append(rank)
    if versions:
        yield match_id, versions, ranks, teams


def _rated(versions: list, ranks: list, teams: str | None) -> elo.RatedResult:
    if teams and teams != "[]":
        groups = json.loads(teams)
    else:
        groups = [[seat] for seat in range(len(versions))]
    return elo.RatedResult(
        sides=[[versions[seat] for seat in team] for team in groups],
        ranks=[min(ranks[seat] for seat in team) for team in groups],
    )


def fold(
    pool: str, *, k: float | None = None, start: float | None = None, ratings_only: bool = False
) -> Fold:
    """Fold every rated result of ``pool`` in ledger order (call inside a transaction on
    PostgreSQL). ``ratings_only`` skips the records and pair sums."""
    k = settings.ARENA_ELO_K if k is None else k
    start = settings.ARENA_ELO_START if start is None else start
    parents = dict(BotVersion.objects.filter(parent__isnull=False).values_list("pk", "parent_id"))
    if connection.vendor == "postgresql":
        try:
            return _fold_two_seat_pool(pool, k, start, parents, ratings_only)
        except _NotTwoSeats:
            pass
    return _fold_rows(pool, k, start, parents)


def _fold_rows(pool: str, k, start, parents) -> Fold:
    """Any pool, any backend: one result at a time."""
    out = Fold()
    for _match_id, versions, ranks, teams in _results(pool):
        out.matches += 1
        _fold_one(out, _rated(versions, ranks, teams), k, start, parents)
    return out


class _NotTwoSeats(Exception):
    """The pool is not made of plain two-seat results: fold it one result at a time."""


def _fold_two_seat_pool(pool: str, k, start, parents, ratings_only: bool) -> Fold:
    """The common pool, fast: two seats, a version each, no teams.

    The seat rows come by ``COPY (query) TO STDOUT``, so PostgreSQL streams them while
    this process folds, parsed a block at a time by numpy; the Elo fold is
    ``elo.apply``'s arithmetic in its order (the same floats), and records and pair sums
    (integer counts) are summed per block with numpy.
    """
    match_table = connection.ops.quote_name(Match._meta.db_table)
    seat_table = connection.ops.quote_name(MatchSeat._meta.db_table)
    connection.ensure_connection()
    pg = connection.connection
    with pg.cursor() as cursor:
        first = cursor.execute(
            f"SELECT count(*) FROM {seat_table} WHERE match_id ="
            f" (SELECT id FROM {match_table} WHERE pool = %s AND rated_seq IS NOT NULL LIMIT 1)",
            [pool],
        ).fetchone()[0]
        if first != 2:
            raise _NotTwoSeats
    # Teams cannot matter with two seats (two sides of one, or one side: no rating), so
    # the results' JSON is never read here.
    out = Fold()
    size = max(BotVersion.objects.order_by("-pk").values_list("pk", flat=True).first() or 0, 0) + 1
    tallies = None if ratings_only else np.zeros((6, size), dtype=np.int64)
    pair_sums: dict[int, list[float]] = {}
    query = (
        f"SELECT m.rated_seq, s.seat, s.version_id, {_rank_sql('postgresql')}"
        f" FROM {match_table} m JOIN {seat_table} s ON s.match_id = m.id"
        f" WHERE m.pool = %s AND m.rated_seq IS NOT NULL ORDER BY m.rated_seq, s.seat"
    )
    with pg.cursor() as cursor:
        with cursor.copy(
            sql.SQL("COPY ({}) TO STDOUT").format(sql.SQL(query.replace("%s", "{}")).format(pool))
        ) as copy:
            irregular = False
            for rows in _row_blocks(copy):
                if irregular:
                    continue  # read to the end: the connection stays usable for the fallback
                a, b = rows[0::2, 2], rows[1::2, 2]
                if (
                    len(rows) % 2
                    or (rows[:, 1] != np.tile([0, 1], len(rows) // 2)).any()
                    or (rows[0::2, 0] != rows[1::2, 0]).any()
                    or (a == b).any()
                    or (a >= size).any()
                    or (b >= size).any()
                ):
                    irregular = True
                    continue
                rank_a, rank_b = rows[0::2, 3], rows[1::2, 3]
                _fold_elo_two(
                    out.ratings,
                    a.tolist(),
                    b.tolist(),
                    rank_a.tolist(),
                    rank_b.tolist(),
                    k,
                    start,
                    parents,
                )
                out.matches += len(a)
                if tallies is not None:
                    _tally_two(tallies, pair_sums, size, a, b, rank_a, rank_b)
    if irregular:
        raise _NotTwoSeats
    if tallies is not None:
        for key in out.ratings:
            matches, wins, draws, losses, rank_total, sides_total = tallies[:, key].tolist()
            out.records[key] = Record(matches, wins, draws, losses, rank_total, sides_total)
        out.pairs = {divmod(key, size): sums for key, sums in pair_sums.items()}
    return out


def _row_blocks(copy, block_bytes: int = 1 << 20) -> Iterator[np.ndarray]:
    """COPY's text output as (rows, 4) int64 arrays of whole matches (an even row count)."""
    buffer = bytearray()
    carry = None
    for data in copy:
        buffer += data
        if len(buffer) < block_bytes:
            continue
        cut = buffer.rfind(b"\n") + 1
        rows = np.fromstring(bytes(buffer[:cut]), dtype=np.int64, sep=" ").reshape(-1, 4)
        del buffer[:cut]
        if carry is not None:
            rows = np.concatenate([carry, rows])
        keep = len(rows) - len(rows) % 2
        carry = rows[keep:] if keep < len(rows) else None
        if keep:
            yield rows[:keep]
    rows = np.fromstring(bytes(buffer), dtype=np.int64, sep=" ").reshape(-1, 4)
    if carry is not None:
        rows = np.concatenate([carry, rows])
    if len(rows):
        yield rows


def _fold_elo_two(ratings: dict, a_keys, b_keys, a_ranks, b_ranks, k, start, parents) -> None:
    """``elo.apply`` for two one-version sides, inlined: the same operations in the same
    order, so the same floats."""
    get = ratings.get
    starting = elo.starting_rating
    for a, b, x, y in zip(a_keys, b_keys, a_ranks, b_ranks):
        ra = get(a)
        if ra is None:
            ra = ratings[a] = starting(ratings, a, start, parents)
        rb = get(b)
        if rb is None:
            rb = ratings[b] = starting(ratings, b, start, parents)
        if x < y:
            sa, sb = 1.0, 0.0
        elif x == y:
            sa = sb = 0.5
        else:
            sa, sb = 0.0, 1.0
        ratings[a] = ra + k * (sa - 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0)))
        ratings[b] = rb + k * (sb - 1.0 / (1.0 + 10 ** ((ra - rb) / 400.0)))


def _tally_two(tallies, pair_sums: dict, size: int, a, b, rank_a, rank_b) -> None:
    """Records and pair sums of a block of two-seat results (all integer counts)."""
    win = (rank_a < rank_b).astype(np.int64)
    draw = (rank_a == rank_b).astype(np.int64)
    loss = (rank_a > rank_b).astype(np.int64)
    for keys, ranks, wins, losses in ((a, rank_a, win, loss), (b, rank_b, loss, win)):
        tallies[0] += np.bincount(keys, minlength=size)
        tallies[1] += np.bincount(keys, wins, minlength=size).astype(np.int64)
        tallies[2] += np.bincount(keys, draw, minlength=size).astype(np.int64)
        tallies[3] += np.bincount(keys, losses, minlength=size).astype(np.int64)
        tallies[4] += np.bincount(keys, ranks, minlength=size).astype(np.int64)
    tallies[5] += 2 * np.bincount(a, minlength=size) + 2 * np.bincount(b, minlength=size)
    # The pair (lower id first): the first's wins are the lower id's.
    low_first = a < b
    key = np.where(low_first, a * size + b, b * size + a)
    first_wins = np.where(low_first, win, loss)
    first_losses = np.where(low_first, loss, win)
    keys, inverse = np.unique(key, return_inverse=True)
    sums = zip(
        keys.tolist(),
        np.bincount(inverse, first_wins).tolist(),
        np.bincount(inverse, draw).tolist(),
        np.bincount(inverse, first_losses).tolist(),
    )
    for pair, wins, draws, losses in sums:
        total = pair_sums.get(pair)
        if total is None:
            pair_sums[pair] = [wins, draws, losses]
        else:
            total[0] += wins
            total[1] += draws
            total[2] += losses


def _fold_one(out: Fold, result: elo.RatedResult, k, start, parents) -> None:
    """Any result: what ``rating.rate_result`` does to ratings, records and pair sums."""
    moved = elo.apply(out.ratings, result, k, start, parents)
    side_of = {key: i for i, side in enumerate(result.sides) for key in side}
    for key in moved:
        record = out.records.get(key) or out.records.setdefault(key, Record())
        elo.count_game(record, result, side_of[key])
    totals: dict[tuple, list[float]] = {}
    for first, second, wins, draws, losses in elo.pair_records(result):
        if first > second:
            first, second, wins, losses = second, first, losses, wins
        total = totals.setdefault((first, second), [0.0, 0.0, 0.0])
        total[0] += wins
        total[1] += draws
        total[2] += losses
    for pair, (wins, draws, losses) in totals.items():
        total = out.pairs.get(pair)
        if total is None:
            out.pairs[pair] = [wins, draws, losses]
        else:
            total[0] += wins
            total[1] += draws
            total[2] += losses


def recompute_ratings(*, pool: str) -> dict[int, float]:
    """Every version's Elo in ``pool`` from the ordered rated results alone."""
    with transaction.atomic():
        return fold(pool, ratings_only=True).ratings


def recompute_pairs(*, pool: str) -> dict[tuple[int, int], tuple[float, float, float]]:
    """The pool's pairwise sums from the ordered rated results alone (a check on RatingPair)."""
    with transaction.atomic():
        return {pair: tuple(sums) for pair, sums in fold(pool).pairs.items()}


def rebuild_ratings(*, pool: str) -> int:
    """Rewrite the pool's ratings, records and pair sums from its rated results, under the
    pool's ledger lock (live rating waits); returns how many matches were folded.

    Rows are written set-based: COPY on PostgreSQL, ``bulk_create`` elsewhere. The rating
    history (``RatingChange``) is left as it was recorded.
    """
    with transaction.atomic():
        RatingLedger.objects.get_or_create(pool=pool)
        RatingLedger.objects.select_for_update().filter(pool=pool).exists()
        out = fold(pool)
        now = timezone.now()
        Rating.objects.filter(pool=pool).delete()
        RatingPair.objects.filter(pool=pool).delete()
        ratings = (
            (
                pool,
                key,
                elo_,
                r.matches,
                r.wins,
                r.draws,
                r.losses,
                r.rank_total,
                r.sides_total,
                now,
            )
            for key, elo_ in out.ratings.items()
            for r in [out.records[key]]
        )
        pair_rows = ((pool, a, b, *sums) for (a, b), sums in out.pairs.items())
        rating_columns = [
            "pool", "version_id", "elo", "matches", "wins", "draws", "losses", "rank_total",
            "sides_total", "updated_at",
        ]  # fmt: skip
        pair_columns = ["pool", "first_id", "second_id", "wins", "draws", "losses"]
        if connection.vendor == "postgresql":
            _copy(Rating, rating_columns, ratings)
            _copy(RatingPair, pair_columns, pair_rows)
        else:
            Rating.objects.bulk_create(
                (Rating(**dict(zip(rating_columns, row))) for row in ratings), batch_size=1000
            )
            RatingPair.objects.bulk_create(
                (RatingPair(**dict(zip(pair_columns, row))) for row in pair_rows),
                batch_size=1000,
            )
        # The pairs' sums per pair of bots follow the pairs.
        opponents.rebuild_pool(pool=pool)
        # The board shows these ratings: rewrite its rows in the same transaction. A key
        # that no longer parses (a rules change retired its options) has no board.
        try:
            pools.parse(pool)
        except pools.InvalidPool:
            pass
        else:
            leaderboard_rows.rebuild_pool(pool=pool)
    return out.matches


def _copy(model, columns: list[str], rows) -> None:
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    connection.ensure_connection()
    with connection.connection.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
