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


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Play the best expected card; keep the cards worth more than a fresh one."""
    values = card_values(observation)
    if observation["phase"] == "trick":
        return max(legal, key=lambda card: (values[card], -card))
    odds = opponent_odds(observation)
    fresh = sum(p * v for p, v in zip(odds, values))
    keep = sorted(card for card in observation["hand"] if values[card] > fresh)
    return keep if keep in legal else legal[0]
