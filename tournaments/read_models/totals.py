"""Standings totals: what each decided match adds to its entrants and pairs, kept in the
result's transaction (:func:`count_result`) or rebuilt from the matches."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from fractions import Fraction
from math import lcm

from django.db import connection, transaction
from django.db.models import F

from tournaments.format_inputs import decided_result
from tournaments.formats.common import Result, game_scores, pairwise_scores
from tournaments.models import (
    Entry,
    EntryTally,
    Match,
    MatchSeat,
    PairTally,
    StandingsSnapshot,
    Tournament,
)
from tournaments.models.row_statements import Batch, insert_rows, update_rows

DECIDED = (Match.Status.FINISHED, Match.Status.FAILED)
# An entrant's totals, in EntryTally's field order.
ENTRY_FIELDS = ("points", "faults", "played", "wins", "score")
PAIR_FIELDS = ("first_points", "second_points", "games")


def points_scale(players: int) -> int:
    """Units per game point that make every share whole: a game of k seats moves points in
    steps of 1/(2(k-1)), and a table never has more seats than the event's matches."""
    return lcm(2, *(2 * (k - 1) for k in range(2, players + 1)))


def _whole(value: Fraction, scale: int) -> int:
    units = value * scale
    assert units.denominator == 1, f"{value} is not a whole number of 1/{scale}"
    return int(units)


Seat = tuple[int, int | None, bool, int | None]  # entrant, rank, faulted, score


def _contribution(
    result: Result, seats: list[Seat], *, finished: bool, scale: int
) -> tuple[dict[int, list[int]], dict[tuple[int, int], list[int]]]:
    """What one decided game adds to each entrant's totals and each pair's.

    The format's part (points, faults, what each scored against each) comes from the
    game as the format sees it (a failed game is a draw, its faults not counted); the
    standings rows' part (played, wins, score) from the seats of a game played to its end.
    """
    entries: dict[int, list[int]] = defaultdict(lambda: [0] * len(ENTRY_FIELDS))
    pairs: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0] * len(PAIR_FIELDS))
    for entrant, share in game_scores(result).items():
        entries[entrant][0] += _whole(share, scale)
    for entrant in result.faults:
        entries[entrant][1] += 1
    if finished:
        for entrant, rank, _, score in seats:
            row = entries[entrant]
            row[2] += 1
            row[3] += rank == 1
            row[4] += score or 0
    for (a, b), scored in pairwise_scores(result).items():
        first, second = min(a, b), max(a, b)
        pair = pairs[(first, second)]
        pair[0 if a == first else 1] += _whole(scored, scale)
        if a == first:
            pair[2] += 1
    return entries, pairs


def _decided_games(tournament_id: int, match_ids: Iterable[int] | None = None):
    """(match id, status, result as the format sees it, seats) of every decided match of
    the tournament, or of those ``match_ids`` whatever their status, from three value
    queries; seats are (entrant, rank, faulted, score) in seat order."""
    entries = Entry.objects.filter(tournament_id=tournament_id, seed_number__isnull=False)
    matches = Match.objects.filter(tournament_id=tournament_id)
    if match_ids is not None:
        matches = matches.filter(pk__in=list(match_ids))
        # Only the entrants who sat in them (a result's path: not the whole field).
        played = MatchSeat.objects.filter(match__in=matches.values("pk")).values("version_id")
        entries = entries.filter(version_id__in=played)
    else:
        matches = matches.filter(status__in=DECIDED)
    entrant_of_version = dict(entries.values_list("version_id", "seed_number"))
    seats_of: dict[int, list[tuple]] = defaultdict(list)
    rows = MatchSeat.objects.filter(match__in=matches.values("pk")).values_list(
        "match_id", "seat", "version_id", "rank", "fault", "score"
    )
    for match_id, seat, version_id, rank, fault, score in rows:
        seats_of[match_id].append(
            (seat, (entrant_of_version[version_id], rank, fault is not None, score))
        )
    for pk, key, round_, series, status in matches.order_by().values_list(
        "pk", "pairing_key", "round", "series", "status"
    ):
        seats = [seat for _, seat in sorted(seats_of[pk], key=lambda s: s[0])]
        failed = status == Match.Status.FAILED
        result = decided_result(
            key=key,
            round=round_,
            series=series,
            failed=failed,
            seats=[(entrant, rank, fault) for entrant, rank, fault, _ in seats],
        )
        yield pk, status, result, seats


