"""A card-counting bot for Pairs (and its simple variants).

It prices each move in expected points: a hit costs the chance of pairing
each card in the stack (from the cards nobody has seen) times that card's
rank; a fold costs the card taken. It picks the cheapest move.
"""

from __future__ import annotations

from games.rng import Rng

EIGHT = 8
# A safe hit is not free: the stack grows and the next hit is riskier. Pricing
# hits a little above their immediate risk folds earlier, which pays off.
HIT_PREMIUM = 1.15
# In Continuous Pairs, taking a card from someone else's stack also removes
# their cheapest fold; worth about this many points to us.
TAKE_OTHERS_BONUS = 0.6


def pairing_cost(stack: list[int], unseen: list[int]) -> float:
    """Expected points scored by one hit onto ``stack``."""
    total = sum(unseen)
    if total <= 0:
        return 0.0
    return sum(unseen[card - 1] * card for card in stack) / total


def heuristic(observation: dict, legal: list, rng: Rng) -> str:
    if len(legal) == 1:
        return legal[0]
    me = observation["seat"]
    stacks = observation["stacks"]
    unseen = observation["unseen"]
    stack = stacks[me]
    best, best_cost = legal[0], pairing_cost(stack, unseen) * HIT_PREMIUM
    for action in legal[1:]:
        if action == "fold":
            cost = min(card for cards in stacks for card in cards)
        elif action == "eights":
            rest = [card for card in stack if card != EIGHT]
            # Two hits onto a stack one card shorter; the second sees one more card.
            cost = pairing_cost(rest, unseen) * (2 + 1 / max(len(rest), 1)) * HIT_PREMIUM
        else:
            _, holder, card = action.split(":")
            cost = int(card) - (TAKE_OTHERS_BONUS if int(holder) != me else 0.0)
        if cost < best_cost:
            best, best_cost = action, cost
    return best
