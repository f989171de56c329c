"""Paiute: every example of the rule text called in play on forced decks, with
wild cards, ties, the order of turns after a call, the reshuffle, and the
options. The evaluator's ranking is tested in test_hands.py.

A forced deck reads: five rounds of one card each from the dealer's left (the
dealer of the first deal is seat 0, so seat 1 first and seat 0 last), then
the wild card, then the first card of the discard pile, then the stock.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games import IllegalAction, InvalidOptions
from games.cards import standard_deck
from games.paiute.engine import GAME, MAX_ROUNDS
from games.paiute.hands import (
    FIVE_OF_A_KIND,
    FOUR_TWO,
    PAIUTE,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    THREE_THREE,
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
