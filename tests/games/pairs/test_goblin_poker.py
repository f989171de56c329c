"""Goblin Poker: forced deals through the tricky rules (docs/rules/pairs-goblin-poker.md).

The pitched cards are shuffled before they are dealt back; the tests make
every pitch of a round the same rank, or make every pitched card pair its
receiver, so the outcome does not depend on that shuffle.
"""

from __future__ import annotations

import pytest

from games import InvalidOptions
from games.pairs.goblin_poker import GAME, stack_key
from games.rng import Rng


def forced(hands: dict[int, list[int]], dealer: int, rest: list[int]) -> list[int]:
    players = len(hands)
    order = [(dealer + step) % players for step in range(1, players + 1)]
    return [hands[seat][i] for i in range(6) for seat in order] + rest


def test_lowest_stack_compares_card_by_card_and_more_cards_are_lower() -> None:
    assert stack_key([6, 3, 2]) < stack_key([3, 2])
    assert stack_key([2, 9]) < stack_key([3])
    assert stack_key([2, 3]) < stack_key([2, 4, 9])
    assert stack_key([5, 1]) == stack_key([1, 5])


HANDS = {0: [1, 7, 9, 9, 10, 10], 1: [2, 4, 8, 8, 9, 10], 2: [3, 5, 6, 9, 9, 10]}


def test_a_round_of_pitching_folding_and_eliminations_in_sequence() -> None:
    state = GAME.new_match(3, seed=3, deck=forced(HANDS, 0, []))
    assert state.to_act() == (0, 1, 2)
    state.apply({0: 7, 1: 2, 2: 5})
    # Seat 1 shows the lowest card: it acts first, then play goes left.
    assert state.order == [1, 2, 0] and state.to_act() == (1,)
    for seat in (1, 2, 0):
        state.apply({seat: 9})
    # Everyone pitched a 9, so everyone gets one back, lowest stack first.
    received = [e["seat"] for e in state.events(None) if e["type"] == "receive"]
    assert received == [1, 2, 0]
    assert state.stacks == [[7, 9], [2, 9], [5, 9]]
    assert state.round == 2 and state.order == [1, 2, 0]
    state.apply({1: "fold"})  # the smallest card in play is seat 1's own 2
    assert state.chips[1] == -1 - 2
    state.apply({2: 10})
    state.apply({0: 10})
    assert state.stacks == [[7, 9, 10], [], [5, 9, 10]]
    # Round 3: seat 2 is lowest (5 beats 7) and gets the first pitched card.
    assert state.order == [2, 0]
    state.apply({2: 9})
    state.apply({0: 9})
    # Both pitched cards pair whoever gets them: seat 2 pairs first, pays 9,
    # and seat 0 wins before a card reaches it.
    assert state.session.hands[0]["deltas"] == [13, -3, -10]
    assert [e["seat"] for e in state.events(None)[-12:] if e["type"] == "receive"][-1] == 2


def test_pitches_are_secret_until_dealt_back() -> None:
    state = GAME.new_match(3, seed=3, deck=forced(HANDS, 0, []))
    state.apply({0: 7, 1: 2, 2: 5})
    state.apply({1: 8})
    pitch = [e for e in state.events(2) if e["type"] == "pitch"][-1]
    assert pitch == {"type": "pitch", "seat": 1}
    assert [e for e in state.events(1) if e["type"] == "pitch"][-1]["card"] == 8
    assert state.observation(1)["my_pitch"] == 8
    assert state.observation(2)["pitched"] == [False, True, False]
    assert state.observation(2)["hand_sizes"] == [5, 4, 5]


def test_tie_for_the_first_card_is_broken_from_the_deck() -> None:
    hands = {0: [7, 1, 2, 3, 4, 6], 1: [5, 2, 3, 4, 6, 10], 2: [5, 3, 4, 6, 7, 10]}
    state = GAME.new_match(3, seed=3, deck=forced(hands, 0, [5, 8, 6]))
    state.apply({0: 7, 1: 5, 2: 5})
    # Seat 1 (dealt first) pairs its 5 and gets an 8 instead; seat 2's 6 is lower.
    assert state.stacks == [[7], [5, 8], [5, 6]]
    assert state.order == [2, 0, 1]


