"""Gauntlet (cutechess-cli's): each challenger plays every other entrant.

All of one challenger's pairings are played on the same deals with seats
rotated, so its opponents face exactly the same cards. Entrants who are not
challengers do not play each other. Final order: points, head-to-head,
fewer faults, seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from tournaments.formats.common import (
    Event,
    Finished,
    Pairing,
    Result,
    Standing,
    by_key,
    faults_of,
    rotation,
    running_totals,
)
from tournaments.formats.round_robin import Scaled
from tournaments.formats.standings import FAULTS, HEAD_TO_HEAD, rank

TIEBREAKS = (HEAD_TO_HEAD, FAULTS)


def check(event: Event) -> None:
    if event.players_per_match != 2:
        raise ValueError("a gauntlet needs two-seat games")
    if event.entrants < 2:
        raise ValueError("a gauntlet needs at least 2 entrants")
    if not event.challengers:
        raise ValueError("a gauntlet needs at least one challenger")
    if len(set(event.challengers)) != len(event.challengers):
        raise ValueError("a challenger is named twice")
    if any(not 0 <= c < event.entrants for c in event.challengers):
        raise ValueError("every challenger must be an entrant")
    if event.games_per_pairing < 1:
        raise ValueError("a pairing needs at least one game")


def plan(event: Event) -> list[Pairing]:
    check(event)
    pairings, met = [], set()
    for group, challenger in enumerate(event.challengers, start=1):
        opponents = [e for e in range(event.entrants) if e != challenger]
        for number, opponent in enumerate(opponents, start=1):
            pair = frozenset((challenger, opponent))
            if pair in met:
                continue  # two challengers meet once
            met.add(pair)
            for game in range(event.games_per_pairing):
                seats, deal = rotation((challenger, opponent), game, event.rotate_seats)
                pairings.append(
                    Pairing(
                        key=f"C{challenger}.O{opponent}.G{game}",
                        round=number,
                        seats=seats,
                        deal=deal,
                        group=group,
                    )
                )
    return pairings


def next_matches(event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    done = by_key(results)
    due = [p for p in plan(event) if p.key not in done]
    if due:
        return due
    return standings(event, results)


def standings(event: Event, results: Sequence[Result]) -> Finished:
    """The order by points, head-to-head, faults and seed (of the games played so far)."""
    points, scored_against = running_totals(event.entrants, results)
    table = standings_of(event.entrants, points, scored_against, faults_of(results, event.entrants))
    return Finished(order=tuple(s.entrant for s in table), standings=table)


def standings_of(
    entrants: int,
    points: Sequence[Fraction],
    scored_against: dict[tuple[int, int], Fraction],
    faults: Sequence[int],
) -> tuple[Standing, ...]:
    """The order from running totals (points, what each scored against each, faults)."""
    return rank(
        entrants=entrants,
        points=points,
        numeric={},
        order=TIEBREAKS,
        scored_against=scored_against,
        faults=faults,
    )


def standings_in_units(
    entrants: int,
    points: Sequence[int],
    scored_against: Mapping[tuple[int, int], int],
    faults: Sequence[int],
    scale: int,
) -> tuple[Standing, ...]:
    """:func:`standings_of` from totals counted in whole units of 1/``scale`` point."""
    return rank(
        entrants=entrants,
        points=[Fraction(p, scale) for p in points],
        numeric={},
        order=TIEBREAKS,
        scored_against=Scaled(scored_against, scale),
        faults=faults,
    )
