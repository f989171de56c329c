"""A tournament as its format sees it: entrants by seed number and the decided games.

Shared by the services that move a tournament on and the selectors that show it,
so both read the same thing.
"""

from __future__ import annotations

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


def tournament_event(tournament: Tournament, entries: list[Entry]) -> Event:
    challengers = tuple(e.seed_number for e in entries if e.challenger)
    return event_of(tournament, entrants=len(entries), challengers=challengers)


def results_of(tournament: Tournament, entries: list[Entry]) -> list[Result]:
    """Every decided game of the tournament as the format sees it.

    A match that failed (the host could not play it, every attempt) counts as a
    draw with no fault, so the event goes on; the failure stays on the match.
    """
    entrant_of_version = {e.version_id: e.seed_number for e in entries}
    seats_of: dict[int, list[tuple[int, int, int | None, bool]]] = {}
    rows = MatchSeat.objects.filter(
        match__tournament=tournament,
        match__status__in=[Match.Status.FINISHED, Match.Status.FAILED],
    ).values_list("match_id", "seat", "version_id", "rank", "fault")
    for match_id, seat, version_id, rank, fault in rows:
        seats_of.setdefault(match_id, []).append((seat, version_id, rank, fault is not None))
    matches = Match.objects.filter(pk__in=seats_of).values_list(
        "pk", "pairing_key", "round", "series", "status"
    )
    return [
        decided_result(
            key=key,
            round=round_,
            series=series,
            failed=status == Match.Status.FAILED,
            seats=[
                (entrant_of_version[v], rank, fault) for _, v, rank, fault in sorted(seats_of[pk])
            ],
        )
        for pk, key, round_, series, status in matches
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
