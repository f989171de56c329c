"""Paiute's hand ranking (games/paiute/hands.py): every combination of the rule text,
wild cards checked against brute-force substitution, the order and the tie-breaks."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from games.cards import standard_deck
from games.paiute.hands import (
    FIVE_OF_A_KIND,
    FOUR_TWO,
    PAIUTE,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    THREE_THREE,
    combination,
)
from games.rng import Rng

# -- hand ranking -------------------------------------------------------------------------


def rank(cards: str, wild: str = "2", first: bool = True) -> list[int] | None:
    return combination(cards.split(), wild, first)


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("9C 9D 9H 9S 2C", [FIVE_OF_A_KIND, 9, 0, 0]),  # the text's example
        ("9C 9D 9H 2S 2C", [FIVE_OF_A_KIND, 9, 0, 0]),  # wilds stand for any card
        ("AC AD AH AS 2D", [FIVE_OF_A_KIND, 14, 0, 0]),
        ("AS KS QS JS TS", [ROYAL_FLUSH, 0, 0, 0]),
        ("AS KS QS JS 2H", [ROYAL_FLUSH, 0, 0, 0]),  # a wild of any suit fills the gap
        ("4S 5S 6S 7S 8S", [STRAIGHT_FLUSH, 8, 0, 0]),  # the text's example
        ("9H TH JH 2C 2D", [STRAIGHT_FLUSH, 13, 0, 0]),  # wilds placed as high as they go
        ("2C 3H 4H 5H 6H", [STRAIGHT_FLUSH, 7, 0, 0]),  # the wild goes on top, not under
        ("AH 2C 3H 4H 5H", [STRAIGHT_FLUSH, 5, 0, 0]),  # ace low: the wild is the 2
        ("AD 3D 4D 5D 6D", None),  # the gap of a 2 needs a wild
        ("AD 2D 3D 4D 5D", [STRAIGHT_FLUSH, 5, 0, 0]),  # the wild 2D may be itself
        ("QH KH AH 2C 3H", None),  # no wrap round the ace
        ("3H 5H 7H 9H JH", None),  # a plain flush
        ("5C 6D 7H 8S 9C", None),  # a plain straight
        ("8C 8D 8H 8S 4C", None),  # four of a kind is nothing in five cards
        ("8C 8D 8H 8S 4C 4D", [FOUR_TWO, 8, 0, 0]),  # the text's example
        ("8C 8D 8H 2S 4C 4D", [FOUR_TWO, 8, 0, 0]),
        ("8C 8D 2H 2S 4C 4D", [FOUR_TWO, 8, 0, 0]),  # the four as high as possible
        ("7C 7D 7H 3C 3D 3H", [THREE_THREE, 7, 0, 0]),  # the text's example
        ("7C 7D 7H 3C 3D 2H", [FOUR_TWO, 7, 0, 0]),  # a wild makes the better four/two
        ("QC QD TC TD 6C 6D", [PAIUTE, 12, 10, 6]),  # the text's example
        ("QC QD TC TD 6C 2D", [PAIUTE, 12, 10, 6]),
        ("QC QD TC 2S 6C 2D", [PAIUTE, 12, 10, 6]),  # two wilds complete two pairs
        ("QC QD TC TD 2S 2D", [FOUR_TWO, 12, 0, 0]),  # two pairs and two wilds: four/two
        ("QC QD TC TD 6C 5D", None),
        ("QC QD QH QS TC 9D", None),  # four and two odd cards
        ("9C 9D 9H 9S 2C KD", [FOUR_TWO, 9, 0, 0]),  # six cards count as six
    ],
)
def test_combinations(cards: str, expected: list[int] | None) -> None:
    assert rank(cards) == expected


RANK_VALUES = {rank: value for value, rank in enumerate("23456789TJQKA", start=2)}


def by_definition(cards: list[str], paiute_ok: bool) -> list[int] | None:
    """The text's definitions, read literally on cards without wilds."""
    values = sorted((RANK_VALUES[card[0]] for card in cards), reverse=True)
    shape = sorted(Counter(values).values())
    if len(cards) == 5:
        if shape == [5]:
            return [FIVE_OF_A_KIND, values[0], 0, 0]
        if len({card[1] for card in cards}) > 1 or shape != [1] * 5:
            return None
        if values == [14, 13, 12, 11, 10]:
            return [ROYAL_FLUSH, 0, 0, 0]
        if values[0] - values[4] == 4:
            return [STRAIGHT_FLUSH, values[0], 0, 0]
        return [STRAIGHT_FLUSH, 5, 0, 0] if values == [14, 5, 4, 3, 2] else None
    if shape == [2, 4]:
        return [FOUR_TWO, Counter(values).most_common(1)[0][0], 0, 0]
    if shape == [3, 3]:
        return [THREE_THREE, values[0], 0, 0]
    if shape == [2, 2, 2] and paiute_ok:
        return [PAIUTE, values[0], values[2], values[4]]
    return None


def best_with_wilds(cards: list[str], wild: str, paiute_ok: bool) -> list[int] | None:
    """Every way of letting each wild be any card of the deck; the best result."""
    naturals = [card for card in cards if card[0] != wild]
    found = [
        by_definition(naturals + list(stand_ins), paiute_ok)
        for stand_ins in product(standard_deck(), repeat=len(cards) - len(naturals))
    ]
    return max((f for f in found if f is not None), default=None)


