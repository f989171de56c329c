"""Ratings from scratch, streamed: a pool's rated results folded in ledger order.

The live path (``rating.rate_result``) applies one result at a time under the pool's
lock; this module folds every rated result of a pool again, for a check
(``recompute_ratings``) or to rewrite the pool's ratings, records and pair sums
(``rebuild_ratings``, after a change to K or a repaired result, say).

It never builds a model instance per match: one ordered query reads (ledger position,
seat, version, rank) rows of the pool's seats, fetched in chunks through a server-side
cursor on PostgreSQL, so memory follows the number of versions and pairs, not of
matches. The fold is ``tournaments.elo.apply`` with a fast path for the common case (two
seats, one version each), written to give bit-for-bit the same floats; the ranks come
from the seats, which ``record_result`` writes from the same result as ``Match.result``.
Parents are every version's parent (a version's parent is an earlier version of the
same bot, so this is the map the live path walks).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from bots.models import BotVersion
from tournaments import elo
from tournaments.models import Match, MatchSeat, Rating, RatingLedger, RatingPair

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
        f"SELECT m.rated_seq, s.seat, s.version_id, s.rank,"
        f" CASE WHEN s.seat = 0 THEN {teams} END, m.id"
        f" FROM {match} m JOIN {seat} s ON s.match_id = m.id"
        f" WHERE m.pool = %s AND m.rated_seq IS NOT NULL"
        f" ORDER BY m.rated_seq, s.seat"
    )


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


def _ranks_from_results(pool: str) -> dict[int, list[int]]:
    """Ranks from ``Match.result`` for the rare match whose seats carry none."""
    missing = Match.objects.filter(
        pool=pool, rated_seq__isnull=False, seats__rank__isnull=True
    ).values_list("pk", "result")
    return {pk: [seat["rank"] for seat in result["seats"]] for pk, result in missing}


def fold(pool: str, *, k: float | None = None, start: float | None = None) -> Fold:
    """Fold every rated result of ``pool`` in ledger order (call inside a transaction on
    PostgreSQL, for the server-side cursor)."""
    k = settings.ARENA_ELO_K if k is None else k
    start = settings.ARENA_ELO_START if start is None else start
    parents = dict(BotVersion.objects.filter(parent__isnull=False).values_list("pk", "parent_id"))
    out = Fold()
    ratings, records, pairs = out.ratings, out.records, out.pairs
    expected = elo.expected
    patched: dict[int, list[int]] | None = None
    count = 0
    for match_id, versions, ranks, teams in _results(pool):
        count += 1
        if None in ranks:
            if patched is None:
                patched = _ranks_from_results(pool)
            ranks = patched[match_id]
        if len(versions) == 2 and (not teams or teams == "[]") and versions[0] != versions[1]:
            # Two seats, a version each: elo.apply's arithmetic, in its order.
            a, b = versions
            if a not in ratings:
                ratings[a] = elo.starting_rating(ratings, a, start, parents)
            if b not in ratings:
                ratings[b] = elo.starting_rating(ratings, b, start, parents)
            rank_a, rank_b = ranks
            before_a, before_b = ratings[a], ratings[b]
            score_a = 1.0 if rank_a < rank_b else (0.5 if rank_a == rank_b else 0.0)
            score_b = 1.0 if rank_b < rank_a else (0.5 if rank_a == rank_b else 0.0)
            ratings[a] = before_a + k * (score_a - expected(before_a, before_b)) / 1
            ratings[b] = before_b + k * (score_b - expected(before_b, before_a)) / 1
            record = records.get(a) or records.setdefault(a, Record())
            record.matches += 1
            record.rank_total += rank_a
            record.sides_total += 2
            record.wins += rank_a < rank_b
            record.draws += rank_a == rank_b
            record.losses += rank_a > rank_b
            record = records.get(b) or records.setdefault(b, Record())
            record.matches += 1
            record.rank_total += rank_b
            record.sides_total += 2
            record.wins += rank_b < rank_a
            record.draws += rank_a == rank_b
            record.losses += rank_b > rank_a
            win, draw, loss = score_a == 1.0, score_a == 0.5, score_a == 0.0
            if a > b:
                a, b, win, loss = b, a, loss, win
            total = pairs.get((a, b))
            if total is None:
                pairs[(a, b)] = [1.0 * win, 1.0 * draw, 1.0 * loss]
            else:
                total[0] += 1.0 * win
                total[1] += 1.0 * draw
                total[2] += 1.0 * loss
            continue
        _fold_one(out, _rated(versions, ranks, teams), k, start, parents)
    out.matches = count
    return out


def _fold_one(out: Fold, result: elo.RatedResult, k, start, parents) -> None:
    """Any result: what ``rating.rate_result`` does to ratings, records and pair sums."""
    moved = elo.apply(out.ratings, result, k, start, parents)
    sides = len(result.sides)
    side_of = {key: i for i, side in enumerate(result.sides) for key in side}
    for key in moved:
        record = out.records.get(key) or out.records.setdefault(key, Record())
        record.matches += 1
        rank = result.ranks[side_of[key]]
        record.rank_total += rank
        record.sides_total += sides
        if sides == 2:
            other = result.ranks[1 - side_of[key]]
            record.wins += rank < other
            record.draws += rank == other
            record.losses += rank > other
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
        return fold(pool).ratings


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
    return out.matches


def _copy(model, columns: list[str], rows) -> None:
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    connection.ensure_connection()
    with connection.connection.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
