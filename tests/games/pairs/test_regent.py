"""Regent: forced deals through every move's payment (docs/rules/pairs-regent.md).

Forced decks start with the five burned cards, then two face-down rounds
and the face-up round, each dealt from the dealer's (seat 0's) left.
"""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.regent import GAME, highest_pair
from games.rng import Rng

BURN = [4, 4, 4, 4, 5]


def forced(
    down: dict[int, list[int]], up: dict[int, int], rest: list[int], burn: list[int] = BURN
) -> list[int]:
    players = len(down)
    order = [step % players for step in range(1, players + 1)]
    deck = list(burn)
    deck += [down[seat][0] for seat in order] + [down[seat][1] for seat in order]
    deck += [up[seat] for seat in order]
    return deck + rest


def duel(rest: list[int]):
    # Seat 1: 6 and 9 down, 3 up. Seat 0: 7 and 7 down (a hidden pair), 5 up.
    return GAME.new_match(2, seed=8, deck=forced({1: [6, 9], 0: [7, 7]}, {1: 3, 0: 5}, rest))


def test_deal_burns_five_and_the_low_upcard_starts() -> None:
    state = duel([])
    assert state.shoe.discards == BURN
    assert state.hands == [[7, 7], [6, 9]] and state.stacks == [[5], [3]]
    assert state.to_act() == (1,)
    assert state.observation(1)["hand"] == [6, 9]
    assert state.observation(1)["hand_sizes"] == [2, 2]
    assert all("cards" not in e for e in state.events(1) if e.get("seat") == 0)


def test_a_tie_for_low_upcard_is_broken_from_the_deck() -> None:
    deck = forced({1: [6, 9], 0: [7, 8]}, {1: 5, 0: 5}, [5, 2, 3])
    state = GAME.new_match(2, seed=8, deck=deck)
    # Seat 1's tie-breaker pairs its 5 and is replaced by a 2; seat 0 gets a 3.
    assert state.stacks == [[5, 3], [5, 2]]
    assert state.to_act() == (1,)


def test_draw_is_secret() -> None:
    state = duel([8])
    state.apply({1: ["draw"]})
    assert state.hands[1] == [6, 8, 9]
    assert state.events(0)[-1] == {"type": "draw", "seat": 1}
    assert state.events(1)[-1]["card"] == 8
    assert state.to_act() == (0,)


def test_see_without_a_pair_pays_their_highest_card() -> None:
    state = duel([8])
    state.apply({1: ["draw"]})
    state.apply({0: ["see", 1]})  # 6-8-9 down, 3 up: no pair
    assert state.chips == [-9, 9]
    assert state.session.hand == 1  # the round is over; the next is dealt


def test_see_catches_the_highest_of_several_pairs() -> None:
    state = duel([8, 10, 2, 10])
    state.apply({1: ["draw"]})
    state.apply({0: ["draw"]})
    state.apply({1: ["draw"]})
    state.apply({0: ["draw"]})
    assert state.hands[0] == [7, 7, 10, 10]
    state.apply({1: ["see", 0]})
    assert state.chips == [-10, 10]


def test_a_pair_between_hand_and_upcard_counts() -> None:
    assert highest_pair([5, 3, 5]) == 5
    assert highest_pair([1, 2, 3]) == 0
    state = trio([1, 2, 7])
    for seat in (1, 2, 0):
        state.apply({seat: ["draw"]})
    # Seat 0 shows a 7 and has drawn one: seeing it catches the pair.
    state.apply({1: ["see", 0]})
    assert state.chips == [-7, 7, 0]
    assert state.alive == [False, True, True]


def test_attack_that_pairs_pays_the_target() -> None:
    state = duel([5])
    state.apply({1: ["attack", 0]})
    assert state.chips == [5, -5]
    assert state.session.hand == 1


def test_attack_without_pair_and_gifts_that_would_pair_are_not_allowed() -> None:
    state = duel([6, 10])
    state.apply({1: ["attack", 0]})
    assert state.stacks[0] == [5, 6] and state.to_act() == (0,)
    state.apply({0: ["draw"]})
    # Seat 1 holds 6 and 9; the 6 would pair seat 0's upcard.
    gifts = [a for a in state.legal_actions(1) if a[0] == "gift"]
    assert gifts == [["gift", 0, 9]]
    with pytest.raises(IllegalAction):
        state.apply({1: ["gift", 0, 6]})


