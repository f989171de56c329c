"""Paiute's winning combinations, with wild cards (rules in docs/rules/paiute.md).

A combination is compared as a tuple ``(category, key1, key2, key3)``: higher
is better, and two equal tuples tie exactly (the pot is split). Ranks count
ace high (14) except as the low end of the A-2-3-4-5 straight flush.

Wild cards stand for any card at all, even one already in the hand, so the
evaluators below reason on the natural (non-wild) cards and count how many
wilds fill the gaps instead of trying every substitution.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from games.cards import rank_of, suit_of

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

VALUE = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
ACE = 14

Combination = tuple[int, int, int, int]


def _five_card(naturals: list[str], wilds: int) -> Combination | None:
    """The best five-card combination of exactly five cards, or None."""
    values = [VALUE[rank_of(card)] for card in naturals]
    best: Combination | None = None
    if len(set(values)) <= 1 and values:
        best = (FIVE_OF_A_KIND, values[0], 0, 0)
    if best is None and len(set(map(suit_of, naturals))) <= 1 and len(set(values)) == len(values):
        # Highest top card whose five-rank window holds every natural card.
        for top in range(ACE, 4, -1):
            window = set(range(top - 4, top + 1))
            if top == 5:
                window.add(ACE)  # the ace plays low only in A-2-3-4-5
            if all(v in window for v in values):
                best = (ROYAL_FLUSH, 0, 0, 0) if top == ACE else (STRAIGHT_FLUSH, top, 0, 0)
                break
    return best


def _best_other(used: set[int], count: int) -> list[int]:
    """The ``count`` highest ranks not in ``used`` (what wild pairs/trips should be)."""
    out = []
    for value in range(ACE, 1, -1):
        if len(out) == count:
            break
        if value not in used:
            out.append(value)
    return out


def _six_card(naturals: list[str], paiute_ok: bool) -> Combination | None:
    """The best six-card combination (four/two, three/three, paiute), or None."""
    counts = Counter(VALUE[rank_of(card)] for card in naturals)
    ranks = sorted(counts, reverse=True)
    if len(ranks) > 3:
        return None
    # Four/two: the four rank as high as possible.
    fours: list[int] = []
    if len(ranks) == 2:
        a, b = ranks
        if counts[a] <= 4 and counts[b] <= 2:
            fours.append(a)
        if counts[b] <= 4 and counts[a] <= 2:
            fours.append(b)
    elif len(ranks) == 1:
        (r,) = ranks
        if counts[r] <= 4:
            fours.append(r)
        if counts[r] <= 2:
            fours.extend(_best_other({r}, 1))
    if fours:
        return (FOUR_TWO, max(fours), 0, 0)
    if len(ranks) == 2 and max(counts.values()) <= 3:
        return (THREE_THREE, ranks[0], 0, 0)
    if paiute_ok and max(counts.values(), default=0) <= 2:
        pairs = sorted(ranks + _best_other(set(ranks), 3 - len(ranks)), reverse=True)
        return (PAIUTE, pairs[0], pairs[1], pairs[2])
    return None


@lru_cache(maxsize=65536)
def _best(cards: tuple[str, ...], wild: str, paiute_ok: bool) -> Combination | None:
    naturals = [card for card in cards if rank_of(card) != wild]
    wilds = len(cards) - len(naturals)
    best: Combination | None = None
    if len(cards) == 5:
        return _five_card(naturals, wilds)
    if len(cards) == 6:
        best = _six_card(naturals, paiute_ok)
        for skip in range(6):
            rest = cards[:skip] + cards[skip + 1 :]
            sub = _best(rest, wild, paiute_ok)
            if sub is not None and (best is None or sub > best):
                best = sub
    return best


def best_combination(cards: list[str], wild: str, paiute_ok: bool) -> Combination | None:
    """The best combination in five or six called cards (``wild`` = the wild rank)."""
    return _best(tuple(sorted(cards)), wild, paiute_ok)


def describe(combination: Combination) -> str:
    return NAMES[combination[0]]