def totals_from_matches(
    tournament: Tournament,
) -> tuple[dict[int, list[int]], dict[tuple[int, int], list[int]]]:
    """Every entrant's and pair's totals summed from the decided matches (the rebuild)."""
    scale = points_scale(tournament.players_per_match)
    entries: dict[int, list[int]] = {
        n: [0] * len(ENTRY_FIELDS)
        for n in tournament.entries.filter(seed_number__isnull=False).values_list(
            "seed_number", flat=True
        )
    }
    pairs: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0] * len(PAIR_FIELDS))
    for _, status, result, seats in _decided_games(tournament.pk):
        mine, ours = _contribution(
            result, seats, finished=status == Match.Status.FINISHED, scale=scale
        )
        for entrant, values in mine.items():
            entries[entrant] = [x + y for x, y in zip(entries[entrant], values)]
        for pair, values in ours.items():
            pairs[pair] = [x + y for x, y in zip(pairs[pair], values)]
    return entries, {pair: values for pair, values in pairs.items() if values[2]}


def stored_totals(
    tournament_id: int, *, pairs: bool = True
) -> tuple[dict[int, list[int]], dict[tuple[int, int], list[int]]]:
    """The totals as the tables hold them, in the shape of :func:`totals_from_matches`
    (the pairs' left empty unless ``pairs``)."""
    entries = {
        row[0]: list(row[1:])
        for row in EntryTally.objects.filter(tournament_id=tournament_id).values_list(
            "entrant", *ENTRY_FIELDS
        )
    }
    if not pairs:
        return entries, {}
    return entries, {
        (row[0], row[1]): list(row[2:])
        for row in PairTally.objects.filter(tournament_id=tournament_id).values_list(
            "first", "second", *PAIR_FIELDS
        )
    }


def bump_results_mark(*, tournament_id: int) -> None:
    """Make the tournament's snapshot stale (inside the transaction of the change)."""
    _bump(tournament_id)


def _bump(tournament_id: int) -> None:
    Tournament.objects.filter(pk=tournament_id).update(results_version=F("results_version") + 1)


def _bump_statement(tournament_id: int) -> tuple[str, list]:
    """``_bump`` as SQL, to travel with other writes."""
    quote = connection.ops.quote_name
    table = quote(Tournament._meta.db_table)
    column = quote("results_version")
    return f"UPDATE {table} SET {column} = {column} + 1 WHERE id = %s", [tournament_id]


# --- Writes: call them inside the transaction holding the tournament's row lock. ---


