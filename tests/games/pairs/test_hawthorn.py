"""Hawthorn: forced deals through the tricky rules (docs/rules/pairs-hawthorn.md)."""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.hawthorn import GAME
from games.rng import Rng


def forced(hands: dict[int, list[int]], dealer: int, rest: list[int]) -> list[int]:
    """The deck that deals ``hands`` one card at a time from the dealer's left."""
    players = len(hands)
    order = [(dealer + step) % players for step in range(1, players + 1)]
    deck = [hands[seat][i] for i in range(5) for seat in order]
    return deck + rest


HANDS = {0: [2, 5, 7, 9, 10], 1: [3, 4, 6, 8, 10], 2: [3, 6, 8, 9, 9]}


def new_game(rest: list[int], rotations: int = 1):
    return GAME.new_match(3, {"rotations": rotations}, seed=5, deck=forced(HANDS, 0, rest))


def test_deal_is_private_and_starting_cards_are_simultaneous() -> None:
    state = new_game([])
    assert state.to_act() == (0, 1, 2)
    for seat, hand in HANDS.items():
        assert state.observation(seat)["hand"] == hand
        assert state.legal_actions(seat) == sorted(set(hand))
    assert "hand" not in state.observation(None)
    # Seat 1's log shows its own cards and only the size of the others'.
    deals = [e for e in state.events(1) if e["type"] == "deal"]
    assert [e.get("cards") for e in deals if e["seat"] != 1] == [None, None]
    assert [e["cards"] for e in deals if e["seat"] == 1] == [HANDS[1]]
    assert state.pot.chips == 3 and state.chips == [-1, -1, -1]


def test_tie_for_low_is_broken_from_the_deck_and_pairs_are_replaced() -> None:
    state = new_game([3, 8, 5])
    state.apply({0: 7, 1: 3, 2: 3})
    # Seat 1 is dealt first (left of the dealer): its 3 pairs and is replaced by an 8.
    assert state.stacks == [[7], [3, 8], [3, 5]]
    assert state.button == 2 and state.to_act() == (2,)
    assert state.round_kind == "deck"
    assert state.legal_actions(2) == ["hit", "fold"]
    breaks = [e for e in state.events(None) if e["type"] == "tiebreak"]
    assert [(e["seat"], e["card"], e["discarded"]) for e in breaks] == [
        (1, 3, True),
        (1, 8, False),
        (2, 5, False),
    ]


def test_fold_pays_the_lowest_card_in_play_and_a_pair_pays_its_rank() -> None:
    state = new_game([3, 8, 5, 7, 8])
    state.apply({0: 7, 1: 3, 2: 3})
    state.apply({2: "hit"})  # a 7: stack 3-5-7, no pair
    assert state.stacks[2] == [3, 5, 7]
    state.apply({0: "fold"})  # lowest card in play is a 3
    assert state.chips[0] == -1 - 3
    assert state.alive == [False, True, True]
    state.apply({1: "hit"})  # an 8 pairs seat 1's 8: pays 8 and is out
    # Seat 2 is the last one in and takes every coin of the pot.
    first = state.session.hands[0]
    assert first["deltas"] == [-4, -9, 13]
    assert first["winner"] == 2 and first["pot"] == 14
    # The next game of the session has started: fresh antes, the deal moves left.
    assert state.session.dealer == 1 and state.pot.chips == 3
    assert state.chips == [-5, -10, 12]


def test_rounds_alternate_at_the_button_and_skip_its_empty_seat() -> None:
    state = new_game([3, 8, 5, 10, 4, 2])
    state.apply({0: 7, 1: 3, 2: 3})
    state.apply({2: "hit"})
    state.apply({0: "hit"})
    state.apply({1: "hit"})
    assert state.stacks == [[7, 4], [3, 8, 2], [3, 5, 10]]
    # Back at the button: a hand round, played from the hand.
    assert state.round_kind == "hand" and state.to_act() == (2,)
    assert state.legal_actions(2) == [6, 8, 9, "fold"]
    state.apply({2: "fold"})  # the button leaves; the lowest card in play is a 2
    assert state.chips[2] == -1 - 2
    assert state.to_act() == (0,) and state.round_kind == "hand"
    state.apply({0: 5})
    state.apply({1: 6})
    # The turn passes the button's empty seat: a new deck round led by seat 0.
    assert state.round_kind == "deck" and state.to_act() == (0,)
    assert state.stacks[:2] == [[7, 4, 5], [3, 8, 2, 6]]


