"""Blackstone: forced deals through the text's rules and its fold example, the
tie for low (pairs kept, extra 10s returned), the losing pair of 10s, the split
pot with odd coins, the last player left, and the chip session.

The forced deck is the first game's deck, top first; nothing is burned. Seat 0
deals the first game, so cards go to seat 1 first and to seat 0 last.
"""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.blackstone import GAME, lose_chance
from games.rng import Rng, derive_seed


def new(players: int, *cards: int, rotations: int = 1):
    return GAME.new_match(players, {"rotations": rotations}, seed=7, deck=list(cards))


def play(state, *actions) -> None:
    for action in actions:
        (seat,) = state.to_act()
        state.apply({seat: action})


def events_of(state, kind: str) -> list[dict]:
    return [event for event in state.events(None) if event["type"] == kind]


def test_fold_costs_the_ante_and_half_the_white_stones_rounded_up() -> None:
    # The text: 15 white stones in the centre, folding costs the ante plus 8.
    whites = [1, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 9]
    state = new(3, 2, 3, 4, *whites)  # seat 1: 2, seat 2: 3, seat 0: 4
    assert state.to_act() == (1,), "the low card goes first"
    assert state.observation(None)["whites"] == 3
    play(state, 12)
    observation = state.observation(2)
    assert observation["whites"] == 15 and observation["fold_cost"] == 5 + 8
    play(state, "fold")
    assert state.chips[2] == -13 and state.pot.chips == 13
    assert state.observation(None)["status"] == ["in", "in", "folded"]
    assert state.to_act() == (0,), "folding does not end the game with two players left"


def test_a_second_black_stone_loses_and_pays_a_coin_per_white_stone_dealt() -> None:
    # Seat 1 starts with a 10; seat 2's 3 is low. 2 white stones on the deal.
    state = new(3, 10, 3, 4, 5, 6, 7, 8, 10, 1)
    assert state.to_act() == (2,)
    assert state.observation(None)["blacks"] == [0, 1, 0]
    play(state, 1)  # seat 2: a 5
    assert state.legal_actions(0)[:2] == [1, 2]
    play(state, 2)  # seat 0: 6, 7
    assert state.legal_actions(1)[0] == 2, "at least as many as the previous player"
    with pytest.raises(IllegalAction):
        state.apply({1: 1})
    play(state, 3)  # seat 1: an 8, then the second 10; the third card stays hidden
    take = events_of(state, "take")[-1]
    assert take["count"] == 3 and take["cards"] == [8, 10]
    lose = events_of(state, "lose")[0]
    assert lose["seat"] == 1 and lose["amount"] == 5 + 6, "ante plus six white stones"
    win = events_of(state, "win")[0]
    assert win["seats"] == [0, 2] and win["pot"] == 11 and win["shares"] == [5, 5]
    assert state.session.hands[0]["deltas"] == [5, -11, 5]
    assert state.pot.chips == 1, "the odd coin stays for the next game"


def test_survivors_split_only_among_players_still_in() -> None:
    state = new(3, 10, 3, 4, 5, 10)
    play(state, "fold")  # seat 2 folds: 5 + 1 (two white stones, half rounded up)
    play(state, 1)  # seat 0: a 5
    play(state, 1)  # seat 1: the second 10
    win = events_of(state, "win")[0]
    assert win["seats"] == [0]
    assert win["pot"] == 6 + (5 + 3)
    assert state.session.hands[0]["deltas"] == [14, -8, -6]


def test_the_last_player_left_takes_the_whole_pot() -> None:
    state = new(3, 1, 2, 3, rotations=2)
    play(state, "fold", "fold")  # seat 1 is low; seats 1 and 2 fold
    win = events_of(state, "win")[0]
    assert win["seats"] == [0] and win["pot"] == (5 + 2) * 2
    assert state.session.hands[0]["deltas"] == [14, -7, -7]
    assert state.session.dealer == 1 and state.observation(None)["game"] == 1


def test_tie_for_low_as_in_basic_pairs() -> None:
    # The booklet's example: A 10, B 4-8, C 4-9, D 10, E 7. B goes first. Seat 0 deals,
    # so A..E are seats 1, 2, 3, 4, 0.
    state = new(5, 10, 4, 4, 10, 7, 8, 9)
    assert state.to_act() == (2,)
    deal = events_of(state, "deal")[0]
    assert deal["cards"] == [[7], [10], [4, 8], [4, 9], [10]]
    observation = state.observation(None)
    assert observation["blacks"] == [0, 1, 0, 0, 1]
    assert observation["whites"] == 5, "the tie-breakers join the white stones"
    assert observation["tens_in_deck"] == 8 and observation["deck_size"] == 55 - 7


