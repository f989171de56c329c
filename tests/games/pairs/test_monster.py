"""Monster: forced deals through the showdown and tie rules (docs/rules/pairs-monster.md)."""

from __future__ import annotations

from itertools import combinations

import pytest

from games import InvalidOptions
from games.pairs.monster import (
    GAME,
    chance_to_beat_monster,
    discard_options,
    hand_key,
    monster_key,
)
from games.rng import Rng


def forced(hands: dict[int, list[int]], dealer: int = 0) -> list[int]:
    players = len(hands)
    order = [(dealer + step) % players for step in range(1, players + 1)]
    return [hands[seat][i] for i in range(6) for seat in order]


def play(state, moves: list[tuple[int, object]]) -> None:
    for seat, action in moves:
        assert state.to_act() == (seat,)
        state.apply({seat: action})


def test_antes_depend_on_the_table() -> None:
    assert GAME.new_match(4, seed=1).pot.chips == 8
    assert GAME.new_match(5, seed=1).pot.chips == 10
    assert GAME.new_match(6, seed=1).pot.chips == 6
    assert GAME.new_match(8, seed=1).pot.chips == 8


def test_high_hand_order() -> None:
    # The book's examples: a card beats no card, and 10-9-8-7-6-5 is the best hand.
    assert hand_key([10, 8, 7, 4]) > hand_key([10, 8, 7])
    assert hand_key([10, 9, 8, 7, 6, 5]) > hand_key([10, 9, 8, 7, 6, 4])
    assert hand_key([9, 8, 7, 6, 5, 4]) < hand_key([10, 1])
    # The Monster counts each rank once.
    assert monster_key([9, 9, 5, 5, 5]) == hand_key([9, 5])


def test_no_kept_hand_beats_ten_nine_eight_seven_six_five() -> None:
    best = hand_key([10, 9, 8, 7, 6, 5])
    # Every hand a player can keep: 3 to 6 cards, all of different ranks.
    for size in (3, 4, 5, 6):
        for kept in combinations(range(1, 11), size):
            if sorted(kept) != [5, 6, 7, 8, 9, 10]:
                assert hand_key(list(kept)) < best, kept
    # The Monster can hold more ranks than a player, so it can beat even that.
    assert monster_key([10, 9, 8, 7, 6, 5, 1, 1]) > best


def test_no_pair_may_be_kept() -> None:
    assert discard_options([1, 2, 2, 5, 5, 5]) == [[2, 5, 5]]
    assert discard_options([2, 2, 4, 4, 6, 6]) == [[2, 4, 6]]
    # Four cards would have to go: the only way out is to fold.
    assert discard_options([5, 5, 5, 6, 6, 6]) == []
    state = GAME.new_match(
        4,
        seed=2,
        deck=forced(
            {
                0: [1, 2, 3, 4, 7, 8],
                1: [5, 5, 5, 6, 6, 6],
                2: [2, 3, 4, 7, 8, 9],
                3: [3, 4, 7, 8, 9, 10],
            }
        ),
    )
    assert state.legal_actions(1) == ["fold"]
    # With no pair, any 0 to 3 cards may go.
    assert len(discard_options([2, 3, 4, 7, 8, 9])) == 1 + 6 + 15 + 20


def test_tied_high_hands_that_lose_both_pay_and_leave() -> None:
    hands = {
        1: [3, 3, 3, 8, 9, 10],
        2: [4, 4, 4, 8, 9, 10],
        3: [1, 2, 5, 6, 7, 8],
        0: [2, 5, 6, 9, 10, 10],
    }
    state = GAME.new_match(4, seed=4, deck=forced(hands))
    play(state, [(1, [3, 3, 3]), (2, [4, 4, 4]), (3, [8]), (0, [9, 10, 10])])
    showdown = state.last_showdown
    assert showdown["high"] == [1, 2] and not showdown["beat_monster"]
    assert showdown["monster"] == [3, 3, 3, 4, 4, 4, 8, 9, 10, 10]
    # 10-9-8 against the Monster's 10-9-8-4-3: the Monster has one card more.
    assert state.chips == [-2, -7, -7, -2]
    assert state.alive == [True, False, False, True]
    assert state.pot.chips == 18 and state.round == 2
    assert state.order == [3, 0]  # a new round, dealt to the survivors only


def test_the_monster_wins_a_perfect_tie() -> None:
    hands = {
        1: [8, 8, 9, 9, 10, 10],
        2: [1, 2, 3, 4, 5, 6],
        3: [2, 3, 4, 5, 6, 7],
        0: [3, 4, 5, 6, 7, 9],
    }
    state = GAME.new_match(4, seed=4, deck=forced(hands))
    play(state, [(1, [8, 9, 10]), (2, []), (3, []), (0, [])])
    assert state.last_showdown["high"] == [1]
    assert not state.last_showdown["beat_monster"]
    assert state.alive == [True, False, True, True]
    assert state.chips[1] == -2 - 5