def test_playing_a_pairing_card_from_the_hand_costs_its_rank() -> None:
    state = new_game([3, 8, 5, 10, 4, 2])
    state.apply({0: 7, 1: 3, 2: 3})
    state.apply({2: "hit"})
    state.apply({0: "hit"})
    state.apply({1: "hit"})
    state.apply({2: 6})
    state.apply({0: 2})
    state.apply({1: 8})  # seat 1 already shows an 8
    assert state.alive == [True, False, True]
    assert state.chips[1] == -1 - 8


def test_an_empty_hand_in_a_hand_round_can_only_fold() -> None:
    state = new_game([3, 8, 5, 10, 4, 2])
    state.apply({0: 7, 1: 3, 2: 3})
    for seat in (2, 0, 1):
        state.apply({seat: "hit"})
    state.hands[2] = []
    state._legal_cache = {}
    assert state.legal_actions(2) == ["fold"]
    with pytest.raises(IllegalAction) as refused:
        state.apply({2: 6})
    # The refusal names the action tried, never a hidden card.
    assert "8" not in str(refused.value) and "9" not in str(refused.value)


def test_session_rotates_the_deal_and_conserves_chips() -> None:
    state = GAME.new_match(3, {"rotations": 2}, seed=11)
    rng = Rng(3)
    dealers = []
    while not state.is_over():
        if not dealers or dealers[-1][0] != state.session.hand:
            dealers.append((state.session.hand, state.session.dealer))
        moves = {
            s: GAME.policies["random"]({}, state.legal_actions(s), rng) for s in state.to_act()
        }
        state.apply(moves)
        assert sum(state.chips) + state.pot.chips == 0
    assert [dealer for _, dealer in dealers] == [0, 1, 2, 0, 1, 2]
    assert len(state.session.hands) == 6
    scores = [seat["score"] for seat in state.result()["seats"]]
    assert scores == state.chips


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 51}, {"rotations": "2"}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


def test_heuristic_hits_safely_and_plays_unpaired_cards() -> None:
    state = new_game([3, 8, 5, 10, 4, 2])
    state.apply({0: 7, 1: 3, 2: 3})
    heuristic = GAME.policies["heuristic"]
    assert heuristic(state.observation(2), state.legal_actions(2), Rng(1)) == "hit"
    for seat in (2, 0, 1):
        state.apply({seat: "hit"})
    # Seat 2 shows 3-5-10 and holds 6-8-9-9: the lowest card it can play safely is a 6.
    assert heuristic(state.observation(2), state.legal_actions(2), Rng(1)) == 6


def test_the_price_of_folding_rises_and_falls_with_the_cards_in_play() -> None:
    state = new_game([3, 8, 5, 10, 4, 2, 7, 8])
    state.apply({0: 7, 1: 3, 2: 3})
    for seat in (2, 0, 1):
        state.apply({seat: "hit"})
    # Stacks 7-4, 3-8-2 and 3-5-10: seat 1's 2 is the lowest card in play.
    assert state.observation(0)["fold_price"] == 2
    state.apply({2: 6})
    state.apply({0: 5})
    state.apply({1: "fold"})  # pays its own 2, and the 2 leaves play with it
    assert state.chips[1] == -1 - 2
    assert state.observation(2)["fold_price"] == 3
    # A deck round (seat 2 hits a 7, seat 0 an 8), then a hand round.
    state.apply({2: "hit"})
    state.apply({0: "hit"})
    assert state.round_kind == "hand"
    state.apply({2: 8})
    assert state.fold_price() == 3
    state.apply({0: 2})  # playing a low card makes folding cheaper for everyone
    assert state.stacks[0] == [7, 4, 5, 8, 2]
    assert state.observation(2)["fold_price"] == 2
    state.apply({2: "fold"})
    # Seat 0 is the last one in: the three antes and both fold payments.
    first = state.session.hands[0]
    assert first["pot"] == 3 + 2 + 2
    assert first["deltas"] == [-1 + 7, -1 - 2, -1 - 2]
