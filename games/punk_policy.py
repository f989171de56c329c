"""The Punk heuristic: play the card with the best expected points this trick.

Each other seat is modelled as playing one card drawn from the cards it may hold
(the unseen cards, or a fair die). A card ``r`` wins when nobody else plays ``r``
and no lower rank is played exactly once; the chance of that is exact under the
model (a multinomial sum computed rank by rank), and costs O(ranks x seats^2).
"""

from __future__ import annotations

from math import factorial

from games.rng import Rng

# Reaching the target ends the game at once: worth far more than its points.
WINNING_BONUS = 100.0
# A fresh card is a lottery ticket, and the best card of a hand is what gets played:
# a kept card must beat most fresh ones, not just the average (tried: keeping above the
# average, or everything, wins less often against random play).
KEEP_SHARE = 0.8
POINTS_TIEBREAK = 1e-3


def opponent_odds(observation: dict) -> list[float]:
    """Chance (index = rank) that another seat's card has that rank."""
    if observation["dice"]:
        sides = observation["dice"]
        return [0.0] + [1.0 / sides] * sides
    ranks = observation["ranks"]
    unseen = [0] + [observation["copies"]] * ranks
    seen = [*observation.get("hand", []), *observation["pot"], *observation["neutral"]]
    for cache in observation["caches"]:
        seen.extend(cache)
    for card in seen:
        unseen[card] -= 1
    total = sum(unseen)
    if total <= 0:
        return [0.0] + [1.0 / ranks] * ranks
    return [count / total for count in unseen]


def win_chances(odds: list[float], others: int) -> list[float]:
    """For each rank r, the chance that r wins a trick against ``others`` seats.

    ``low[c]`` sums, over the ways ``c`` seats can play ranks below r with no
    rank played exactly once, the multinomial weights divided by c!.
    """
    fact = [factorial(k) for k in range(others + 1)]
    low = [1.0] + [0.0] * others
    below = 0.0
    chances = [0.0]
    for rank in range(1, len(odds)):
        above = max(0.0, 1.0 - below - odds[rank])
        total = sum(
            low[c] * above ** (others - c) / fact[others - c] for c in range(others + 1) if low[c]
        )
        chances.append(total * fact[others])
        p = odds[rank]
        if p > 0:
            grown = list(low)
            for c in range(others + 1):
                if low[c]:
                    for k in range(2, others - c + 1):
                        grown[c + k] += low[c] * p**k / fact[k]
            low = grown
        below += p
    return chances


def card_values(observation: dict) -> list[float]:
    """Expected points (index = rank) of playing each rank now."""
    odds = opponent_odds(observation)
    chances = win_chances(odds, observation["table"] - 1)
    seat = observation["seat"]
    need = observation["target"] - observation["scores"][seat]
    return [
        chance * (rank + (WINNING_BONUS if rank >= need else 0.0))
        for rank, chance in enumerate(chances)
    ]


def is_last_trick(observation: dict) -> bool:
    """The last trick of a game (the round of two-card hands has a single trick)."""
    return observation["hand_size"] <= 2 and observation["trick"] == observation["round_tricks"] - 1


def last_trick_values(observation: dict) -> list[float]:
    """At the very end only first place counts: the chance to win the trick with a card
    that puts us ahead of every other player (points only break near-ties).
    """
    seat = observation["seat"]
    scores = observation["scores"][: observation["players"]]
    rival = max(score for other, score in enumerate(scores) if other != seat)
    chances = win_chances(opponent_odds(observation), observation["table"] - 1)
    return [
        chance * ((1.0 if scores[seat] + rank > rival else 0.0) + POINTS_TIEBREAK * rank)
        for rank, chance in enumerate(chances)
    ]


def keep_threshold(odds: list[float], values: list[float], share: float = KEEP_SHARE) -> float:
    """The value a fresh card beats with chance ``1 - share`` (its ``share`` quantile)."""
    ranked = sorted((values[rank], odds[rank]) for rank in range(1, len(odds)))
    seen = 0.0
    for value, chance in ranked:
        seen += chance
        if seen >= share:
            return value
    return ranked[-1][0]


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Play the best expected card (on the last trick, the best chance to finish first);
    keep only cards better than most fresh ones.
    """
    if observation["phase"] == "trick":
        last = is_last_trick(observation)
        values = last_trick_values(observation) if last else card_values(observation)
        return max(legal, key=lambda card: (values[card], -card))
    # The pot is about to be dealt out again: judge the next round with it unseen.
    next_round = dict(observation, pot=[])
    odds = opponent_odds(next_round)
    values = card_values(next_round)
    threshold = keep_threshold(odds, values)
    keep = sorted(card for card in observation["hand"] if values[card] > threshold)
    return keep if keep in legal else legal[0]