def rebuild_totals(*, tournament_id: int) -> None:
    """Replace the tournament's totals with their sum over its decided matches; the
    snapshot goes stale. Takes the tournament's lock (results wait, and are not lost)."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        entries, pairs = totals_from_matches(tournament)
        EntryTally.objects.filter(tournament_id=tournament_id).delete()
        PairTally.objects.filter(tournament_id=tournament_id).delete()
        EntryTally.objects.bulk_create(
            [
                EntryTally(
                    tournament_id=tournament_id, entrant=entrant, **dict(zip(ENTRY_FIELDS, v))
                )
                for entrant, v in sorted(entries.items())
            ],
            batch_size=2000,
        )
        PairTally.objects.bulk_create(
            [
                PairTally(
                    tournament_id=tournament_id,
                    first=first,
                    second=second,
                    **dict(zip(PAIR_FIELDS, v)),
                )
                for (first, second), v in sorted(pairs.items())
            ],
            batch_size=5000,
        )
        matches = Match.objects.filter(tournament_id=tournament_id)
        for status in DECIDED:
            matches.filter(status=status).exclude(standings_counted=status).update(
                standings_counted=status
            )
        matches.exclude(status__in=DECIDED).exclude(standings_counted="").update(
            standings_counted=""
        )
        StandingsSnapshot.objects.filter(tournament_id=tournament_id).delete()
        _bump(tournament_id)


def count_result(*, match_id: int) -> None:
    """Make the tournament's totals count the match as it now stands, and bump the
    tournament's results mark if that changed anything.

    Call it in the transaction that changes the match's status (recorded, failed, queued
    again after a failure), with the tournament's row locked, after the match and its
    seats are written. The match remembers what the totals count it as
    (``standings_counted``): a game is never counted twice, a failure taken back is
    taken back once, and a change the totals never saw is found (see
    :func:`totals_drifted`). A tournament without totals yet gets them from its matches.
    """
    tournament_id, players, status, counted = Match.objects.values_list(
        "tournament_id", "tournament__players_per_match", "status", "standings_counted"
    ).get(pk=match_id)
    target = status if status in DECIDED else ""
    if tournament_id is None or counted == target:
        return
    if not EntryTally.objects.filter(tournament_id=tournament_id).exists():
        rebuild_totals(tournament_id=tournament_id)
        return
    scale = points_scale(players)
    ((_, _, seen, seats),) = _decided_games(tournament_id, [match_id])
    changes = [(counted, -1), (target, 1)] if counted else [(target, 1)]
    for as_status, sign in changes:
        if not as_status:
            continue
        # As the format sees (or saw) it in that status: a failed game is a draw.
        result = decided_result(
            key=seen.pairing.key,
            round=seen.pairing.round,
            series=seen.pairing.series or "",
            failed=as_status == Match.Status.FAILED,
            seats=[(entrant, rank, fault) for entrant, rank, fault, _ in seats],
        )
        entries, pairs = _contribution(
            result, seats, finished=as_status == Match.Status.FINISHED, scale=scale
        )
        _add(tournament_id, entries, pairs, sign)
    Match.objects.filter(pk=match_id).update(standings_counted=target)
    _bump(tournament_id)


def count_new_result(
    *,
    tournament: Tournament,
    key: str,
    round: int,
    series: str,
    seats: list[Seat],
    batch: Batch | None = None,
) -> None:
    """:func:`count_result` for a worker's result, from what it holds: two writes and the
    version bump instead of reading the match, its seats and entrants back.

    Only for a match the totals counted as nothing and that is now finished: the
    caller's UPDATE that finished it (in this transaction, under the tournament's row
    lock) required ``standings_counted`` to be empty and set it to finished, so this
    game is added exactly once. ``seats``: (entrant, rank, faulted, score) in seat order.
    A tournament without totals yet gets them from its matches, this one included.
    ``batch``: the caller's statements waiting to go (none the totals read), sent in the
    same round trip as these writes (their answers in ``batch.results``).
    """
    result = decided_result(
        key=key,
        round=round,
        series=series,
        failed=False,
        seats=[(entrant, rank, fault) for entrant, rank, fault, _ in seats],
    )
    entries, pairs = _contribution(
        result, seats, finished=True, scale=points_scale(tournament.players_per_match)
    )
    batch = batch if batch is not None else Batch()
    if not _add_new(tournament.pk, entries, pairs, batch):
        rebuild_totals(tournament_id=tournament.pk)


def _add_new(tournament_id: int, entries: dict, pairs: dict, batch: Batch) -> bool:
    """Add a game's contribution: one UPDATE for its entrants' rows, one upsert for its
    pairs' and the version's bump, in one round trip with what waits in ``batch``.
    False when the tournament has no totals: then the pairs' rows written are nothing
    that matters (the caller rebuilds every row, and bumps the version)."""
    entrants = len(batch)
    update_rows(
        EntryTally,
        keys=["tournament", "entrant"],
        fields=ENTRY_FIELDS,
        rows=[(tournament_id, entrant, *values) for entrant, values in entries.items()],
        set_sql={name: "{old} + {new}" for name in ENTRY_FIELDS},
        batch=batch,
    )
    insert_rows(
        PairTally,
        fields=["tournament", "first", "second", *PAIR_FIELDS],
        rows=[(tournament_id, first, second, *v) for (first, second), v in pairs.items()],
        batch=batch,
        suffix="ON CONFLICT ({tournament}, {first}, {second}) DO UPDATE SET "
        + ", ".join(f"{{{n}}} = {{table}}.{{{n}}} + excluded.{{{n}}}" for n in PAIR_FIELDS),
    )
    # The snapshot goes stale with the same round trip.
    batch.add(*_bump_statement(tournament_id), prepare=True)
    batch.send()
    return not entries or batch.results[entrants].rowcount == len(entries)


def _add(tournament_id: int, entries: dict, pairs: dict, sign: int) -> None:
    for entrant, values in entries.items():
        changes = {name: F(name) + sign * v for name, v in zip(ENTRY_FIELDS, values) if v}
        if changes:
            EntryTally.objects.filter(tournament_id=tournament_id, entrant=entrant).update(
                **changes
            )
    for (first, second), values in pairs.items():
        row = PairTally.objects.filter(tournament_id=tournament_id, first=first, second=second)
        if row.update(**{name: F(name) + sign * v for name, v in zip(PAIR_FIELDS, values)}):
            if sign < 0:
                row.filter(games=0).delete()
        else:
            assert sign > 0, "taking back a game its pair never counted"
            PairTally.objects.create(
                tournament_id=tournament_id,
                first=first,
                second=second,
                **dict(zip(PAIR_FIELDS, values)),
            )


def totals_drifted(tournament_id: int) -> bool:
    """Whether some match's status changed without its tournament's totals following it
    (a write that bypassed the services): then they are rebuilt from the matches."""
    matches = Match.objects.filter(tournament_id=tournament_id)
    return (
        matches.filter(status__in=DECIDED).exclude(standings_counted=F("status")).exists()
        or matches.exclude(status__in=DECIDED).exclude(standings_counted="").exists()
    )


def reset_totals(*, tournament_id: int) -> None:
    """At the start (entrants just seeded): zero totals for every entrant, a new version."""
    rebuild_totals(tournament_id=tournament_id)