def near_combination(rng: Rng) -> tuple[list[str], str]:
    """A random hand built around a combination, some cards then swapped for
    wilds or for any card: a wild rank and five or six distinct cards."""
    ranks = "A23456789TJQKA"  # the ace at both ends, for the runs
    wild = ranks[1 + rng.below(13)]
    if rng.below(3) == 0:
        suit, top = "CDHS"[rng.below(4)], 4 + rng.below(10)
        cards = [ranks[top - i] + suit for i in range(5)]
    else:
        held = []
        while len(held) < 2 + rng.below(2):
            rank = ranks[1 + rng.below(13)]
            if rank not in held:
                held.append(rank)
        cards = [rank + suit for rank in held for suit in "CDHS"]
        rng.shuffle(cards)
        cards = cards[: 5 + rng.below(2)]
    deck = [card for card in standard_deck() if card != wild + "C"]  # the turned-up card
    for _ in range(rng.below(3)):
        index = rng.below(len(cards))
        cards[index] = wild + "DHS"[rng.below(3)] if rng.below(2) else deck[rng.below(51)]
    return cards, wild


def test_wild_cards_give_the_best_combination_any_substitution_could() -> None:
    """The evaluator against trying every card for every wild."""
    rng = Rng(17)
    checked = Counter()
    for _ in range(600):
        cards, wild = near_combination(rng)
        wilds = sum(card[0] == wild for card in cards)
        if len(set(cards)) < len(cards) or wild + "C" in cards or wilds > 2:
            continue
        paiute_ok = bool(rng.below(2))
        expected = best_with_wilds(cards, wild, paiute_ok)
        assert combination(cards, wild, paiute_ok) == expected, (cards, wild)
        checked[expected[0] if expected else 0] += 1
    # The sample reaches every category, and hands that make nothing.
    assert set(checked) == {0, *range(PAIUTE, FIVE_OF_A_KIND + 1)}, checked


def test_wild_rank_follows_the_turned_up_card() -> None:
    assert rank("9C 9D 9H 9S 2C", wild="K") is None
    assert rank("9C 9D 9H 9S KC", wild="K") == [FIVE_OF_A_KIND, 9, 0, 0]


def test_paiute_only_on_the_first_turn() -> None:
    assert rank("QC QD TC TD 6C 6D", first=False) is None
    # The other six-card combinations may be called at any time.
    assert rank("7C 7D 7H 3C 3D 3H", first=False) == [THREE_THREE, 7, 0, 0]


def test_the_order_of_the_combinations() -> None:
    ladder = [
        rank("9C 9D 9H 9S 2C"),
        rank("AS KS QS JS TS"),
        rank("9H TH JH QH KH"),
        rank("8C 8D 8H 8S 4C 4D"),
        rank("7C 7D 7H 3C 3D 3H"),
        rank("QC QD TC TD 6C 6D"),
    ]
    assert ladder == sorted(ladder, reverse=True)
    assert len({tuple(c) for c in ladder}) == len(ladder)
    # The lowest combination of a category beats the highest of the one below.
    assert rank("3C 3D 3H 3S 2C") > rank("AS KS QS JS TS")
    assert rank("AH 2C 3H 4H 5H") > rank("AC AD AH AS KC KD")
    assert rank("3C 3D 3H 3S 4C 4D") > rank("AC AD AH KC KD KH")
    assert rank("3C 3D 3H 4C 4D 4H") > rank("AC AD KC KD QC QD")


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("9C 9D 9H 9S 2C", "8C 8D 8H 8S 2D"),  # five nines beat five eights
        ("5H 6H 7H 8H 9H", "4S 5S 6S 7S 8S"),  # the higher top card
        ("8C 8D 8H 8S 3C 3D", "7C 7D 7H 7S KC KD"),  # only the four counts
        ("KC KD KH 6C 6D 6H", "QC QD QH JC JD JH"),  # the higher three counts
        ("KC KD 5C 5D 4C 4D", "QC QD JC JD TC TD"),  # highest pair first
        ("QC QD TC TD 6C 6D", "QC QD 9C 9D 8C 8D"),  # then the middle pair
        ("QC QD TC TD 6C 6D", "QH QS TH TS 5C 5D"),  # then the lowest
    ],
)
def test_ties_are_broken_as_the_text_says(better: str, worse: str) -> None:
    assert rank(better) > rank(worse)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("AS KS QS JS TS", "AH KH QH JH TH"),  # competing royal flushes
        ("4S 5S 6S 7S 8S", "4D 5D 6D 7D 8D"),  # the same top card
        ("8C 8D 8H 8S 3C 3D", "8C 8D 8H 8S KC KD"),  # the pair does not count
        ("KC KD KH 6C 6D 6H", "KC KD KH 5C 5D 5H"),  # nor the lower three
        ("QC QD TC TD 6C 6D", "QH QS TH TS 6H 6S"),
    ],
)
def test_exact_ties(one: str, other: str) -> None:
    assert rank(one) == rank(other)
