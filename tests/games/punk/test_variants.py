"""Punk's variations on forced decks (docs/rules/punk.md): the 2-player Dummy,
Play-Again, Fixed Opening, Dice Punk, and the options and player counts."""

from __future__ import annotations

import pytest

from games import InvalidOptions
from games.punk.engine import GAME
from games.punk.rules import MAX_GAMES, next_target
from games.rng import Rng
from tests.support.punk_deal import dealt, trick_events

# -- the Dummy ---------------------------------------------------------------------------


def dummy_game() -> object:
    """Two players; the Dummy (seat 2) was dealt 1..7 in that order: its top card is the 7."""
    hands = [[1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7]]
    return GAME.new_match(2, seed=6, deck=dealt(hands))


def test_the_dummy_plays_its_top_card_and_is_not_a_seat() -> None:
    state = dummy_game()
    assert state.to_act() == (0, 1)
    assert state.observation(0)["hand_sizes"] == [7, 7, 7] and state.observation(0)["dummy"] == 2
    state.apply({0: 1, 1: 1})
    state.apply({0: 2, 1: 2})
    assert [e["cards"][2] for e in trick_events(state)] == [7, 6]
    # 1-1-7: the Dummy's 7 is the only unique card and scores for it.
    assert state.scores == [0, 0, 13] and state.caches[2] == [7, 6]
    state.apply({0: 3, 1: 4})
    assert state.phase == "keep" and state.to_act() == (0, 1)
    state.apply({0: [7], 1: []})
    # The Dummy always throws its whole hand away and is dealt six new cards.
    assert state.kept == [1, 0, 0]
    deal = [e for e in state.events(None) if e["type"] == "deal"][-1]
    assert deal["counts"] == [5, 6, 6]


def test_the_dummy_reaching_the_target_does_not_end_the_game() -> None:
    state = dummy_game()
    state.scores[2] = 20
    state.apply({0: 1, 1: 1})  # the Dummy's 7 wins: 27 points, and play goes on
    assert state.scores[2] == 27 and not state.is_over()
    while not state.is_over():
        state.apply({s: state.legal_actions(s)[0] for s in state.to_act()})
    seats = state.result()["seats"]
    assert len(seats) == 2 and {s["rank"] for s in seats} <= {1, 2}


# -- Play-Again ---------------------------------------------------------------------------


def test_play_again_target_is_ten_above_the_leader() -> None:
    assert next_target(21, 19) == 29
    assert next_target(21, 11) == 21  # the leader is 10 short: unchanged
    assert next_target(21, 5) == 21
    assert next_target(21, 12) == 22
    assert next_target(29, 25) == 35


def test_play_again_starts_a_new_game_with_scores_carried() -> None:
    state = GAME.new_match(4, {"play_again": True}, seed=5)
    state.scores = [19, 17, 17, 13]
    state.won = [[7, 6, 6], [7, 6, 4], [7, 5, 5], [7, 6]]
    state._end_game(None)
    view = state.observation(3)
    assert view["game"] == 1 and view["target"] == 29
    assert view["scores"] == [19, 17, 17, 13]
    # The leader needs ten more points, the last player sixteen.
    assert view["target"] - view["scores"][0] == 10 and view["target"] - view["scores"][3] == 16
    # Every card is back: a full new deal.
    assert view["hand_sizes"] == [7, 7, 7, 7] and view["pot"] == [] and view["caches"][0] == []
    assert state.conserved()["cards"] == 28 and not state.is_over()


def test_play_again_stops_after_the_last_game() -> None:
    state = GAME.new_match(3, {"play_again": True}, seed=5)
    for _ in range(MAX_GAMES):
        assert not state.is_over()
        state._end_game(None)
    assert state.is_over() and len(state.session.hands) == MAX_GAMES


def test_without_play_again_an_exhausted_game_ends_the_match() -> None:
    state = GAME.new_match(3, seed=5)
    state._end_game(None)
    assert state.is_over()


# -- Fixed Opening and Dice Punk -------------------------------------------------------------


