"""A card-counting heuristic for Regent (see games/pairs/regent.py).

It scores every legal action by a rough expected chip gain, from what the
observation shows: its own hand, every stack, the size of every hand.
"""

from __future__ import annotations

from games.pairs.counting import unseen_on_table
from games.rng import Rng

# Chance that two unseen Pairs cards share a rank (sum of r^2 over 55^2, about 1/8).
SAME_RANK = 385 / 55**2
# What a hidden pair tends to be worth: pairs are likelier among high ranks.
TYPICAL_PAIR = 7
# Worth of making a rival's stack bigger: every card is one more rank that can pair.
PRESSURE = 0.6


def _chance_of_pair(stack: list[int], hidden: int, unseen: list[int]) -> float:
    """Rough chance that ``hidden`` unseen cards pair each other or ``stack``."""
    total = sum(unseen[1:])
    if hidden <= 0 or total <= 0:
        return 0.0
    hits_stack = sum(unseen[rank] for rank in set(stack)) / total
    no_pair = (1 - hits_stack) ** hidden * (1 - SAME_RANK) ** (hidden * (hidden - 1) // 2)
    return 1 - no_pair


def _score(action: list, view: dict, unseen: list[int]) -> float:
    seat = view["seat"]
    stacks = view["stacks"]
    hand = view.get("hand", [])
    mine = stacks[seat] + hand
    total = max(1, sum(unseen[1:]))
    kind = action[0]
    if kind == "fold":
        return -view["fold_price"] - 1.0
    if kind == "draw":
        # A drawn card that matches anything we hold is a pair waiting to be seen.
        return -2.0 * sum(unseen[rank] for rank in set(mine)) / total
    target = action[1]
    theirs = stacks[target]
    if kind == "attack":
        chance = sum(unseen[rank] for rank in set(theirs)) / total
        cost = sum(unseen[rank] * rank for rank in set(theirs)) / total
        return PRESSURE - cost - chance
    if kind == "gift":
        card = action[2]
        # Giving away half of a pair (or a match for our stack) makes us safe.
        cleans = hand.count(card) > 1 or card in stacks[seat]
        return (3.0 if cleans else 0.0) + PRESSURE - 0.05 * card
    # "see": their stack is known, their hand is not.
    chance = _chance_of_pair(theirs, view["hand_sizes"][target], unseen)
    highest = max(theirs + [TYPICAL_PAIR])
    return chance * TYPICAL_PAIR - (1 - chance) * highest


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """The legal action with the best rough expected gain."""
    unseen = unseen_on_table(observation)
    return max(legal, key=lambda action: _score(action, observation, unseen))
