"""A Pairs bot that counts cards: it hits only while pairing is cheaper than folding.

It reads everything it needs from the observation (a stateless bot):
- ``stacks``: every face-up stack, ``seat``: which one is ours;
- ``unseen``: how many of each rank (index 0 = rank 1) nobody has seen yet.

A hit pairs with probability (unseen copies of our ranks) / (unseen cards) and
then scores that rank; a fold scores the lowest card in play. Take the cheaper.

Try it locally:  python manage.py play pairs examples/bots/pairs_cautious.py random random
"""

import arena_sdk

# Hitting grows the stack, so the next hit is riskier: price hits a little high.
HIT_PREMIUM = 1.15


def expected_hit_cost(stack, unseen):
    total = sum(unseen)
    if total == 0:
        return 0.0
    return sum(unseen[card - 1] * card for card in stack) / total


def act(observation, legal):
    if len(legal) == 1 or "fold" not in legal or "hit" not in legal:
        return legal[0]
    stack = observation["stacks"][observation["seat"]]
    lowest_in_play = min(card for cards in observation["stacks"] for card in cards)
    hit_cost = expected_hit_cost(stack, observation["unseen"]) * HIT_PREMIUM
    return "hit" if hit_cost <= lowest_in_play else "fold"


arena_sdk.run(act)
