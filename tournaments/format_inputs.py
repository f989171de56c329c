"""A tournament as its format sees it: entrants by seed number and the decided games.

Shared by the services that move a tournament on and the selectors that show it,
so both read the same thing.
"""

from __future__ import annotations

from typing import NamedTuple

from tournaments.formats import Event, Pairing, Result
from tournaments.models import Entry, Match, MatchSeat, Tournament


def event_of(tournament: Tournament, *, entrants: int, challengers: tuple[int, ...] = ()) -> Event:
    return Event(
        entrants=entrants,
        players_per_match=tournament.players_per_match,
        games_per_pairing=tournament.games_per_pairing,
        rotate_seats=tournament.rotate_seats,
        rounds=tournament.rounds,
        challengers=challengers,
        advance=tournament.advance,
        third_place=tournament.third_place,
        grand_final_reset=tournament.grand_final_reset,
    )


def seeded_entries(tournament: Tournament) -> list[Entry]:
    """The entries that play, in seed order (index = the format's entrant number)."""
    entries = tournament.entries.filter(seed_number__isnull=False).select_related("bot", "version")
    return sorted(entries, key=lambda e: e.seed_number)


class SeedRow(NamedTuple):
    """An entry that plays, by ids alone: what reading its results needs."""

    bot_id: int
    version_id: int | None
    seed_number: int
    challenger: bool


def seed_rows(tournament: Tournament) -> list[SeedRow]:
    """``seeded_entries`` without the bot and version rows (a standings page reads the
    results of every decided game: the entries' ids are all it needs of them)."""
    rows = tournament.entries.filter(seed_number__isnull=False).values_list(
        "bot_id", "version_id", "seed_number", "challenger"
    )
    return sorted((SeedRow(*row) for row in rows), key=lambda e: e.seed_number)


def tournament_event(tournament: Tournament, entries: list[Entry]) -> Event:
    challengers = tuple(e.seed_number for e in entries if e.challenger)
    return event_of(tournament, entrants=len(entries), challengers=challengers)


def results_of(tournament: Tournament, entries: list[Entry] | list[SeedRow]) -> list[Result]:
    """Every decided game of the tournament as the format sees it.

    A match that failed (the host could not play it, every attempt) counts as a
    draw with no fault, so the event goes on; the failure stays on the match.
    """
    entrant_of_version = {e.version_id: e.seed_number for e in entries}
    # The seats with their matches' columns, in one query, in the matches' own order
    # (round, number, id: what the formats read results in), each match's seats in order.
    rows = (
        MatchSeat.objects.filter(
            match__tournament=tournament,
            match__status__in=[Match.Status.FINISHED, Match.Status.FAILED],
        )
        .order_by("match__round", "match__number", "match_id", "seat")
        .values_list(
            "match_id",
            "version_id",
            "rank",
            "fault",
            "match__pairing_key",
            "match__round",
            "match__series",
            "match__status",
        )
    )
    games: dict[int, tuple] = {}
    for match_id, version_id, rank, fault, key, round_, series, status in rows:
        if match_id not in games:
            games[match_id] = (key, round_, series, status, [])
        games[match_id][4].append((entrant_of_version[version_id], rank, fault is not None))
    return [
        decided_result(
            key=key, round=round_, series=series, failed=status == Match.Status.FAILED, seats=seats
        )
        for key, round_, series, status, seats in games.values()
    ]


def decided_result(
    *, key: str, round: int, series: str, failed: bool, seats: list[tuple[int, int | None, bool]]
) -> Result:
    """One decided game as the format sees it, from its (entrant, rank, faulted) seats in
    seat order: a failed one is a draw with no fault, a missing rank counts as first."""
    entrants = tuple(entrant for entrant, _, _ in seats)
    ranks = tuple(1 if failed or rank is None else rank for _, rank, _ in seats)
    faults = tuple(entrant for entrant, _, fault in seats if fault and not failed)
    pairing = Pairing(key=key, round=round, seats=entrants, deal=0, group=0, series=series or None)
    return Result(pairing=pairing, ranks=ranks, faults=faults)
