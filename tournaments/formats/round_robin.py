"""Round robin: every group of ``players_per_match`` entrants meets ``games_per_pairing`` times."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

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
from tournaments.formats.standings import FAULTS, HEAD_TO_HEAD, rank

TIEBREAKS = ("sonneborn_berger", HEAD_TO_HEAD, FAULTS)


@dataclass(frozen=True)
class PlannedMatch:
    round: int
    entrants: tuple[int, ...]  # entry indexes, in seat order
    deal: int  # matches sharing (group, deal) are dealt the same cards
    group: int


def berger_table(entrants: int) -> list[list[tuple[int, int]]]:
    """FIDE Berger tables: rounds of (first seat, second seat) pairs, 1-based players.

    With an odd count a phantom player n+1 is added; pairs with it are byes and
    are left out. Player i meets j in the round where i + j = round + 1
    (mod n - 1); the last player meets whoever would meet itself.
    """
    size = entrants + entrants % 2
    last, cycle = size, size - 1
    table = []
    for number in range(1, cycle + 1):
        pairs = []
        for player in range(1, cycle + 1):
            partner = (number + 1 - player) % cycle or cycle
            if partner == player:
                pair = (last, player) if number % 2 == 0 else (player, last)
            elif player < partner:
                # The player whose distance to the partner (mod n - 1) is odd takes the first seat.
                pair = (player, partner) if (partner - player) % 2 == 1 else (partner, player)
            else:
                continue
            if last not in pair or size == entrants:
                pairs.append(pair)
        # The pair with the last player opens the round, as in the printed tables.
        pairs.sort(key=lambda p: last not in p)
        table.append(pairs)
    return table


def round_robin(
    entrants: int, players_per_match: int, games_per_pairing: int, rotate_seats: bool
) -> list[PlannedMatch]:
    """Every group of ``players_per_match`` entrants meets ``games_per_pairing`` times.

    With seat rotation, game ``g`` of a group shifts the seats by ``g``, and
    each cycle of rotations plays one deal again (duplicate style), so no entrant
    gains from a lucky seat or a lucky shuffle. For two seats the rounds follow
    the Berger table, one cycle of it per game of a pairing, so nobody plays
    twice in a round; for more seats round ``g + 1`` holds every group's game ``g``.
    """
    if players_per_match < 1 or entrants < players_per_match:
        raise ValueError(f"{entrants} entrants cannot fill {players_per_match}-seat matches")
    berger_round: dict[tuple[int, ...], int] = {}
    if players_per_match == 2:
        for number, pairs in enumerate(berger_table(entrants)):
            for pair in pairs:
                berger_round[tuple(sorted((pair[0] - 1, pair[1] - 1)))] = number
    cycle = len(set(berger_round.values())) if berger_round else 1
    planned = []
    for group, members in enumerate(combinations(range(entrants), players_per_match)):
        for game in range(games_per_pairing):
            seats, deal = rotation(members, game, rotate_seats)
            number = game * cycle + berger_round.get(members, 0) + 1
            planned.append(PlannedMatch(round=number, entrants=seats, deal=deal, group=group))
    planned.sort(key=lambda p: (p.round, p.group))
    return planned


def next_matches(event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    """The whole plan is due at once; finished when every game has a result."""
    plan = [
        Pairing(
            key=f"G{p.group}.{index}",
            round=p.round,
            seats=p.entrants,
            deal=p.deal,
            group=p.group,
        )
        for index, p in enumerate(
            round_robin(
                event.entrants,
                event.players_per_match,
                event.games_per_pairing,
                event.rotate_seats,
            )
        )
    ]
    done = by_key(results)
    due = [p for p in plan if p.key not in done]
    if due:
        return due
    return finish(event.entrants, results)


def finish(entrants: int, results: Sequence[Result]) -> Finished:
    points, scored_against = running_totals(entrants, results)
    standings = standings_of(entrants, points, scored_against, faults_of(results, entrants))
    return Finished(order=tuple(s.entrant for s in standings), standings=standings)


def standings_of(
    entrants: int,
    points: Sequence[Fraction],
    scored_against: dict[tuple[int, int], Fraction],
    faults: Sequence[int],
) -> tuple[Standing, ...]:
    """The table from running totals: points, what each scored against each, faults.

    The same totals the read models keep per entrant and pair, so a table can be drawn
    without the games themselves.
    """
    # Sonneborn-Berger: what you scored against each opponent times that opponent's points.
    sonneborn = [Fraction(0)] * entrants
    for (a, b), s in scored_against.items():
        if s:
            sonneborn[a] += s * points[b]
    return rank(
        entrants=entrants,
        points=points,
        numeric={"sonneborn_berger": sonneborn},
        order=TIEBREAKS,
        scored_against=scored_against,
        faults=faults,
    )


class Scaled(Mapping):
    """``values[key] / scale`` as a Fraction, made only when asked for (head-to-head asks
    for the pairs of a tied group, not for all of them)."""

    def __init__(self, values: Mapping, scale: int):
        self.values, self.scale = values, scale

    def __getitem__(self, key) -> Fraction:
        return Fraction(self.values[key], self.scale)

    def __iter__(self) -> Iterator:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def standings_in_units(
    entrants: int,
    points: Sequence[int],
    scored_against: Mapping[tuple[int, int], int],
    faults: Sequence[int],
    scale: int,
) -> tuple[Standing, ...]:
    """:func:`standings_of` from totals counted in whole units of 1/``scale`` point: the
    same table, with whole-number sums over the pairs (Sonneborn-Berger in 1/scale^2)."""
    sonneborn = [0] * entrants
    for (a, b), s in scored_against.items():
        if s:
            sonneborn[a] += s * points[b]
    return rank(
        entrants=entrants,
        points=[Fraction(p, scale) for p in points],
        numeric={"sonneborn_berger": [Fraction(x, scale * scale) for x in sonneborn]},
        order=TIEBREAKS,
        scored_against=Scaled(scored_against, scale),
        faults=faults,
    )