def test_a_perfect_tie_mid_game_is_broken_from_the_deck() -> None:
    state = GAME.new_match(3, seed=3, deck=forced(HANDS, 0, [2, 4, 3]))
    state.apply({0: 7, 1: 2, 2: 5})
    # Make two identical stacks, as pitched cards can, and ask who is lowest.
    state.stacks = [[2, 5], [2, 5], [6]]
    # Deal order is seat 1 then seat 0: seat 1 pairs its 2 and gets a 4; seat 0 gets a 3.
    assert state.lowest_stack() == 0
    assert state.stacks == [[2, 5, 3], [2, 5, 4], [6]]


def test_survivors_of_five_rounds_split_and_odd_coins_stay() -> None:
    hands = {
        0: [1, 6, 7, 8, 9, 10],
        1: [2, 6, 7, 8, 9, 10],
        2: [3, 6, 7, 8, 9, 10],
        3: [4, 4, 5, 5, 5, 5],
    }
    state = GAME.new_match(4, seed=9, deck=forced(hands, 0, []))
    state.apply({0: 1, 1: 2, 2: 3, 3: 4})
    assert state.order == [0, 1, 2, 3]
    state.apply({0: 6})
    state.apply({1: 6})
    state.apply({2: 6})
    state.apply({3: "fold"})  # pays 1, the smallest card in play
    for rank in (7, 8, 9, 10):
        for seat in state.order:
            state.apply({seat: rank})
    # Five chips shared by three survivors: one each, two wait for the next game.
    assert state.session.hands[0]["deltas"] == [0, 0, 0, -2]
    assert state.session.hands[0]["winners"] == [0, 1, 2]
    assert state.pot.chips == 2 + 4  # the odd coins plus the next game's antes


def test_session_rotates_the_deal_and_conserves_chips() -> None:
    state = GAME.new_match(4, {"rotations": 1}, seed=21)
    rng = Rng(5)
    dealers = []
    while not state.is_over():
        if len(dealers) == state.session.hand:
            dealers.append(state.session.dealer)
        state.apply({s: rng.choice(state.legal_actions(s)) for s in state.to_act()})
        assert sum(state.chips) + state.pot.chips == 0
    assert dealers == [0, 1, 2, 3]
    assert [seat["score"] for seat in state.result()["seats"]] == state.chips


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 99}, {"rotations": True}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(4, options)


def test_heuristic_keeps_dangerous_cards_and_targets_rivals() -> None:
    state = GAME.new_match(3, seed=3, deck=forced(HANDS, 0, []))
    state.apply({0: 7, 1: 2, 2: 5})
    heuristic = GAME.policies["heuristic"]
    for seat in (1, 2, 0):
        state.apply({seat: 9})
    # Seat 1 shows 2-9 and holds 4-8-8-10: none of them can come back to pair
    # it; an 8 would pair seat 2 if seat 2 showed one.
    legal = state.legal_actions(1)
    assert legal == [4, 8, 10, "fold"]
    state.stacks[2].append(8)
    assert heuristic(state.observation(1), legal, Rng(1)) == 8


def test_the_books_example_a_pair_of_eights_costs_eight() -> None:
    hands = {
        0: [1, 3, 4, 6, 8, 8],
        1: [2, 8, 9, 9, 10, 10],
        2: [5, 8, 9, 9, 10, 10],
    }
    state = GAME.new_match(3, seed=3, deck=forced(hands, 0, []))
    state.apply({0: 8, 1: 2, 2: 5})
    assert state.order == [1, 2, 0]
    for seat in (1, 2, 0):
        state.apply({seat: 8})
    # Every pitched card is an 8; seat 0 already shows one and is dealt the last.
    assert state.alive == [False, True, True]
    assert state.chips == [-1 - 8, -1, -1]
    assert state.pot.chips == 3 + 8
    assert state.stacks == [[], [2, 8], [5, 8]]
    # Two players are left: they play a second round, lowest stack first.
    assert state.round == 2 and state.order == [1, 2]
