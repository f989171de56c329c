"""Port: the rule text's scoring example on a forced deck, and the rules around
it (tie for low, busts, locks, the race to 21 and its tie-break rounds).

Seat 0 deals the first round, so its deal goes seat 1, 2, ..., then seat 0;
the dealer moves one seat left every round. Every forced deck starts with
the five burned cards.
"""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.port import GAME, round_points
from games.policies import random_policy
from games.rng import Rng

BURN = [10, 10, 10, 10, 10]


def new(players: int, *cards: int, **options):
    return GAME.new_match(players=players, options=options, seed=5, deck=[*BURN, *cards])


def play(state, *actions: str) -> None:
    for action in actions:
        (seat,) = state.to_act()
        state.apply({seat: action})


def events_of(state, kind: str) -> list[dict]:
    return [event for event in state.events(None) if event["type"] == kind]


def test_the_rule_texts_scoring_example() -> None:
    # Five players finish on 23, 22, 22, 17 and a bust: 5, 4, 4, 2 and 0 points.
    deal = [6, 7, 8, 9, 5]  # seats 1, 2, 3, 4, then the dealer 0
    hits = [10, 9, 10, 9, 9, 8, 7, 5]
    state = new(5, *deal, *hits)
    assert state.to_act() == (0,), "seat 0's 5 is the low card"
    play(state, "hit", "hit", "hit", "hit", "hit")  # seat 4 pairs its 9
    assert state.observation(None)["status"] == ["in", "in", "in", "in", "bust"]
    play(state, "hit", "hit", "hit", "lock")  # seat 3 locks on 17
    assert state.to_act() == (0,), "the busted seat 4 is skipped"
    play(state, "lock", "lock", "lock")
    (summary,) = events_of(state, "round_over")
    assert summary["totals"][:4] == [23, 22, 22, 17]
    assert summary["busted"] == [4]
    assert summary["points"] == [5, 4, 4, 2, 0]
    assert state.observation(None)["scores"] == [5, 4, 4, 2, 0]
    # A new round is dealt at once, by the next dealer.
    observation = state.observation(None)
    assert observation["round"] == 1 and observation["dealer"] == 1
    assert all(len(stack) >= 1 for stack in observation["stacks"])


@pytest.mark.parametrize(
    ("totals", "points"),
    [
        ([23, 22, 22, 17, None], [5, 4, 4, 2, 0]),
        ([9, 14, 3], [2, 3, 1]),  # nobody busts: the lowest stack still scores 1
        ([12, 12], [2, 2]),  # a tie takes the higher amount
        ([None, None, 5], [0, 0, 3]),
        ([None, None], [0, 0]),
    ],
)
def test_round_points(totals: list, points: list[int]) -> None:
    assert round_points(totals) == points


def test_tie_for_low_is_broken_as_in_pairs() -> None:
    # Seats 1 and 2 tie on 4; seat 1's tie-breaker 4 pairs and is replaced by an 8,
    # seat 2 gets a 6: seat 2 starts, and the tie-breakers stay in the stacks.
    state = new(3, 4, 4, 9, 4, 8, 6)
    observation = state.observation(None)
    assert observation["stacks"] == [[9], [4, 8], [4, 6]]
    assert observation["totals"] == [9, 12, 10]
    assert state.to_act() == (2,)
    assert observation["seen_discards"] == [4]


def test_a_bust_scores_nothing_and_its_cards_leave_play_face_up() -> None:
    state = new(2, 7, 3, 3)  # seat 1: 7, seat 0: 3 starts and pairs it
    play(state, "hit")
    observation = state.observation(None)
    assert observation["status"] == ["bust", "in"]
    assert observation["stacks"] == [[], [7]]
    assert observation["seen_discards"] == [3, 3]
    assert events_of(state, "bust") == [{"type": "bust", "seat": 0, "card": 3, "stack": [3]}]
    # Seat 1 plays on alone: locking ends the round, even on a single card.
    assert state.to_act() == (1,)
    play(state, "lock")
    assert state.observation(None)["scores"] == [0, 2]


def test_a_locked_stack_gets_no_more_cards_and_the_others_play_on() -> None:
    state = new(3, 2, 9, 5, 8, 6, 7, 3)  # seats 1, 2, 0 get 2, 9, 5: seat 1 starts
    play(state, "lock")  # seat 1 on 2
    play(state, "hit")  # seat 2: 8
    play(state, "hit")  # seat 0: 6
    assert state.to_act() == (2,), "the locked seat 1 is skipped"
    play(state, "hit", "lock")  # seat 2: 7 (24), seat 0 locks on 11
    assert state.observation(None)["stacks"] == [[5, 6], [2], [9, 8, 7]]
    play(state, "hit", "lock")  # seat 2: 3 (27), then locks
    (summary,) = events_of(state, "round_over")
    assert summary["points"] == [2, 1, 3]


