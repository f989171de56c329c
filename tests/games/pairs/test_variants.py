"""Pairs simple variants on forced decks: Continuous, Pieces of Eight, Calamities.

The first game's dealer is seat 0, so each deal starts at seat 1 and ends
with seat 0. Five 10s are burned unless a test says otherwise.
"""

from __future__ import annotations

from games import registry

GAME = registry.get("pairs")
BURN = [10, 10, 10, 10, 10]


def new(players: int, *cards: int, burn: list[int] = BURN, **options):
    return GAME.new_match(players=players, options=options, seed=9, deck=[*burn, *cards])


def act(state, action) -> None:
    (seat,) = state.to_act()
    state.apply({seat: action})


def view(state) -> dict:
    return state.observation(None)


# -- Continuous Pairs -------------------------------------------------------------


def continuous_table():
    """The text's example: seat 0's lowest card is a 3, the others' lowest a 4, and
    every other card in play is 7 or more (seat 2's 7 among them).

    Seat 0 holds 3 9, seat 1 holds 4 8, seat 2 holds 7 10; seat 0 to act.
    """
    state = new(3, 4, 7, 3, 9, 8, 10, continuous=True)
    assert state.to_act() == (0,)
    act(state, "hit")  # seat 0: 9
    act(state, "hit")  # seat 1: 8
    act(state, "hit")  # seat 2: 10
    assert view(state)["stacks"] == [[3, 9], [4, 8], [7, 10]]
    return state


def cheapest_fold(state, seat: int) -> int:
    return min(int(action.split(":")[2]) for action in state.legal_actions(seat)[1:])


def test_continuous_fold_may_take_any_card_in_play() -> None:
    state = continuous_table()
    assert state.legal_actions(0) == [
        "hit",
        "fold:0:3",
        "fold:0:9",
        "fold:1:4",
        "fold:1:8",
        "fold:2:7",
        "fold:2:10",
    ]


def test_continuous_example_folding_on_your_own_three_leaves_their_four() -> None:
    state = continuous_table()
    act(state, "fold:0:3")
    observation = view(state)
    assert observation["scores"] == [3, 0, 0]
    assert observation["stacks"] == [[], [4, 8], [7, 10]]
    assert state.to_act() == (1,)
    assert cheapest_fold(state, 1) == 4, "the 4 is still there to fold on"


def test_continuous_example_taking_their_four_clears_both_low_cards() -> None:
    state = continuous_table()
    act(state, "fold:1:4")
    observation = view(state)
    assert observation["scores"] == [4, 0, 0]
    assert observation["score_cards"] == [[4], [], []]
    # Only the folder's stack is discarded; the others keep theirs, minus the 4.
    assert observation["stacks"] == [[], [8], [7, 10]]
    assert sorted(observation["seen_discards"]) == [3, 9]
    # The cheapest fold left for the others is now 7 points.
    assert state.to_act() == (1,)
    assert state.legal_actions(1) == ["hit", "fold:1:8", "fold:2:7", "fold:2:10"]
    assert cheapest_fold(state, 1) == 7


def test_continuous_empty_stack_must_hit_and_play_goes_on() -> None:
    state = new(3, 4, 9, 3, 7, 8, 10, 5, 6, continuous=True)
    act(state, "hit")  # seat 0: 7
    act(state, "hit")  # seat 1: 8
    act(state, "hit")  # seat 2: 10
    act(state, "fold:1:4")  # seat 0 scores 4, left with nothing
    act(state, "hit")  # seat 1: 5
    act(state, "hit")  # seat 2: 6
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["hit"]
    assert view(state)["round"] >= 1


def test_continuous_pair_discards_only_that_stack() -> None:
    state = new(3, 4, 9, 3, 7, 8, 10, 3, continuous=True)
    act(state, "hit")  # seat 0: 7
    act(state, "hit")  # seat 1: 8
    act(state, "hit")  # seat 2: 10
    act(state, "hit")  # seat 0: 3, a pair of 3s
    observation = view(state)
    assert observation["scores"] == [3, 0, 0]
    assert observation["stacks"] == [[], [4, 8], [9, 10]]
    assert state.to_act() == (1,)


# -- Pieces of Eight ---------------------------------------------------------------


def test_eights_swaps_an_eight_for_two_cards() -> None:
    state = new(2, 9, 8, 2, 5, pieces_of_eight=True)
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["hit", "eights", "fold"]
    act(state, "eights")
    observation = view(state)
    assert observation["stacks"] == [[2, 5], [9]]
    assert observation["seen_discards"] == [8]
    assert state.to_act() == (1,)
    assert state.legal_actions(1) == ["hit", "fold"], "no 8, no swap"


