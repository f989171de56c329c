"""Five Cards: forced deals through the book's example and the tricky rules
(docs/rules/pairs-five-cards.md)."""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.five_cards import GAME, column_points
from games.policies import random_policy
from games.rng import Rng, derive_seed


def play(state, moves: list[int]) -> None:
    """Place each drawn card beside the given target, whoever's turn it is."""
    for target in moves:
        state.apply({state.turn: target})


def test_targets_are_five_different_ranks_in_order() -> None:
    state = GAME.new_match(2, seed=1, deck=[9, 3, 7, 5, 6])
    assert state.targets == [3, 5, 6, 7, 9]
    assert state.observation(None)["targets"] == [3, 5, 6, 7, 9]
    assert state.conserved() == {"cards": 55}


def test_matching_cards_on_the_deal_are_thrown_back_and_the_deck_reshuffled() -> None:
    deck = [4, 6, 4, 6, 9, 2, 10, 10, 10, 10, 10]
    state = GAME.new_match(2, seed=1, deck=deck)
    assert state.targets == [2, 4, 6, 9, 10]
    event = state.events(None)[0]
    assert event["type"] == "targets" and event["thrown_back"] == [4, 6]
    # The thrown-back cards are in the new deck: 50 cards besides the targets.
    assert len(state.shoe) + 1 == 50 and state.conserved() == {"cards": 55}
    # Without a throw-back the forced order goes on: the next card is drawn as dealt.
    plain = GAME.new_match(2, seed=1, deck=[2, 4, 6, 9, 10, 8, 1])
    assert plain.drawn == 8


def test_the_books_example_position() -> None:
    """Top wins the 3, 5, 6 and 9, bottom the 7, and another 7 ends the round."""
    deck = [9, 3, 7, 5, 6] + [7, 8, 7, 1, 7, 2, 7, 7]
    state = GAME.new_match(2, seed=1, deck=deck)
    top = state.turn
    bottom = 1 - top
    assert state.drawn == 7 and state.legal_actions(top) == [3, 5, 6, 9]
    state.apply({top: 3})
    assert state.turn == bottom and state.drawn == 8
    assert state.legal_actions(bottom) == [3, 5, 6, 7, 9]
    play(state, [7, 5, 6, 6, 9, 9])
    # The eighth draw, a 7, fits nowhere: the round is over and scored.
    assert state.session.hand == 1
    score = [e for e in state.events(None) if e["type"] == "score"][0]
    assert score["unplayable"] == 7
    assert score["sides"][top] == [[7], [7], [7], [], [7]]
    assert score["sides"][bottom] == [[], [], [1], [8], [2]]
    points = [0, 0]
    points[top], points[bottom] = 3 + 5 + 6 + 9, 7
    assert score["points"] == points
    assert state.session.totals == points
    # The lower scorer starts the next round.
    assert state.turn == bottom == state.starter


def test_a_rank_already_in_the_column_cannot_be_played_there() -> None:
    deck = [2, 4, 6, 8, 10] + [5, 5, 5]
    state = GAME.new_match(2, seed=2, deck=deck)
    first = state.turn
    state.apply({first: 8})
    # The opponent's 5 blocks the column for both players.
    assert state.legal_actions(1 - first) == [2, 4, 6, 10]
    with pytest.raises(IllegalAction):
        state.apply({1 - first: 8})
    state.apply({1 - first: 2})
    assert state.legal_actions(first) == [4, 6, 10]


def test_ties_split_the_target_rounding_down_even_when_nobody_played() -> None:
    deck = [9, 3, 7, 5, 6] + [7, 7, 7, 7, 1, 3, 2, 4, 7]
    state = GAME.new_match(2, seed=1, deck=deck)
    top = state.turn
    play(state, [3, 5, 6, 9, 3, 6, 3, 6])
    points = [0, 0]
    # 3 for top; 6 tied 7-7 and 7 empty: 3 each; 5 and 9 for bottom.
    points[top] = 3 + 3 + 3
    points[1 - top] = 5 + 3 + 3 + 9
    assert state.session.hands[0]["deltas"] == points
    assert column_points(9, 5, 5) == 4 and column_points(1, 0, 0) == 0
    assert state.starter == top