def test_leaders_tied_at_the_target_play_one_more_round_alone() -> None:
    # target 3, three players. Round 0: seats 0 and 1 tie on 11 (3 points each),
    # seat 2 scores 1. Round 1 (dealt by seat 1) is for seats 0 and 1 only.
    first = [5, 6, 4, 7, 6, 2]  # deal: seat 1: 5, seat 2: 6, seat 0: 4; then hits
    second = [9, 3, 3]  # deal: seat 0: 9, seat 1: 3; seat 1 hits a 3
    state = new(3, *first, *second, target=3)
    play(state, "hit", "hit", "hit", "lock", "lock", "lock")
    assert state.observation(None)["scores"] == [3, 3, 1]
    assert events_of(state, "tie") == [{"type": "tie", "seats": [0, 1], "score": 3}]
    observation = state.observation(None)
    assert observation["status"] == ["in", "in", "out"]
    assert observation["stacks"] == [[9], [3], []]
    assert state.to_act() == (1,)
    play(state, "hit")  # a pair of 3s: seat 1 busts
    assert state.to_act() == (0,)
    play(state, "lock")
    # Two players in the round: the top stack scores 2, not 3.
    assert events_of(state, "round_over")[-1]["points"] == [2, 0, 0]
    assert state.is_over()
    result = state.result()
    assert result["winner"] == 0
    assert [seat["score"] for seat in result["seats"]] == [5, 3, 1]
    assert [seat["rank"] for seat in result["seats"]] == [1, 2, 3]


@pytest.mark.parametrize(("before", "over"), [([19, 19], True), ([18, 19], False)])
def test_the_first_to_21_wins(before: list[int], over: bool) -> None:
    state = new(2, 4, 9)  # seat 1: 4, seat 0: 9; seat 1 starts
    state.scores = list(before)
    play(state, "lock", "lock")  # 9 beats 4: seat 0 scores 2, seat 1 scores 1
    assert state.observation(None)["scores"] == [before[0] + 2, before[1] + 1]
    assert state.is_over() is over
    if over:
        assert state.result()["winner"] == 0


def test_a_tie_at_21_plays_one_more_round() -> None:
    # Round 0: seat 1 gets 5, seat 0 gets 3 and hits a 2: both lock on 5 and
    # take 2 points, reaching 21 together. Round 1 (seat 1 deals): 7 and 9.
    state = new(2, 5, 3, 2, 7, 9)
    state.scores = [19, 19]
    play(state, "hit", "lock", "lock")
    assert not state.is_over()
    assert events_of(state, "tie") == [{"type": "tie", "seats": [0, 1], "score": 21}]
    assert state.observation(None)["stacks"] == [[7], [9]]
    play(state, "lock", "lock")
    assert state.is_over() and state.result()["winner"] == 1
    assert state.observation(None)["scores"] == [22, 23]


def test_whole_matches_end_with_one_leader_at_the_target() -> None:
    shuffles = 0
    for players in range(2, 8):
        for seed in range(20):
            state = GAME.new_match(players=players, seed=seed)
            rng = Rng(seed)
            while not state.is_over():
                (seat,) = state.to_act()
                state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
                assert state.conserved() == {"cards": 55}
            scores = [seat["score"] for seat in state.result()["seats"]]
            assert max(scores) >= 21
            assert scores.count(max(scores)) == 1
            assert state.result()["seats"][state.result()["winner"]]["rank"] == 1
            # Every reshuffle burns five again (or fewer when that is all there is).
            for event in events_of(state, "shuffle"):
                shuffles += 1
                assert 0 <= event["burned"] <= 5
    assert shuffles > 0, "long matches go through the deck"


def test_observation_counts_the_cards_nobody_has_seen() -> None:
    state = new(2, 7, 3, 8)
    # Seen: the 7 and the 3 dealt (the burns are hidden).
    assert state.observation(1)["unseen"] == [1, 2, 2, 4, 5, 6, 6, 8, 9, 10]
    play(state, "hit")  # seat 0: 8
    assert state.observation(1)["unseen"][7] == 7
    assert state.observation(0)["draw_pile"] == 55 - 5 - 3
    assert state.observation(0)["burned"] == 5


def test_wrong_seat_and_bad_actions_change_nothing() -> None:
    state = new(2, 7, 3)
    record = state.to_json()
    with pytest.raises(IllegalAction):
        state.apply({1: "lock"})
    for bad in ("fold", "LOCK", 1, None, ["hit"]):
        with pytest.raises(IllegalAction):
            state.apply({0: bad})
    assert state.to_json() == record
    assert state.default_action(0) == "lock"


@pytest.mark.parametrize("options", [{"target": 0}, {"target": 201}, {"target": "21"}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(players=3, options=options)


def test_player_counts() -> None:
    for players in (1, 8):
        with pytest.raises(InvalidOptions):
            GAME.new_match(players=players)


def test_heuristic_locks_when_alone_and_ahead_and_chases_when_behind() -> None:
    heuristic = GAME.policies["heuristic"]
    state = new(2, 2, 9, 10)  # seat 1: 2 starts, seat 0: 9
    play(state, "hit")  # seat 1: 2 + 10 = 12
    play(state, "lock")  # seat 0 locks on 9
    observation = state.observation(1)
    assert heuristic(observation, state.legal_actions(1), Rng(1)) == "lock"
    state = new(2, 2, 9)
    play(state, "lock")  # seat 1 locks on 2; seat 0 is alone and ahead
    assert heuristic(state.observation(0), state.legal_actions(0), Rng(1)) == "lock"
    state = new(2, 9, 2, 3)  # seat 1: 9, seat 0: 2 starts
    play(state, "hit")  # seat 0: 2 + 3 = 5
    play(state, "lock")  # seat 1 locks on 9; seat 0 is alone and behind
    assert heuristic(state.observation(0), state.legal_actions(0), Rng(1)) == "hit"
