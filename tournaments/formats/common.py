"""The shared vocabulary of the pairing formats.

A format is pure logic: it is given the event (entrant count and the format's
parameters) and every finished game so far, and answers with the games that
are due now, or with :class:`Finished` and the final order. Entrants are
indexes in seeding order (0 is the top seed). Every game carries a stable
``key``; a format may return a due game again until its result arrives, so the
caller stores each key once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class Event:
    """What a format needs to know about the event; the field names are the API's."""

    entrants: int
    players_per_match: int = 2
    games_per_pairing: int = 2
    rotate_seats: bool = True
    rounds: int | None = None  # swiss; None picks ceil(log2 n) + 1
    challengers: tuple[int, ...] = (0,)  # gauntlet: entrant indexes
    advance: int = 1  # elimination with 3+ seats: how many of a table go through
    third_place: bool = False  # single elimination
    grand_final_reset: bool = True  # double elimination


@dataclass(frozen=True)
class Pairing:
    """One game to play."""

    key: str  # stable and unique within the event
    round: int
    seats: tuple[int, ...]  # entrant indexes in seat order
    deal: int  # games sharing (group, deal) are dealt the same cards
    group: int
    series: str | None = None  # elimination: the series this game belongs to


@dataclass(frozen=True)
class Result:
    """A finished game: ``ranks[i]`` is the place (1 best, ties share) of ``pairing.seats[i]``."""

    pairing: Pairing
    ranks: tuple[int, ...]
    faults: tuple[int, ...] = ()  # entrants who crashed, timed out or moved illegally


@dataclass(frozen=True)
class Standing:
    entrant: int
    place: int  # 1 best; equal places are not given, ties are broken
    points: float
    tiebreaks: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Finished:
    order: tuple[int, ...]  # entrants, best first
    standings: tuple[Standing, ...]


def game_scores(result: Result) -> dict[int, Fraction]:
    """Each seat's share of the game: 1 for beating everyone, 1/2 per tie, 0 for last."""
    return {entrant: Fraction(n, d) for entrant, (n, d) in _score_ratios(result).items()}


def game_score_floats(result: Result) -> dict[int, float]:
    """``game_scores`` as floats, without a Fraction per seat (a standings page sums every
    decided game): an int ratio divides to the float nearest it, as ``float(Fraction)``."""
    return {entrant: n / d for entrant, (n, d) in _score_ratios(result).items()}


def _score_ratios(result: Result) -> dict[int, tuple[int, int]]:
    seats, ranks = result.pairing.seats, result.ranks
    if len(seats) == 1:
        return {seats[0]: (1, 1)}
    others2 = 2 * (len(seats) - 1)
    return {
        entrant: (
            sum(1 for r in ranks if r > rank) * 2 + sum(1 for r in ranks if r == rank) - 1,
            others2,
        )
        for entrant, rank in zip(seats, ranks)
    }


def rotation(members: Sequence[int], game: int, rotate: bool = True) -> tuple[tuple[int, ...], int]:
    """Seats and deal of game ``game`` of a pairing: seats shift by one per game, and
    each full cycle of shifts plays one deal again (duplicate play)."""
    size = len(members)
    if not rotate:
        return tuple(members), game
    shift = game % size
    return tuple(members[shift:]) + tuple(members[:shift]), game // size


def by_key(results: Iterable[Result]) -> dict[str, Result]:
    return {r.pairing.key: r for r in results}


def faults_of(results: Iterable[Result], entrants: int) -> list[int]:
    counts = [0] * entrants
    for result in results:
        for entrant in result.faults:
            counts[entrant] += 1
    return counts


def pairwise_scores(result: Result) -> dict[tuple[int, int], Fraction]:
    """What each seat scored against each other seat of the game: 1, 1/2 or 0."""
    seats, ranks = result.pairing.seats, result.ranks
    return {
        (a, b): Fraction(1) if ra < rb else Fraction(1, 2) if ra == rb else Fraction(0)
        for a, ra in zip(seats, ranks)
        for b, rb in zip(seats, ranks)
        if a != b
    }


def running_totals(
    entrants: int, results: Iterable[Result]
) -> tuple[list[Fraction], dict[tuple[int, int], Fraction]]:
    """Each entrant's game points, and what each scored against each other (the totals a
    round robin or gauntlet table is ranked from, and that the read models keep)."""
    points = [Fraction(0)] * entrants
    scored_against: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for result in results:
        for entrant, score in game_scores(result).items():
            points[entrant] += score
        for pair, score in pairwise_scores(result).items():
            scored_against[pair] += score
    return points, scored_against