def test_eights_is_not_offered_without_the_option() -> None:
    state = new(2, 9, 8)
    assert state.legal_actions(0) == ["hit", "fold"]


def test_eights_second_card_can_pair_the_first() -> None:
    state = new(2, 9, 8, 5, 5, 1, 2, pieces_of_eight=True)
    act(state, "eights")
    observation = view(state)
    assert observation["scores"] == [5, 0]
    assert observation["stacks"] == [[2], [1]], "round over, next round dealt"


def test_eights_first_card_pairing_stops_the_second_in_continuous() -> None:
    # Seat 0: 3, then hits 8; seat 1: 9, hits 10. Seat 0 swaps the 8 and pairs
    # its 3 on the first card: the 6 on top is not dealt to it.
    state = new(2, 9, 3, 8, 10, 3, 6, continuous=True, pieces_of_eight=True)
    act(state, "hit")  # seat 0: 8
    act(state, "hit")  # seat 1: 10
    act(state, "eights")
    observation = view(state)
    assert observation["scores"] == [3, 0]
    assert observation["stacks"] == [[], [9, 10]]
    assert state.to_act() == (1,)
    act(state, "hit")  # seat 1 gets the 6 that seat 0 never received
    assert view(state)["stacks"] == [[], [9, 10, 6]]


# -- Calamities -------------------------------------------------------------------


def test_calamity_seven_starts_before_a_one() -> None:
    assert new(2, 1, 7).to_act() == (1,)
    assert new(2, 1, 7, calamities=True).to_act() == (0,)


def test_calamity_two_sevens_tie_and_are_broken_as_usual() -> None:
    state = new(3, 7, 9, 7, 5, 4, calamities=True)
    assert view(state)["stacks"] == [[7, 4], [7, 5], [9]]
    assert state.to_act() == (0,)


def test_calamity_receiving_a_seven_keeps_the_turn() -> None:
    state = new(2, 9, 5, 7, 2, calamities=True)
    act(state, "hit")  # seat 0: 7, and plays again
    assert state.to_act() == (0,)
    act(state, "hit")  # seat 0: 2, the turn passes
    assert state.to_act() == (1,)
    plain = new(2, 9, 5, 7)
    act(plain, "hit")
    assert plain.to_act() == (1,)


def test_calamity_seven_pair_ends_a_basic_round() -> None:
    state = new(2, 9, 7, 7, 3, 4, calamities=True)
    act(state, "hit")
    observation = view(state)
    assert observation["scores"] == [7, 0]
    assert observation["stacks"] == [[4], [3]]
    assert state.to_act() == (1,)


def test_calamity_seven_pair_in_continuous_keeps_the_turn_on_an_empty_stack() -> None:
    state = new(2, 9, 7, 7, 6, calamities=True, continuous=True)
    act(state, "hit")  # a pair of 7s
    observation = view(state)
    assert observation["scores"] == [7, 0]
    assert observation["stacks"] == [[], [9]]
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["hit"]
    act(state, "hit")
    assert view(state)["stacks"] == [[6], [9]]
    assert state.to_act() == (1,)


def test_calamity_seven_among_the_two_eights_cards_keeps_the_turn() -> None:
    state = new(2, 9, 8, 2, 7, calamities=True, pieces_of_eight=True)
    act(state, "eights")
    assert view(state)["stacks"] == [[2, 7], [9]]
    assert state.to_act() == (0,)


def test_calamity_seven_also_counts_lowest_as_a_tie_breaker() -> None:
    # Both seats show a 2; the tie-breakers are seat 1's 1 and seat 0's 7.
    assert new(2, 2, 2, 1, 7, calamities=True).to_act() == (0,)
    assert new(2, 2, 2, 1, 7).to_act() == (1,)


def test_calamity_seven_is_low_only_for_who_starts_not_for_folding() -> None:
    state = new(2, 1, 7, calamities=True)  # seat 1: 1, seat 0: 7 starts
    assert state.to_act() == (0,)
    act(state, "fold")
    assert view(state)["scores"] == [1, 0], "a fold takes the 1, the lowest by rank"


def test_calamity_seven_dealt_to_start_a_round_does_not_keep_the_turn() -> None:
    # The starter's 7 was dealt, not received by a hit: its hit of a 2 passes the turn.
    state = new(2, 9, 7, 2, calamities=True)
    assert state.to_act() == (0,)
    act(state, "hit")
    assert state.to_act() == (1,)
