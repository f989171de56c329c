"""Troll Guts: forced deals through draw, steal, buy and the pair penalty
(docs/rules/pairs-troll-guts.md)."""

from __future__ import annotations

import pytest

from games import InvalidOptions
from games.pairs.troll_guts import GAME, stack_orders
from games.rng import Rng

HANDS = {1: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9, 10], 0: [2, 3, 4, 5, 6]}


def forced(hands: dict[int, list[int]], up: dict[int, int], rest: list[int]) -> list[int]:
    order = [1, 2, 0]  # the dealer is seat 0
    deck = [hands[seat][i] for i in range(5) for seat in order]
    return deck + [up[seat] for seat in order] + rest


def new_game(rest: list[int], up: dict[int, int] | None = None):
    up = up or {1: 9, 2: 4, 0: 7}
    return GAME.new_match(3, seed=12, deck=forced(HANDS, up, rest))


def arranged(rest: list[int]):
    state = new_game(rest)
    state.apply({1: [5, 4, 3, 2, 1], 2: [10, 9, 8, 7, 6], 0: [2, 3, 4, 5, 6]})
    return state


def test_stack_orders_are_every_distinct_order() -> None:
    assert len(stack_orders([1, 2, 3, 4, 5])) == 120
    assert len(stack_orders([2, 2, 3, 4, 5])) == 60
    assert stack_orders([3, 1]) == [[1, 3], [3, 1]]


def test_the_order_is_chosen_together_and_kept_secret() -> None:
    state = new_game([])
    assert state.stacks == [[7], [9], [4]]
    assert state.to_act() == (0, 1, 2)
    assert state.legal_actions(0) == stack_orders(HANDS[0])
    state.apply({1: [5, 4, 3, 2, 1], 2: [10, 9, 8, 7, 6], 0: [2, 3, 4, 5, 6]})
    assert state.observation(1)["down"] == [5, 4, 3, 2, 1]
    assert "down" not in state.observation(None)
    arranged_events = [e for e in state.events(0) if e["type"] == "arranged"]
    assert [e.get("order") for e in arranged_events] == [[2, 3, 4, 5, 6], None, None]
    # The low card (seat 2's 4) plays first.
    assert state.to_act() == (2,)


def test_a_tie_for_low_is_broken_as_in_pairs() -> None:
    state = new_game([6, 9, 3], up={1: 6, 2: 6, 0: 7})
    # Seat 1's tie-breaker pairs its 6 and is replaced by a 9; seat 2's 3 is lower.
    assert state.stacks == [[7], [6, 9], [6, 3]]
    state.apply({seat: state.legal_actions(seat)[0] for seat in (0, 1, 2)})
    assert state.to_act() == (2,)


def test_draw_steal_buy_and_the_survivor_takes_the_pot() -> None:
    state = arranged([9, 10])
    state.apply({2: ["buy"]})  # its own 10, for a chip
    assert state.stacks[2] == [4, 10] and state.chips[2] == -2 and state.pot.chips == 4
    assert state.to_act() == (0,)
    state.apply({0: ["steal", 1]})  # seat 1's top card, a 5
    assert state.stacks[0] == [7, 5] and state.down[1] == [4, 3, 2, 1]
    state.apply({1: ["draw"]})  # a 9 on its 9: seat 1 pays 9 and is out
    assert state.alive == [True, False, True] and state.chips[1] == -10
    assert state.pot.chips == 13
    # Nothing can be stolen from a player who is out.
    assert ["steal", 1] not in state.legal_actions(2)
    state.apply({2: ["steal", 0]})  # seat 0's top card, a 2
    state.apply({0: ["buy"]})  # its next card, a 3
    assert state.stacks[0] == [7, 5, 3]
    state.apply({2: ["draw"]})  # a 10 on its 10
    first = state.session.hands[0]
    assert first["winner"] == 0 and first["pot"] == 24
    assert first["deltas"] == [22, -10, -12]


def test_buying_is_not_offered_with_an_empty_stack() -> None:
    state = arranged([])
    state.down[2] = []
    state._legal_cache = {}
    assert ["buy"] not in state.legal_actions(2)


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 77}, {"ante": 2}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


def test_heuristic_stacks_safe_cards_on_top_and_buys_them() -> None:
    heuristic = GAME.policies["heuristic"]
    state = GAME.new_match(
        3,
        seed=12,
        deck=forced({1: [2, 2, 9, 4, 5], 2: HANDS[2], 0: [1, 3, 4, 5, 6]}, {1: 9, 2: 4, 0: 7}, []),
    )
    # Seat 1 shows a 9 and holds 2-2-4-5-9: the second 2 and the 9 go to the bottom.
    order = heuristic(state.observation(1), state.legal_actions(1), Rng(1))
    assert order == [2, 4, 5, 2, 9]
    state = arranged([])
    assert heuristic(state.observation(2), state.legal_actions(2), Rng(1)) == ["buy"]


def test_the_books_example_a_pair_of_fours_costs_four() -> None:
    state = new_game([])
    state.apply({1: [5, 4, 3, 2, 1], 2: [10, 9, 8, 7, 6], 0: [4, 2, 3, 5, 6]})
    # Seat 2 shows a 4 and steals seat 0's top card: another 4.
    state.apply({2: ["steal", 0]})
    assert state.alive == [True, True, False]
    assert state.chips == [-1, -1, -1 - 4]
    assert state.pot.chips == 3 + 4
    assert state.down[0] == [2, 3, 5, 6]
    assert state.to_act() == (0,)


def test_a_bought_card_that_pairs_costs_the_coin_and_the_pair() -> None:
    state = new_game([10, 9, 3, 8])
    state.apply({1: [2, 5, 4, 3, 1], 2: [10, 9, 8, 7, 6], 0: [2, 3, 4, 5, 6]})
    state.apply({2: ["draw"]})  # a 10
    state.apply({0: ["draw"]})  # a 9
    state.apply({1: ["steal", 0]})  # seat 0's 2
    state.apply({2: ["draw"]})  # a 3
    state.apply({0: ["draw"]})  # an 8
    assert state.stacks == [[7, 9, 8], [9, 2], [4, 10, 3]]
    state.apply({1: ["buy"]})  # its own top card is the other 2
    assert state.alive == [True, False, True]
    assert state.chips == [-1, -1 - 1 - 2, -1]
    assert state.pot.chips == 3 + 1 + 2