def test_fixed_opening_deals_one_card_of_each_rank() -> None:
    state = GAME.new_match(5, {"fixed_opening": True}, seed=9)
    for seat in range(5):
        assert state.observation(seat)["hand"] == [1, 2, 3, 4, 5, 6, 7, 8]
    # Every hand is public knowledge in the first round: perturbing moves nothing real.
    other = state.perturb_hidden(0, Rng(1))
    assert [sorted(h) for h in other.hands] == [sorted(h) for h in state.hands]


def test_fixed_opening_forces_the_first_shuffle_it_makes() -> None:
    # No deal opens the game, so a forced deck orders the second round's deal;
    # only two aces are left to deal, so the third forced ace is cut off.
    state = GAME.new_match(3, {"fixed_opening": True}, seed=2, deck=[7, 1, 1, 1])
    for card in (1, 2, 3):
        state.apply({0: card, 1: card, 2: card})  # three ties: the 1, 2, 3 go neutral
    assert state.neutral == [1, 2, 3]
    state.apply({0: [], 1: [], 2: []})
    assert 7 in state.hands[0] and state.hands[1].count(1) >= 1 and state.hands[2].count(1) >= 1
    assert state.conserved()["cards"] == 21


def test_dice_are_rolled_kept_or_rerolled() -> None:
    # Three players with d6: the forced "deck" is the sequence of rolls, dealt round the table.
    rolls = [[1, 2, 3, 4, 5, 6, 6], [2, 2, 5, 4, 4, 4, 4], [3, 3, 5, 1, 1, 1, 1]]
    state = GAME.new_match(3, {"dice": 6}, seed=1, deck=dealt(rolls) + [6] * 20)
    assert state.observation(0)["hand"] == [1, 2, 3, 4, 5, 6, 6]
    state.apply({0: 1, 1: 2, 2: 3})  # the 1 is unique and lowest
    state.apply({0: 2, 1: 2, 2: 3})  # the 3 wins
    state.apply({0: 5, 1: 5, 2: 5})  # all tied: a 5 to the neutral cache
    assert state.scores == [1, 0, 3] and state.neutral == [5]
    assert state.phase == "keep" and state.observation(0)["hand"] == [3, 4, 6, 6]
    state.apply({0: [3, 4], 1: [], 2: []})
    # Kept dice keep their faces; everything else is rolled again (the forced sixes).
    assert state.observation(0)["hand"] == [3, 4, 6, 6, 6, 6]
    assert state.observation(1)["hand"] == [6] * 6
    assert state.pot == [] and state.conserved() == {"dice": 21}


def test_spare_dice_are_rolled_again_not_shown_as_discarded() -> None:
    """Four players, d6, every die a 1 until the fifth round: every trick is a tie of
    aces (nobody scores) and everyone throws everything away. The fifth round has 13
    dice for 12 places; the spare one must be rolled (the forced 6), not keep the face
    of the die a player threw away face down (a 1).
    """
    rolls = [1] * (28 + 24 + 20 + 16 + 12) + [6]
    state = GAME.new_match(4, {"dice": 6}, seed=1, deck=rolls)
    while state.round < 5:
        if state.phase == "keep":
            state.apply({seat: [] for seat in state.to_act()})
        else:
            state.apply({seat: 1 for seat in state.to_act()})
    assert state.scores == [0, 0, 0, 0] and len(state.neutral) == 15
    assert state.hand_size == 3 and state.pot == [6]
    assert state.observation(None)["pot"] == [6]


def test_forced_dice_must_fit_the_die() -> None:
    with pytest.raises(ValueError):
        GAME.new_match(3, {"dice": 6}, deck=[7])


def test_forced_cards_must_be_in_the_deck() -> None:
    with pytest.raises(ValueError):
        GAME.new_match(4, deck=[8])


@pytest.mark.parametrize(
    "options",
    [
        {"dice": 5},
        {"dice": "6"},
        {"dice": True},
        {"play_again": 1},
        {"fixed_opening": "yes"},
        {"dice": 6, "fixed_opening": True},
        {"target": 30},
    ],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


@pytest.mark.parametrize("players", [1, 9])
def test_player_counts(players: int) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(players)