def test_a_paired_tie_breaker_is_kept() -> None:
    # Seats 1 and 2 tie on 3; seat 1's tie-breaker pairs its 3 and still wins low.
    state = new(3, 3, 3, 6, 3, 5)
    assert state.to_act() == (1,)
    assert events_of(state, "deal")[0]["cards"] == [[6], [3, 3], [3, 5]]
    assert state.observation(None)["whites"] == 5


def test_extra_tens_on_the_deal_go_back_and_the_deck_is_reshuffled() -> None:
    # Both seats show a 10; the tie-breakers are 10 (seat 1) and 5 (seat 0).
    state = new(2, 10, 10, 10, 5)
    assert state.to_act() == (0,)
    observation = state.observation(None)
    assert observation["blacks"] == [1, 1], "nobody keeps more than one black stone"
    assert observation["whites"] == 1
    assert observation["deck_size"] == 55 - 4 + 1 and observation["tens_in_deck"] == 8
    assert events_of(state, "return_tens") == [{"type": "return_tens", "count": 1}]
    assert state.shoe.cards().count(10) == 8
    assert state.card_count() == 55


def test_the_first_player_takes_any_number_and_a_short_deck_leaves_only_fold() -> None:
    whites = [n for n in range(4, 10) for _ in range(n)] + [2, 3, 3]
    assert len(whites) == 42
    state = new(3, 1, 2, 3, *whites)
    legal = state.legal_actions(1)
    assert legal == [*range(1, 55 - 3 + 1), "fold"]
    play(state, 40)  # seat 1 takes 40 white stones
    assert state.observation(None)["deck_size"] == 12
    assert state.legal_actions(2) == ["fold"], "nobody can take 40 of 12 cards"
    play(state, "fold", "fold")
    assert events_of(state, "win")[0]["seats"] == [1]


def test_turns_skip_folded_players_and_keep_the_minimum() -> None:
    state = new(4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9)
    play(state, 2)  # seat 1 (low): 5, 6
    play(state, "fold")  # seat 2 folds; the minimum stays at 2
    assert state.to_act() == (3,) and state.legal_actions(3)[0] == 2
    play(state, 3, 3)  # seats 3 and 0
    assert state.to_act() == (1,) and state.legal_actions(1)[0] == 3


def test_every_seat_deals_equally_often() -> None:
    state = GAME.new_match(4, {"rotations": 2}, seed=3)
    rng = Rng(3)
    dealers = []
    while not state.is_over():
        if state.observation(None)["game"] == len(dealers):
            dealers.append(state.session.dealer)
        (seat,) = state.to_act()
        legal = state.legal_actions(seat)
        state.apply({seat: legal[rng.below(len(legal))]})
    assert dealers == [0, 1, 2, 3, 0, 1, 2, 3]


def test_many_random_matches_conserve_chips_and_cards_and_end() -> None:
    for index in range(2000):
        players = 2 + index % 7
        seed = derive_seed(31, "match", index)
        state = GAME.new_match(players, {"rotations": 1}, seed=seed)
        rng = Rng(seed)
        actions = 0
        while not state.is_over():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            # Lean to small takes so games run long.
            action = legal[rng.below(min(3, len(legal)))] if rng.below(2) else legal[-1]
            state.apply({seat: action})
            actions += 1
            assert actions <= 60 * players
            assert sum(state.chips) + state.pot.chips == 0
            assert state.card_count() == 55
        assert all(type(chips) is int for chips in state.chips)
        assert len(state.session.hands) == players
        seats = state.result()["seats"]
        assert [seat["score"] for seat in seats] == state.chips


def test_wrong_seat_and_bad_actions_change_nothing() -> None:
    state = new(3, 1, 2, 3)
    record = state.to_json()
    with pytest.raises(IllegalAction):
        state.apply({2: 1})
    for bad in (0, 53, "1", 1.0, True, "FOLD", None):
        with pytest.raises(IllegalAction):
            state.apply({1: bad})
    assert state.to_json() == record
    assert state.default_action(1) == "fold"


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 51}, {"decks": 2}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


def test_lose_chance() -> None:
    assert lose_chance(1, 10, 0, 1) == 0.0
    assert lose_chance(1, 10, 2, 1) == pytest.approx(0.2)
    assert lose_chance(1, 10, 2, 0) == 0.0, "one card cannot hold two 10s"
    assert lose_chance(2, 10, 2, 0) == pytest.approx(1 / 45)
    assert lose_chance(11, 10, 2, 0) == 1.0


def test_heuristic_takes_the_minimum_when_safe_and_folds_when_doomed() -> None:
    heuristic = GAME.policies["heuristic"]
    state = new(3, 1, 2, 3)
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == 1
    # Seat 2 holds a 10 and must take 20 cards from a deck still holding nine 10s.
    state = new(3, 1, 10, 3, *range(4, 10), *([9] * 8), *([8] * 6))
    play(state, 20)
    assert state.observation(2)["blacks"][2] == 1
    assert heuristic(state.observation(2), state.legal_actions(2), Rng(1)) == "fold"
