"""Payouts of the Pairs gambling rules (Seattle, Tacoma, Olympia, Portland).

Each runs once per game, when someone has lost it. Chips are integers; a
prize split among tied players leaves its odd chips in the pot, and the pot
goes to the next game's prize (decisions in docs/rules/pairs.md).
"""

from __future__ import annotations

from games.scoring import Pot

RULES = ("none", "seattle", "tacoma", "olympia", "portland")


def settle(rule: str, points: list[int], loser: int, stake: int, pot: Pot) -> list[int]:
    """Chips each seat wins (+) or pays (-) for one finished game; ``pot`` is updated.

    ``points`` are the game's scores, ``loser`` the seat that reached the target.
    """
    deltas = [0] * len(points)
    others = [seat for seat in range(len(points)) if seat != loser]
    if rule == "seattle":
        # One chip from the loser to every other player.
        for seat in others:
            deltas[seat] += 1
        deltas[loser] -= len(others)
    elif rule == "portland":
        # Each player gets the gap between the loser's score and theirs.
        for seat in others:
            gap = points[loser] - points[seat]
            deltas[seat] += gap
            deltas[loser] -= gap
    elif rule in ("tacoma", "olympia"):
        low = min(points[seat] for seat in others)
        winners = [seat for seat in others if points[seat] == low]
        payment = stake if rule == "tacoma" else points[loser] - low
        deltas[loser] -= payment
        pot.add(payment)
        for seat, share in pot.split(winners).items():
            deltas[seat] += share
    return deltas