def test_a_tied_round_passes_the_start_to_the_other_player() -> None:
    deck = [5, 2, 7, 4, 3] + [7, 7, 7, 7, 7]
    state = GAME.new_match(2, seed=1, deck=deck)
    top = state.turn
    play(state, [2, 3, 5, 4])
    assert state.session.hands[0]["deltas"] == [10, 10]
    assert state.starter == 1 - top and state.turn == 1 - top


def test_first_to_the_target_wins() -> None:
    for seed in range(20):
        state = GAME.new_match(2, seed=seed)
        rng = Rng(seed)
        while state.to_act():
            seat = state.turn
            state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
        totals = [0, 0]
        for past in state.session.hands[:-1]:
            totals = [t + d for t, d in zip(totals, past["deltas"])]
            assert max(totals) < 100 or totals[0] == totals[1]
        final = state.session.totals
        assert max(final) >= 100 and final[0] != final[1]
        ranks = [s["rank"] for s in state.result()["seats"]]
        assert ranks[final.index(max(final))] == 1 and sorted(ranks) == [1, 2]
        # The lower scorer of each round starts the next.
        for before, after in zip(state.session.hands, state.session.hands[1:]):
            low = before["deltas"]
            if low[0] != low[1]:
                assert after["starter"] == low.index(min(low))
            else:
                assert after["starter"] == 1 - before["starter"]


def test_options_are_checked() -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3)
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, {"target": 0})
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, {"target": 10**6})
    short = GAME.new_match(2, {"target": 20}, seed=3)
    rng = Rng(1)
    while short.to_act():
        short.apply({short.turn: random_policy({}, short.legal_actions(short.turn), rng)})
    assert max(short.session.totals) >= 20


def test_the_deck_order_is_the_only_secret() -> None:
    state = GAME.new_match(2, seed=4)
    clone = state.perturb_hidden(0, Rng(1))
    assert clone.shoe.cards() != state.shoe.cards()
    assert sorted(clone.shoe.cards()) == sorted(state.shoe.cards())
    assert clone.observation(0) == state.observation(0) == {**state.observation(1), "seat": 0}


def test_cards_are_conserved_and_every_match_ends() -> None:
    for i in range(2000):
        options = {} if i % 10 == 0 else {"target": 30}
        state = GAME.new_match(2, options, seed=i)
        rng = Rng(derive_seed(i, "test"))
        steps = 0
        while state.to_act():
            seat = state.turn
            state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
            steps += 1
            assert steps <= GAME.max_actions
            assert state.conserved() == {"cards": 55}
        state.result()


def test_heuristic_takes_the_lead_where_it_pays_most() -> None:
    deck = [2, 4, 6, 8, 10] + [3, 5, 6]
    state = GAME.new_match(2, seed=1, deck=deck)
    first = state.turn
    play(state, [10, 10])  # first puts a 3 beside the 10, second a 5 beside it
    heuristic = GAME.policies["heuristic"]
    # A 6 overtakes the 5 beside the 10: worth more than any empty column.
    assert heuristic(state.observation(first), state.legal_actions(first), Rng(1)) == 10


def test_heuristic_beats_random_players() -> None:
    heuristic = GAME.policies["heuristic"]
    wins = 0
    for i in range(40):
        state = GAME.new_match(2, seed=i)
        rng = Rng(i)
        hero = i % 2
        while state.to_act():
            seat = state.turn
            policy = heuristic if seat == hero else random_policy
            state.apply({seat: policy(state.observation(seat), state.legal_actions(seat), rng)})
        wins += state.result()["seats"][hero]["rank"] == 1
    assert wins >= 36
