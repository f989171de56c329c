"""Elo as a pure function of the ordered rated results.

Two sides: standard Elo. More sides: each side's expected and actual scores
are averaged over its pairwise meetings with the n-1 others, by rank (a tie
is half a win). Teams: a side is a team, rated at the mean of its members,
and every member moves by the team's delta.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RatedResult:
    sides: list[list[Hashable]]  # the rated keys (bot versions) on each side
    ranks: list[int]  # one per side, 1 = best, ties share


def expected(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10 ** ((opponent - rating) / 400.0))


def deltas(ratings: dict[Hashable, float], result: RatedResult, k: float) -> dict[Hashable, float]:
    """Rating change of every key in ``result`` given current ``ratings``."""
    side_ratings = [sum(ratings[key] for key in side) / len(side) for side in result.sides]
    n = len(result.sides)
    out: dict[Hashable, float] = {}
    for i, side in enumerate(result.sides):
        exp = act = 0.0
        for j in range(n):
            if i == j:
                continue
            exp += expected(side_ratings[i], side_ratings[j])
            if result.ranks[i] < result.ranks[j]:
                act += 1.0
            elif result.ranks[i] == result.ranks[j]:
                act += 0.5
        delta = k * (act - exp) / (n - 1)
        for key in side:
            out[key] = delta
    return out


def starting_rating(
    ratings: Mapping[Hashable, float],
    key: Hashable,
    start: float,
    parents: Mapping[Hashable, Hashable] | None = None,
) -> float:
    """Where a new key starts: its nearest rated ancestor's rating, else ``start``.

    A new version inherits its parent's rating (as it stands at that point of the
    ordered results), so an upload is not a restart from scratch.
    """
    seen = set()
    parent = (parents or {}).get(key)
    while parent is not None and parent not in seen:
        if parent in ratings:
            return ratings[parent]
        seen.add(parent)
        parent = parents.get(parent)
    return start


def apply(
    ratings: dict[Hashable, float],
    result: RatedResult,
    k: float,
    start: float,
    parents: Mapping[Hashable, Hashable] | None = None,
) -> dict:
    """Apply one result in place; return {key: (before, after)}.

    A key seen for the first time starts at its nearest rated ancestor's rating
    (``parents`` maps a key to its parent) or at ``start``.
    """
    for side in result.sides:
        for key in side:
            if key not in ratings:
                ratings[key] = starting_rating(ratings, key, start, parents)
    changes = deltas(ratings, result, k)
    moved = {}
    for key, delta in changes.items():
        before = ratings[key]
        ratings[key] = before + delta
        moved[key] = (before, ratings[key])
    return moved


def recompute(
    results: Iterable[RatedResult],
    k: float,
    start: float,
    parents: Mapping[Hashable, Hashable] | None = None,
) -> dict[Hashable, float]:
    """Ratings from scratch: the same fold the live updates perform, in the same order."""
    ratings: dict[Hashable, float] = {}
    for result in results:
        apply(ratings, result, k, start, parents)
    return ratings


def pair_records(result: RatedResult) -> list[tuple[Hashable, Hashable, float, float, float]]:
    """The result as weighted pairwise records (first, second, wins, draws, losses).

    Sides are compared by rank; a comparison between two sides of a game of n
    sides weighs 1 / (n - 1) (every side carries one game's worth), split evenly
    over the member pairs of the two sides (teams: each member of one team
    against each member of the other).
    """
    records = []
    n = len(result.sides)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = result.ranks[i], result.ranks[j]
            outcome = (1.0, 0.0, 0.0) if a < b else ((0.0, 1.0, 0.0) if a == b else (0.0, 0.0, 1.0))
            members = len(result.sides[i]) * len(result.sides[j])
            weight = 1.0 / ((n - 1) * members)
            for first in result.sides[i]:
                for second in result.sides[j]:
                    if first != second:
                        records.append((first, second, *(weight * x for x in outcome)))
    return records


def count_game(record, result: RatedResult, side: int) -> None:
    """Add one rated game of ``side`` to ``record`` (anything with ``matches``,
    ``rank_total``, ``sides_total``, ``wins``, ``draws`` and ``losses``): the live rating
    row and the recompute's tally count a game the same way. W-D-L only in two-sided games.
    """
    rank = result.ranks[side]
    record.matches += 1
    record.rank_total += rank
    record.sides_total += len(result.sides)
    if len(result.sides) == 2:
        other = result.ranks[1 - side]
        record.wins += rank < other
        record.draws += rank == other
        record.losses += rank > other


def sides_from_match_result(result: dict, seat_keys: list[Hashable]) -> RatedResult:
    """Turn a match result (engine result + faults already ranked) into rated sides."""
    seats = result["seats"]
    teams = result.get("teams") or [[seat] for seat in range(len(seats))]
    return RatedResult(
        sides=[[seat_keys[seat] for seat in team] for team in teams],
        ranks=[min(seats[seat]["rank"] for seat in team) for team in teams],
    )
