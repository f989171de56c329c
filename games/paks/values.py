"""Paks card values: capturing power, pak value and hand scoring (docs/rules/paks.md).

Three different scales apply to the same card:
- ``capture_value(cards)``: what a play from the hand is worth when it captures
  a board card or steals paks; low cards (2 to 5) may pair up into two-digit
  numbers (5-2 = 52).
- ``pak_value(cards)``: what a pak on the table is worth as a target for a
  steal; every card counts alone.
- ``points(cards)``: what the cards score at the end of a hand.
"""

from __future__ import annotations

from games.cards import RANKS, SUITS

# A single card's value for capturing (and a pak's value, card by card).
SINGLE = {r + s: v for s in SUITS for r, v in zip(RANKS, [20, *range(2, 11), 10, 10, 10])}
# Scoring at the end of the hand: aces 20, kings to eights 10, sevens and below 5.
POINTS = {r + s: v for s in SUITS for r, v in zip(RANKS, [20] + [5] * 6 + [10] * 6)}
# Low cards, the ones that form two-digit combinations: their rank, else 0.
LOW = {r + s: (RANKS.index(r) + 1 if r in "2345" else 0) for s in SUITS for r in RANKS}
_ORDER = {r + s: (i, j) for i, s in enumerate(SUITS) for j, r in enumerate(RANKS)}


def card_key(card: str) -> tuple[int, int]:
    """Sort key: by suit (CDHS), then rank ace to king."""
    return _ORDER[card]


def pak_order(cards: list[str]) -> list[str]:
    """A pak's cards as the table shows them: highest single value first."""
    return sorted(cards, key=lambda c: (-SINGLE[c], -_ORDER[c][1]))


def capture_value(cards: list[str]) -> int:
    """The best value a play of ``cards`` (one suit) can claim.

    Low cards pair up into two-digit numbers, higher digit first (5-2 = 52,
    5-5 = 55); the rest count alone. A pair ``hi-lo`` is worth ``hi + lo + 9*hi``
    more than nothing, so the best grouping makes as many pairs as it can and
    puts the highest low cards in the tens: the value is the plain sum plus
    nine times the top ``n // 2`` of the ``n`` low ranks (10-5-2 = 17 + 45 = 62).
    """
    total = 0
    lows = []
    for card in cards:
        total += SINGLE[card]
        low = LOW[card]
        if low:
            lows.append(low)
    if len(lows) >= 2:
        lows.sort(reverse=True)
        total += 9 * sum(lows[: len(lows) // 2])
    return total


def suit_powers(hand: list[str]) -> dict[str, int]:
    """``capture_value`` of all of a hand's cards of each suit it holds, in one pass."""
    totals: dict[str, int] = {}
    lows: dict[str, list[int]] = {}
    for card in hand:
        suit = card[1]
        totals[suit] = totals.get(suit, 0) + SINGLE[card]
        low = LOW[card]
        if low:
            lows.setdefault(suit, []).append(low)
    for suit, ranks in lows.items():
        if len(ranks) >= 2:
            ranks.sort(reverse=True)
            totals[suit] += 9 * sum(ranks[: len(ranks) // 2])
    return totals


def pak_value(cards: list[str]) -> int:
    """A pak's value as a target for stealing: every card counts alone (A♣ 5♣ 2♣ = 27)."""
    return sum(SINGLE[card] for card in cards)


def points(cards: list[str]) -> int:
    """End-of-hand score of ``cards``."""
    return sum(POINTS[card] for card in cards)
