"""Elo as a pure function of the ordered rated results.

Two sides: standard Elo. More sides: each side's expected and actual scores
are averaged over its pairwise meetings with the n-1 others, by rank (a tie
is half a win). Teams: a side is a team, rated at the mean of its members,
and every member moves by the team's delta.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
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


def apply(ratings: dict[Hashable, float], result: RatedResult, k: float, start: float) -> dict:
    """Apply one result in place (new keys start at ``start``); return {key: (before, after)}."""
    for side in result.sides:
        for key in side:
            ratings.setdefault(key, start)
    changes = deltas(ratings, result, k)
    moved = {}
    for key, delta in changes.items():
        before = ratings[key]
        ratings[key] = before + delta
        moved[key] = (before, ratings[key])
    return moved


def recompute(results: Iterable[RatedResult], k: float, start: float) -> dict[Hashable, float]:
    """Ratings from scratch: the same fold the live updates perform, in the same order."""
    ratings: dict[Hashable, float] = {}
    for result in results:
        apply(ratings, result, k, start)
    return ratings


def sides_from_match_result(result: dict, seat_keys: list[Hashable]) -> RatedResult:
    """Turn a match result (engine result + faults already ranked) into rated sides."""
    seats = result["seats"]
    teams = result.get("teams") or [[seat] for seat in range(len(seats))]
    return RatedResult(
        sides=[[seat_keys[seat] for seat in team] for team in teams],
        ranks=[min(seats[seat]["rank"] for seat in team) for team in teams],
    )
