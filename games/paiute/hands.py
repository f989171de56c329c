"""Paiute's winning combinations, with wild cards (rules in docs/rules/paiute.md).

A called hand of five cards can only be a five-card combination (five of a
kind, royal flush, straight flush); a called hand of six only a six-card one
(four/two, three/three, paiute). A combination compares as a list
``[category, key1, key2, key3]``: higher is better, and two equal lists tie
exactly (the pot is split).

Wild cards stand for any card at all, even one already in the hand, so the
evaluators reason on the natural (non-wild) cards and let the wilds fill the
gaps instead of trying every substitution. Ranks count ace high (14), except
as the bottom of the A-2-3-4-5 straight flush.
"""

from __future__ import annotations

from functools import lru_cache

FIVE_OF_A_KIND = 6
ROYAL_FLUSH = 5
STRAIGHT_FLUSH = 4
FOUR_TWO = 3
THREE_THREE = 2
PAIUTE = 1

NAMES = {
    FIVE_OF_A_KIND: "five of a kind",
    ROYAL_FLUSH: "royal flush",
    STRAIGHT_FLUSH: "straight flush",
    FOUR_TWO: "four/two",
    THREE_THREE: "three/three",
    PAIUTE: "paiute",
}

VALUE = {rank: value for value, rank in enumerate("23456789TJQKA", start=2)}
ACE = 14
FIVE_HIGH = 5

Combination = tuple[int, int, int, int]


def five_card(naturals: list[str]) -> Combination | None:
    """The combination of a five-card hand whose non-wild cards are ``naturals``."""
    values = [VALUE[card[0]] for card in naturals]
    distinct = set(values)
    if len(distinct) <= 1:
        # Every natural card shares one rank and the wilds join it. (Five
        # wilds cannot happen: the turned-up card is the fourth of its rank.)
        return (FIVE_OF_A_KIND, values[0] if values else ACE, 0, 0)
    if len(distinct) < len(values) or len({card[1] for card in naturals}) > 1:
        return None
    # The highest top card whose run of five holds every natural card; the
    # ace may also sit below the two, in A-2-3-4-5.
    low, high = min(distinct), max(distinct)
    for top in range(ACE, FIVE_HIGH, -1):
        if low >= top - 4 and high <= top:
            return (ROYAL_FLUSH, 0, 0, 0) if top == ACE else (STRAIGHT_FLUSH, top, 0, 0)
    if max(1 if v == ACE else v for v in distinct) <= FIVE_HIGH:
        return (STRAIGHT_FLUSH, FIVE_HIGH, 0, 0)
    return None


def _best_unused(used: set[int], count: int) -> list[int]:
    """The ``count`` highest ranks not in ``used``: what wild pairs should be."""
    out = []
    for value in range(ACE, 1, -1):
        if len(out) == count:
            break
        if value not in used:
            out.append(value)
    return out


def six_card(naturals: list[str], wilds: int, paiute_ok: bool) -> Combination | None:
    """The best six-card combination of six cards (``wilds`` of them wild), or None."""
    counts: dict[int, int] = {}
    for card in naturals:
        value = VALUE[card[0]]
        counts[value] = counts.get(value, 0) + 1
    ranks = sorted(counts, reverse=True)
    if len(ranks) > 3:
        return None
    if len(ranks) <= 2:
        # Four/two, with the four as high as the wilds allow.
        fours = [r for r in ranks if all(counts[o] <= 2 for o in ranks if o != r)]
        if len(ranks) < 2 and wilds >= 4:
            fours += _best_unused(set(ranks), 1)  # the wilds alone make the four
        if fours:
            return (FOUR_TWO, max(fours), 0, 0)
    if len(ranks) == 2 and max(counts.values()) <= 3:
        return (THREE_THREE, ranks[0], 0, 0)
    if paiute_ok and max(counts.values(), default=0) <= 2:
        pairs = sorted(ranks + _best_unused(set(ranks), 3 - len(ranks)), reverse=True)
        return (PAIUTE, pairs[0], pairs[1], pairs[2])
    return None


@lru_cache(maxsize=1 << 16)
def _evaluate(cards: tuple[str, ...], wild: str, paiute_ok: bool) -> Combination | None:
    naturals = [card for card in cards if card[0] != wild]
    if len(cards) == 5:
        return five_card(naturals)
    if len(cards) == 6:
        return six_card(naturals, len(cards) - len(naturals), paiute_ok)
    return None


def combination(cards: list[str], wild: str, paiute_ok: bool) -> list[int] | None:
    """The combination ``cards`` make when called: five cards make a five-card
    combination, six cards a six-card one; None when they make nothing.

    ``wild`` is the wild rank; ``paiute_ok`` whether three pairs may be called.
    """
    found = _evaluate(tuple(sorted(cards)), wild, paiute_ok)
    return list(found) if found is not None else None


def could_call(cards: list[str], wild: str) -> tuple[bool, bool]:
    """A cheap necessary test on six cards: (some five of them might make a
    combination, all six might). Saves evaluating every discard of a hand that
    is nowhere near a combination.
    """
    ranks = set()
    suits = set()
    for card in cards:
        if card[0] != wild:
            ranks.add(card[0])
            suits.add(card[1])
    # Dropping one card removes at most one rank and one suit.
    return len(ranks) <= 2 or len(suits) <= 2, len(ranks) <= 3


def describe(combination: list[int]) -> str:
    return NAMES[combination[0]]
