"""Counting Pairs cards: ranks held, ranks not yet seen, the risk of a pair.

The heuristics count cards from what an observation shows; Kitty and Sweep
score by who holds the most of each rank.
"""

from __future__ import annotations

from collections.abc import Iterable

# Copies of each rank in the Pairs deck: index = rank (index 0 unused).
RANK_COUNTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
DECK_SIZE = 55


def rank_counts(cards: list[int]) -> list[int]:
    """How many of each Pairs rank ``cards`` holds (index = rank, index 0 unused)."""
    counts = [0] * 11
    for card in cards:
        counts[card] += 1
    return counts


def distinct_ranks(hands: list[list[int]]) -> list[list[int]]:
    """Each hand's ranks, once each and in order (Kitty's and Venture's legal passes, bids
    and draft picks): a new list per hand, made in C (this runs on every pass round)."""
    return list(map(sorted, map(set, hands)))


def most_of_each_rank(counts: list[list[int]]) -> list[int]:
    """Points of each side from its count of each rank (index = rank), as Kitty and Sweep
    score: the side(s) holding the most cards of a rank score that rank, ties each in full;
    a rank nobody holds scores for nobody."""
    points = [0] * len(counts)
    for rank in range(1, 11):
        most = max(side[rank] for side in counts)
        if most:
            for i, side in enumerate(counts):
                if side[rank] == most:
                    points[i] += rank
    return points


def unseen_counts(seen: Iterable[int]) -> list[int]:
    """Copies of each rank (index = rank) not among ``seen``: what a counter expects."""
    counts = list(RANK_COUNTS)
    for card in seen:
        counts[card] -= 1
    return counts


def unseen_on_table(observation: dict, own: str = "hand") -> list[int]:
    """``unseen_counts`` of what ``observation`` shows: face-up stacks and the seat's ``own``."""
    seen = [card for stack in observation["stacks"] for card in stack]
    return unseen_counts(seen + observation.get(own, []))


def pair_risk(stack_ranks: Iterable[int], unseen: list[int]) -> tuple[float, float]:
    """Chance that one unseen card pairs ``stack_ranks``, and the expected cost of that pair."""
    total = sum(unseen[1:])
    if total <= 0:
        return 0.0, 0.0
    chance = 0.0
    cost = 0.0
    for rank in set(stack_ranks):
        p = unseen[rank] / total
        chance += p
        cost += p * rank
    return chance, cost
