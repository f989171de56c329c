"""A card-counting heuristic for Kitty (games/pairs/kitty.py).

It values a hand by the chance of holding the most cards of each rank,
estimated from the cards it has not seen; it passes the card it misses
least, and bids the card whose loss is smallest next to the chance of
winning the target times what the target adds.
"""

from __future__ import annotations

import math

from games.rng import Rng


def _counts(cards: list[int]) -> list[int]:
    counts = [0] * 11
    for card in cards:
        counts[card] += 1
    return counts


class _Model:
    """What one seat can estimate: its counts, the unseen counts, each rival's share of them."""

    def __init__(self, obs: dict) -> None:
        seat = obs["seat"]
        players = obs["players"]
        self.mine = _counts(obs["hand"])
        out = _counts(obs["discards"] + obs["targets"])
        self.unseen = [rank - self.mine[rank] - out[rank] for rank in range(11)]
        self.unseen[0] = 0
        sizes = obs["hand_sizes"]
        others = sum(sizes) - sizes[seat]
        hidden = others + obs["kitty_left"] + obs["removed"]
        # Expected share of the unseen cards in one other hand.
        self.share = others / (players - 1) / hidden if hidden else 0.0
        teams = obs["teams"]
        self.partners = 1 if teams else 0
        self.rivals = len(teams) - 1 if teams else players - 1
        self.seat = seat
        self.players = players
        self.bids_below = self._bid_odds()

    def _bid_odds(self) -> list[float]:
        """For each rank b, the chance one rival's bid is b or lower (bids drawn from unseen)."""
        total = sum(self.unseen)
        odds = [0.0] * 11
        running = 0
        for rank in range(1, 11):
            running += self.unseen[rank]
            odds[rank] = running / total if total else 0.0
        return odds

    def value(self, mine: list[int], unseen: list[int]) -> float:
        total = 0.0
        for rank in range(1, 11):
            count = mine[rank]
            expected = unseen[rank] * self.share
            count += expected * self.partners
            if not count:
                continue
            # The largest of several rivals' counts sits above their mean.
            rival = expected * (1 + self.partners)
            if self.rivals > 1:
                rival += 0.6 * math.sqrt(rival)
            edge = count - rival
            total += rank / (1 + math.exp(-2.5 * edge))
        return total

    def win_chance(self, bid: int) -> float:
        if bid == 1:
            return 1.0
        clear = 1 - self.bids_below[bid]
        return max(clear, 0.0) ** (self.players - 1)


def _without(counts: list[int], card: int) -> list[int]:
    out = list(counts)
    out[card] -= 1
    return out


def _with(counts: list[int], card: int) -> list[int]:
    out = list(counts)
    out[card] += 1
    return out


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    phase = observation["phase"]
    model = _Model(observation)
    mine, unseen = model.mine, model.unseen
    if phase == "pass":
        # The card we miss least once it sits in a rival's hand.
        return max(legal, key=lambda c: model.value(_without(mine, c), _with(unseen, c)))
    if phase == "bid":
        targets = observation["targets"]

        def worth(card: int) -> float:
            kept = _without(mine, card)
            # Targets we do not take end up in other hands, among the unseen cards.
            elsewhere = list(unseen)
            for target in targets:
                elsewhere[target] += 1
            lost = model.value(kept, elsewhere)
            if card == 1:
                return lost  # the 1 wins, but the target must be given away
            win = max(model.value(_with(kept, t), _without(elsewhere, t)) for t in targets)
            return lost + model.win_chance(card) * (win - lost)

        return max(legal, key=worth)
    if phase == "choose":
        return max(legal, key=lambda t: model.value(_with(mine, t), unseen))
    # The 1 must give a target away: the lowest rank, to the side furthest behind.
    totals = observation["totals"]
    low = min(action["card"] for action in legal)
    options = [action for action in legal if action["card"] == low]
    return min(options, key=lambda action: (totals[action["to"]], action["to"]))
