"""Pairs gambling rules: each payout on its own, then whole sessions."""

from __future__ import annotations

import pytest

from games import registry
from games.pairs.basic_gambling import settle
from games.policies import random_policy
from games.rng import Rng
from games.scoring import Pot

GAME = registry.get("pairs")


def test_seattle_loser_pays_one_to_everyone() -> None:
    pot = Pot()
    assert settle("seattle", [13, 5, 2, 7], 0, 6, pot) == [-3, 1, 1, 1]
    assert pot.chips == 0


def test_tacoma_stake_goes_to_the_lowest_score() -> None:
    pot = Pot()
    assert settle("tacoma", [3, 16, 4, 5], 1, 6, pot) == [6, -6, 0, 0]
    assert pot.chips == 0


def test_tacoma_tied_lowest_split_and_odd_chips_wait_for_the_next_game() -> None:
    pot = Pot()
    assert settle("tacoma", [3, 16, 3, 5], 1, 7, pot) == [3, -7, 3, 0]
    assert pot.chips == 1
    # The odd chip joins the next prize.
    assert settle("tacoma", [13, 2, 9, 5], 0, 7, pot) == [-7, 8, 0, 0]
    assert pot.chips == 0


def test_olympia_pays_the_score_difference_to_the_lowest() -> None:
    pot = Pot()
    assert settle("olympia", [21, 4, 9], 0, 6, pot) == [-17, 17, 0]
    assert settle("olympia", [21, 4, 4], 0, 6, pot) == [-17, 8, 8]
    assert pot.chips == 1


def test_portland_pays_everyone_their_difference() -> None:
    pot = Pot()
    assert settle("portland", [2, 13, 5, 10], 1, 6, pot) == [11, -22, 8, 3]
    assert pot.chips == 0


def test_no_gambling_moves_no_chips() -> None:
    assert settle("none", [2, 13], 1, 6, Pot()) == [0, 0]


def play(players: int, seed: int, **options):
    state = GAME.new_match(players=players, options=options, seed=seed)
    rng = Rng(seed)
    while not state.is_over():
        (seat,) = state.to_act()
        state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
    return state


@pytest.mark.parametrize("rule", ["seattle", "tacoma", "olympia", "portland"])
def test_a_gambling_session_deals_whole_rotations_and_ranks_by_chips(rule: str) -> None:
    # Four players: at least five games, in whole turns of the deal, is eight.
    state = play(4, 11, gambling=rule)
    games = [e for e in state.events(None) if e["type"] == "game_over"]
    assert len(games) == 8
    starts = [e for e in state.events(None) if e["type"] == "game"]
    assert [e["dealer"] for e in starts] == [0, 1, 2, 3, 0, 1, 2, 3], "the deal passes left"
    result = state.result()
    chips = [sum(game["chips"][seat] for game in games) for seat in range(4)]
    assert [s["score"] for s in result["seats"]] == chips
    assert sum(chips) + result["pot"] == 0
    best = max(chips)
    for seat, entry in enumerate(result["seats"]):
        assert (entry["rank"] == 1) == (chips[seat] == best)
    for game in games:
        loser = game["loser"]
        assert game["chips"][loser] < 0 or rule in ("olympia", "portland")
        if rule == "seattle":
            assert game["chips"] == [-3 if s == loser else 1 for s in range(4)]


@pytest.mark.parametrize(
    ("players", "games"), [(2, 6), (3, 6), (4, 8), (5, 5), (6, 6), (7, 7), (8, 8)]
)
def test_default_gambling_session_gives_every_seat_the_deal_equally(
    players: int, games: int
) -> None:
    state = GAME.new_match(players=players, options={"gambling": "seattle"}, seed=1)
    observation = state.observation(None)
    assert observation["games"] == games
    assert games >= 5 and games % players == 0


def test_games_option_sets_the_session_length() -> None:
    assert len([e for e in play(3, 2).events(None) if e["type"] == "game_over"]) == 1
    state = play(3, 2, games=3)
    assert len([e for e in state.events(None) if e["type"] == "game_over"]) == 3
    losses = [s["losses"] for s in state.result()["seats"]]
    assert sum(losses) == 3


def test_each_game_of_a_session_starts_from_a_full_deck() -> None:
    state = GAME.new_match(players=2, options={"gambling": "seattle", "games": 2}, seed=4)
    rng = Rng(4)
    while state.observation(None)["game"] == 0:
        (seat,) = state.to_act()
        state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
    observation = state.observation(None)
    assert observation["scores"] == [0, 0]
    assert observation["score_cards"] == [[], []]
    assert observation["chips"] in ([1, -1], [-1, 1])
    in_play = sum(len(stack) for stack in observation["stacks"])
    replaced = len(observation["seen_discards"])
    assert observation["draw_pile"] + observation["burned"] + in_play + replaced == 55
    assert observation["burned"] == 5


# Six players (target 11), seat 0 deals every round, so each deal goes to seats
# 1-5 then 0. Round 1: seat 0's 2 is low and it folds on it (2 points). Round 2:
# seat 1's 6 is low and it pairs it (6). Round 3: seat 1's 5 is low and it pairs
# it: 11, seat 1 loses. Final scores 2, 11, 0, 0, 0, 0.
SIX_PLAYER_GAME = [
    *[10] * 5,
    *[9, 8, 7, 10, 10, 2],
    *[6, 9, 8, 7, 10, 9, 6],
    *[5, 9, 8, 7, 9, 8, 5],
]


@pytest.mark.parametrize(
    ("rule", "chips", "pot"),
    [
        ("seattle", [1, -5, 1, 1, 1, 1], 0),
        # The stake of 6 split four ways: 1 each, 2 odd chips wait in the pot.
        ("tacoma", [0, -6, 1, 1, 1, 1], 2),
        # 11 - 0 = 11 split four ways: 2 each, 3 odd chips wait in the pot.
        ("olympia", [0, -11, 2, 2, 2, 2], 3),
        ("portland", [9, -53, 11, 11, 11, 11], 0),
    ],
)
def test_a_played_game_pays_out_by_each_rule(rule: str, chips: list[int], pot: int) -> None:
    state = GAME.new_match(
        players=6, options={"gambling": rule, "games": 1}, seed=1, deck=SIX_PLAYER_GAME
    )
    assert state.to_act() == (0,)
    state.apply({0: "fold"})
    assert state.to_act() == (1,)
    state.apply({1: "hit"})
    assert state.observation(None)["scores"] == [2, 6, 0, 0, 0, 0]
    assert state.to_act() == (1,)
    state.apply({1: "hit"})
    assert state.is_over()
    over = state.events(None)[-1]
    assert over["loser"] == 1 and over["scores"] == [2, 11, 0, 0, 0, 0]
    assert over["chips"] == chips and over["pot"] == pot
    result = state.result()
    assert [seat["score"] for seat in result["seats"]] == chips
    assert result["pot"] == pot and sum(chips) + pot == 0


def test_tacoma_default_stake_of_six_splits_evenly_between_two_or_three() -> None:
    assert GAME.options["stake"].default == 6
    pot = Pot()
    assert settle("tacoma", [2, 16, 2, 2], 1, 6, pot) == [2, -6, 2, 2]
    assert settle("tacoma", [3, 16, 3, 5], 1, 6, pot) == [3, -6, 3, 0]
    assert pot.chips == 0