def test_nobody_can_see_a_player_without_face_down_cards() -> None:
    state = duel([10, 2])
    state.apply({1: ["gift", 0, 6]})
    assert state.stacks[0] == [5, 6] and state.to_act() == (0,)
    state.apply({0: ["draw"]})
    state.apply({1: ["gift", 0, 9]})
    assert state.hands[1] == []
    assert ["see", 1] not in state.legal_actions(0)
    assert ["attack", 1] in state.legal_actions(0)


def test_fold_pays_the_lowest_face_up_card() -> None:
    state = duel([])
    state.apply({1: ["fold"]})  # its own 3 is the lowest face-up card
    assert state.chips == [3, -3]


def test_duel_deals_on_from_the_same_deck() -> None:
    state = duel([])
    left = len(state.shoe)
    state.apply({1: ["fold"]})
    # Six cards to the table went to the discards; six more were dealt from the pile.
    assert len(state.shoe) == left - 6
    assert state.shoe.discards[:5] == BURN


def trio(rest: list[int]):
    # Seat 1: 2, 8 down, 4 up. Seat 2: 6, 6 down, 9 up. Seat 0: 3, 10 down, 7 up.
    down = {1: [2, 8], 2: [6, 6], 0: [3, 10]}
    deck = forced(down, {1: 4, 2: 9, 0: 7}, rest, burn=[5, 5, 5, 5, 8])
    return GAME.new_match(3, seed=8, deck=deck)


def test_turn_goes_to_the_target_and_knock_outs_pay_directly() -> None:
    state = trio([4])
    assert state.to_act() == (1,)
    state.apply({1: ["gift", 0, 8]})
    assert state.to_act() == (0,)  # the target, not the player on the left
    state.apply({0: ["see", 2]})  # 6-6 down: a pair
    assert state.chips == [6, 0, -6]
    assert state.alive == [True, True, False]
    # The turn moves on from the knocked-out target: back round to seat 0.
    assert state.to_act() == (0,)
    state.apply({0: ["attack", 1]})  # a 4 onto seat 1's 4: the attacker is out
    first = state.session.hands[0]
    assert first["deltas"] == [2, 4, -6]
    assert first["survivors"] == [1]


def test_a_failed_see_turns_the_target_face_up() -> None:
    state = trio([1])
    state.apply({1: ["see", 0]})  # 3-10 down, 7 up: no pair
    assert state.chips == [10, -10, 0]
    assert state.alive == [True, False, True]
    assert state.stacks[0] == [7, 3, 10] and state.hands[0] == []
    assert state.to_act() == (0,)
    state.apply({0: ["attack", 2]})
    assert state.to_act() == (2,)
    # Seat 0 has nothing face down left, so it cannot be seen.
    assert ["see", 0] not in state.legal_actions(2)


def test_fold_penalties_go_to_the_last_player_in() -> None:
    state = trio([])
    state.apply({1: ["fold"]})  # pays 4 into the centre and leaves
    assert state.pot.chips == 4 and state.to_act() == (2,)
    state.apply({2: ["see", 0]})  # no pair: seat 2 pays 10 and leaves
    first = state.session.hands[0]
    assert first["deltas"] == [14, -4, -10]
    assert state.pot.chips == 0


def test_attack_without_pair_passes_the_turn_to_the_target() -> None:
    state = trio([5])
    state.apply({1: ["attack", 0]})
    assert state.stacks[0] == [7, 5] and state.to_act() == (0,)


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 100}, {"rotations": 1.0}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, options)


def test_heuristic_gifts_away_half_of_a_hidden_pair() -> None:
    heuristic = GAME.policies["heuristic"]
    state = duel([9, 2])
    state.apply({1: ["draw"]})  # seat 1 now holds 6, 9, 9
    state.apply({0: ["draw"]})
    # A 9 given away breaks seat 1's hidden pair.
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == ["gift", 0, 9]


def test_the_books_example_dealing_a_pair_of_eights_costs_eight() -> None:
    deck = forced({1: [6, 9], 0: [7, 7]}, {1: 3, 0: 8}, [8])
    state = GAME.new_match(2, seed=8, deck=deck)
    assert state.to_act() == (1,)
    state.apply({1: ["attack", 0]})
    assert state.chips == [8, -8]
    assert state.session.hands[0]["deltas"] == [8, -8]