def test_the_last_two_tied_losers_pay_and_play_again() -> None:
    hands = {
        1: [1, 2, 3, 4, 5, 6],
        2: [2, 3, 4, 5, 6, 7],
        3: [8, 8, 9, 9, 10, 10],
        0: [8, 8, 9, 9, 10, 10],
    }
    state = GAME.new_match(4, seed=4, deck=forced(hands))
    play(state, [(1, "fold"), (2, "fold"), (3, [8, 9, 10]), (0, [8, 9, 10])])
    assert state.last_showdown["high"] == [3, 0]
    # Folded cards stay out of the Monster.
    assert state.last_showdown["monster"] == [8, 8, 9, 9, 10, 10]
    assert state.alive == [True, False, False, True]
    assert state.chips == [-7, -2, -2, -7]
    assert state.round == 2 and state.pot.chips == 18


def test_tied_winners_split_and_odd_coins_stay() -> None:
    hands = {
        1: [3, 3, 7, 8, 9, 10],
        2: [4, 4, 7, 8, 9, 10],
        3: [5, 5, 7, 8, 9, 10],
        0: [1, 2, 2, 6, 6, 6],
    }
    state = GAME.new_match(4, seed=4, deck=forced(hands))
    play(state, [(1, [3, 3]), (2, [4, 4]), (3, [5, 5]), (0, [2, 6, 6])])
    first = state.session.hands[0]
    assert first["winners"] == [1, 2, 3]
    # Eight chips for three winners: two each, two left for the next game.
    assert first["deltas"] == [-2, 0, 0, 0]
    assert state.pot.chips == 2 + 8
    assert state.session.dealer == 1 and state.round == 1


def test_when_everyone_else_folds_the_last_player_takes_the_pot() -> None:
    state = GAME.new_match(4, seed=6)
    play(state, [(1, "fold"), (2, "fold"), (3, "fold")])
    assert state.session.hands[0]["deltas"] == [6, -2, -2, -2]


def test_discards_stay_secret() -> None:
    state = GAME.new_match(
        4,
        seed=4,
        deck=forced(
            {
                1: [3, 3, 7, 8, 9, 10],
                2: [4, 4, 7, 8, 9, 10],
                3: [5, 5, 7, 8, 9, 10],
                0: [1, 2, 2, 6, 6, 6],
            }
        ),
    )
    play(state, [(1, [3])])
    assert state.events(2)[-1] == {"type": "discard", "seat": 1, "count": 1}
    assert state.events(1)[-1]["cards"] == [3]
    view = state.observation(2)
    assert view["discarded"] == [0, 1, 0, 0] and "my_discards" in view
    assert view["my_discards"] == []


def test_chance_to_beat_monster() -> None:
    certain = [0.0] + [1.0] * 10
    empty = [0.0] * 11
    assert chance_to_beat_monster([10, 9], certain) == 0.0
    assert chance_to_beat_monster([1], empty) == 1.0
    half_ten = [0.0] * 10 + [0.5]
    assert chance_to_beat_monster([10], half_ten) == pytest.approx(0.5)


def test_heuristic_fights_with_a_strong_hand_and_ducks_with_a_weak_one() -> None:
    heuristic = GAME.policies["heuristic"]
    strong = GAME.new_match(
        4,
        seed=4,
        deck=forced(
            {
                1: [5, 6, 7, 8, 9, 10],
                2: [1, 2, 3, 4, 5, 6],
                3: [2, 3, 4, 5, 6, 7],
                0: [3, 4, 5, 6, 7, 9],
            }
        ),
    )
    assert heuristic(strong.observation(1), strong.legal_actions(1), Rng(1)) == []
    weak = GAME.new_match(8, seed=4)
    weak.hands[1] = [1, 2, 3, 4, 5, 6]
    weak._legal_cache = {}
    action = heuristic(weak.observation(1), weak.legal_actions(1), Rng(1))
    assert action == [4, 5, 6]


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 51}, {"games": 3}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(4, options)


def test_a_best_hand_that_beats_the_monster_takes_the_pot() -> None:
    hands = {
        1: [1, 2, 3, 4, 5, 6],
        2: [2, 3, 4, 5, 6, 7],
        3: [4, 5, 6, 7, 8, 9],
        0: [5, 6, 7, 8, 9, 10],
    }
    state = GAME.new_match(4, seed=4, deck=forced(hands))
    play(state, [(1, [4, 5, 6]), (2, [5, 6, 7]), (3, [9]), (0, [])])
    showdown = state.last_showdown
    # The Monster is 9-7-6-5-4; seat 0 keeps 10-9-8-7-6-5 and beats it alone.
    assert showdown["monster"] == [4, 5, 5, 6, 6, 7, 9]
    assert showdown["high"] == [0] and showdown["beat_monster"]
    first = state.session.hands[0]
    assert first["winners"] == [0] and first["rounds"] == 1
    assert first["deltas"] == [6, -2, -2, -2]
