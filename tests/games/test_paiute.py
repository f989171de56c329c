"""Paiute: every example of the rule text, called in play on forced decks and
ranked by the evaluator, with wild cards, ties, the order of turns after a
call, the reshuffle, and the options.

A forced deck reads: five rounds of one card each from the dealer's left (the
dealer of the first deal is seat 0, so seat 1 first and seat 0 last), then
the wild card, then the first card of the discard pile, then the stock.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from games import IllegalAction, InvalidOptions
from games.cards import standard_deck
from games.paiute import GAME, MAX_ROUNDS
from games.paiute_hands import (
    FIVE_OF_A_KIND,
    FOUR_TWO,
    PAIUTE,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    THREE_THREE,
    combination,
)
from games.rng import Rng, derive_seed

# Hands far from any combination, in ranks the other hands of the tests avoid.
JUNK = {
    0: ["3C", "5D", "7S", "JH", "5H"],
    1: ["3D", "5S", "7H", "JC", "7C"],
    2: ["3H", "5C", "7D", "JS", "JD"],
}


def new(hands: dict[int, list[str]], wild: str, up: str, stock: list[str], **options):
    players = len(hands)
    order = [*range(1, players), 0]
    deck = [hands[seat][i] for i in range(5) for seat in order]
    return GAME.new_match(players, options, seed=3, deck=[*deck, wild, up, *stock])


def turn(state, draw: str, action: list) -> None:
    (seat,) = state.to_act()
    state.apply({seat: draw})
    state.apply({seat: action})


def calls(state) -> list[dict]:
    return [e for e in state.events(None) if e["type"] == "call"]


def first_deal(state) -> dict:
    return state.session.hands[0]


# -- the examples of the text, called in play ----------------------------------------


def test_five_nines_called_by_the_dealer_beat_five_eights() -> None:
    hands = {1: ["8C", "8D", "8H", "8S", "KD"], 0: ["9C", "9D", "9H", "9S", "QD"]}
    state = new(hands, "2C", "5C", ["2D", "2H"])
    view = state.observation(1)
    assert view["wild_rank"] == "2" and view["pile"] == ["5C"]
    assert state.to_act() == (1,), "the player left of the dealer starts"
    state.apply({1: "stock"})
    assert ["call", "KD"] in state.legal_actions(1)
    state.apply({1: ["call", "KD"]})
    assert calls(state)[0]["combination"] == [FIVE_OF_A_KIND, 8, 0, 0]
    assert calls(state)[0]["cards"] == sorted(["8C", "8D", "8H", "8S", "2D"])
    # The dealer plays last and calls a better hand.
    assert state.to_act() == (0,)
    turn(state, "stock", ["call", "QD"])
    deal = first_deal(state)
    assert deal["winners"] == [0] and deal["pot"] == 2
    assert deal["deltas"] == [1, -1]
    # The next deal has begun, dealt by seat 1.
    assert state.session.dealer == 1 and state.to_act() == (0,)


def test_the_dealer_calling_first_wins_at_once() -> None:
    hands = {**JUNK, 0: ["9C", "9D", "9H", "9S", "QD"]}
    state = new(hands, "2C", "4C", ["KC", "KH", "2D"])
    turn(state, "stock", ["discard", "KC"])
    turn(state, "stock", ["discard", "KH"])
    turn(state, "stock", ["call", "QD"])
    deal = first_deal(state)
    assert deal["winners"] == [0] and deal["pot"] == 3
    assert [e["seat"] for e in state.events(None) if e["type"] == "draw"][:3] == [1, 2, 0]


def test_competing_royal_flushes_tie_and_split_the_pot() -> None:
    hands = {
        1: ["AH", "KH", "QH", "JH", "4C"],
        2: ["AS", "KS", "QS", "JS", "4D"],
        0: ["3C", "5D", "7S", "9H", "5H"],
    }
    state = new(hands, "2C", "6C", ["TH", "TS", "KC"])
    turn(state, "stock", ["call", "4C"])
    turn(state, "stock", ["call", "4D"])  # as good as the call before it
    assert [c["combination"] for c in calls(state)] == [[ROYAL_FLUSH, 0, 0, 0]] * 2
    turn(state, "stock", ["discard", "KC"])
    deal = first_deal(state)
    assert deal["winners"] == [1, 2]
    # Three chips split two ways: one each, the odd chip stays for the next deal.
    assert deal["deltas"] == [-1, 0, 0]
    assert state.pot.chips == 1 + 3


def test_a_higher_straight_flush_wins_and_a_lower_one_cannot_call() -> None:
    hands = {
        1: ["4S", "5S", "6S", "7S", "KC"],
        2: ["5H", "6H", "7H", "8H", "QC"],
        0: ["4D", "5D", "6D", "7D", "KD"],
    }
    state = new(hands, "2C", "3C", ["8S", "9H", "8D"])
    turn(state, "stock", ["call", "KC"])
    assert calls(state)[0]["combination"] == [STRAIGHT_FLUSH, 8, 0, 0]
    turn(state, "stock", ["call", "QC"])
    assert calls(state)[1]["combination"] == [STRAIGHT_FLUSH, 9, 0, 0]
    # The dealer's 4-8 of diamonds ties the first call but not the best one.
    state.apply({0: "stock"})
    assert all(action[0] == "discard" for action in state.legal_actions(0))
    state.apply({0: ["discard", "KD"]})
    assert first_deal(state)["winners"] == [2]


def test_four_two_is_called_keeping_all_six_cards() -> None:
    hands = {1: ["8C", "8D", "8H", "8S", "4C"], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["4D", "QH"])
    state.apply({1: "stock"})
    legal = state.legal_actions(1)
    assert ["call"] in legal
    # Five of the six make nothing (no wild): calling with a discard is refused.
    assert not any(action[0] == "call" and len(action) == 2 for action in legal)
    state.apply({1: ["call"]})
    assert calls(state)[0]["combination"] == [FOUR_TWO, 8, 0, 0]
    view = state.observation(0)
    assert view["hand_sizes"] == [5, 6]
    assert view["pile"] == ["KH"], "the caller kept the sixth card"
    assert view["known"][1] == sorted(["8C", "8D", "8H", "8S", "4C", "4D"])
    turn(state, "stock", ["discard", "QH"])
    assert first_deal(state)["winners"] == [1]


def test_four_two_beats_three_three() -> None:
    hands = {1: ["7C", "7D", "7H", "3C", "3D"], 0: ["9C", "9D", "9H", "9S", "5C"]}
    state = new(hands, "2C", "KH", ["3H", "5D"])
    turn(state, "stock", ["call"])
    assert calls(state)[0]["combination"] == [THREE_THREE, 7, 0, 0]
    turn(state, "stock", ["call"])
    assert calls(state)[1]["combination"] == [FOUR_TWO, 9, 0, 0]
    assert first_deal(state)["winners"] == [0]


def test_paiute_may_be_called_on_the_first_turn() -> None:
    hands = {1: ["QC", "QD", "TC", "TD", "6C"], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["6D", "KS"])
    state.apply({1: "stock"})
    assert ["call"] in state.legal_actions(1)
    state.apply({1: ["call"]})
    assert calls(state)[0]["combination"] == [PAIUTE, 12, 10, 6]
    assert calls(state)[0]["name"] == "paiute"


def test_paiute_may_not_be_called_after_the_first_turn() -> None:
    hands = {1: ["QC", "QD", "TC", "TD", "6C"], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["AS", "KS", "6D"])
    turn(state, "stock", ["discard", "AS"])
    turn(state, "stock", ["discard", "KS"])
    state.apply({1: "stock"})  # the 6D makes three pairs, one turn too late
    assert state.observation(1)["hand"] == sorted(["QC", "QD", "TC", "TD", "6C", "6D"])
    assert all(action[0] == "discard" for action in state.legal_actions(1))
    with pytest.raises(IllegalAction):
        state.apply({1: ["call"]})


def test_plain_flushes_and_straights_cannot_be_called() -> None:
    hands = {1: ["3H", "5H", "7H", "9H", "KC"], 0: ["4C", "5D", "6H", "7S", "KD"]}
    state = new(hands, "2C", "KH", ["JH", "8C"])
    state.apply({1: "stock"})
    assert all(action[0] == "discard" for action in state.legal_actions(1))
    state.apply({1: ["discard", "KC"]})
    state.apply({0: "stock"})
    assert all(action[0] == "discard" for action in state.legal_actions(0))


# -- turns, the discard pile and the stock ------------------------------------------------


def test_after_a_call_play_goes_on_to_the_dealer_only() -> None:
    hands = {1: JUNK[1], 2: ["8C", "8D", "8H", "8S", "KD"], 0: JUNK[0]}
    state = new(hands, "2C", "4D", ["QS", "2D", "QH"])
    turn(state, "stock", ["discard", "QS"])
    turn(state, "stock", ["call", "KD"])
    # The dealer has one more turn; seat 1, who played before the call, does not.
    assert state.to_act() == (0,)
    turn(state, "stock", ["discard", "QH"])
    assert first_deal(state)["winners"] == [2]


def test_the_top_of_the_pile_must_change() -> None:
    hands = {1: JUNK[1], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["QS"])
    state.apply({1: "pile"})
    assert state.observation(0)["known"][1] == ["KH"], "a card taken from the pile is public"
    assert ["discard", "KH"] not in state.legal_actions(1)
    record = state.to_json()
    with pytest.raises(IllegalAction) as refused:
        state.apply({1: ["discard", "KH"]})
    assert state.to_json() == record
    assert "QS" not in str(refused.value)
    state.apply({1: ["discard", "JC"]})
    assert state.observation(0)["pile"] == ["JC"]
    assert state.observation(0)["known"][1] == ["KH"]


def test_cards_drawn_from_the_stock_stay_secret() -> None:
    hands = {1: JUNK[1], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["QS"])
    state.apply({1: "stock"})
    mine = [e for e in state.events(1) if e["type"] == "draw"]
    theirs = [e for e in state.events(0) if e["type"] == "draw"]
    assert mine[0]["card"] == "QS" and "card" not in theirs[0]
    assert "hand" not in state.observation(None)
    assert "QS" not in str(state.observation(0))


def test_an_empty_stock_is_rebuilt_from_the_pile_under_its_top_card() -> None:
    state = GAME.new_match(2, seed=8)
    stock = state.observation(None)["stock"]
    assert stock == 52 - 10 - 2
    for _ in range(stock):
        (seat,) = state.to_act()
        before = set(state.observation(seat)["hand"])
        state.apply({seat: "stock"})
        (drawn,) = set(state.observation(seat)["hand"]) - before
        state.apply({seat: ["discard", drawn]})  # a card drawn from the stock may go straight back
    view = state.observation(None)
    assert view["stock"] == 0 and len(view["pile"]) == 41
    top = view["pile"][-1]
    buried = Counter(view["pile"][:-1])
    (seat,) = state.to_act()
    state.apply({seat: "stock"})
    view = state.observation(seat)
    assert view["pile"] == [top]
    assert view["stock"] == 39
    reshuffle = next(e for e in state.events(None) if e["type"] == "reshuffle")
    assert reshuffle == {"type": "reshuffle", "stock": 40, "top": top}
    (drawn,) = [e for e in state.events(seat) if e["type"] == "draw"][-1:]
    assert buried[drawn["card"]] == 1


def test_a_deal_without_a_call_is_void_and_the_pot_carries_over() -> None:
    state = GAME.new_match(2, seed=4)
    while state.session.hand == 0:
        (seat,) = state.to_act()
        legal = state.legal_actions(seat)
        state.apply({seat: next(a for a in legal if a == "stock" or a[0] == "discard")})
    assert first_deal(state)["winners"] == []
    assert any(e["type"] == "void" and e["rounds"] == MAX_ROUNDS for e in state.events(None))
    assert state.pot.chips == 2 + 2


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


# -- options, conservation, policies ---------------------------------------------------------


def test_ante_zero_plays_for_deals_won() -> None:
    hands = {1: ["8C", "8D", "8H", "8S", "4C"], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["4D", "QH"], ante=0)
    turn(state, "stock", ["call"])
    turn(state, "stock", ["discard", "QH"])
    assert state.chips == [0, 0] and state.pot.chips == 0
    assert state.wins == [0, 1]


def test_ante_is_paid_every_deal() -> None:
    state = GAME.new_match(3, {"ante": 5}, seed=1)
    assert state.pot.chips == 15 and state.chips == [-5, -5, -5]


@pytest.mark.parametrize(
    "options",
    [{"ante": -1}, {"ante": 1001}, {"ante": "1"}, {"rotations": 0}, {"rotations": 51}, {"x": 1}],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, options)


@pytest.mark.parametrize("players", [1, 6])
def test_two_to_five_players(players: int) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(players)


def test_many_random_matches_conserve_cards_and_chips_and_end() -> None:
    deck = sorted(standard_deck())
    for seed in range(2000):
        players = 2 if seed % 10 else 2 + seed // 10 % 4
        state = GAME.new_match(players, seed=seed)
        rng = Rng(derive_seed(seed, "test"))
        actions = 0
        while not state.is_over():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            state.apply({seat: legal[rng.below(len(legal))]})
            actions += 1
            assert actions <= GAME.max_actions
            assert sum(state.chips) + state.pot.chips == 0
        cards = [*state.shoe.cards(), *state.shoe.discards, state.wild_card]
        cards += [card for hand in state.hands for card in hand]
        assert sorted(cards) == deck
        assert state.conserved() == {"chips": 0, "cards": 52}
        assert len(state.session.hands) == players


def test_heuristic_calls_its_best_hand() -> None:
    hands = {1: ["9C", "9D", "9H", "9S", "4C"], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["2D"])
    heuristic = GAME.policies["heuristic"]
    state.apply({1: "stock"})
    legal = state.legal_actions(1)
    # Four/two keeping six, or five nines dropping the 4: five of a kind is better.
    assert ["call"] in legal and ["call", "4C"] in legal
    assert heuristic(state.observation(1), legal, Rng(1)) == ["call", "4C"]


def test_perturbation_keeps_public_cards_and_shuffles_the_rest() -> None:
    hands = {1: JUNK[1], 0: JUNK[0]}
    state = new(hands, "2C", "KH", ["QS", "9D"])
    state.apply({1: "pile"})
    state.apply({1: ["discard", "JC"]})
    moved = False
    for i in range(20):
        other = state.perturb_hidden(0, Rng(i))
        assert other.observation(0) == state.observation(0)
        assert "KH" in other.hands[1], "a card taken from the pile stays where all saw it"
        assert other.hands[0] == state.hands[0]
        assert other.shoe.discards == state.shoe.discards
        assert Counter(other.hands[1] + other.shoe.cards()) == Counter(
            state.hands[1] + state.shoe.cards()
        )
        moved = moved or other.hands[1] != state.hands[1]
    assert moved
