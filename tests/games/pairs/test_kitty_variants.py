"""Kitty's variations: player counts, partners, options, gambling and the long game
(docs/rules/pairs-kitty.md)."""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.counting import most_of_each_rank as hand_points
from games.pairs.kitty import GAME, team_rule
from games.policies import play_out, random_policy
from games.rng import Rng
from tests.support.kitty_deal import new, pass_highest

# -- players, partners, options ----------------------------------------------------------


@pytest.mark.parametrize("players", [3, 5])
def test_partners_needs_four_or_six_players(players) -> None:
    with pytest.raises(InvalidOptions, match="partners needs 4 or 6 players"):
        GAME.new_match(players, {"partners": True})
    assert GAME.player_counts({"partners": True}) == [4, 6]
    assert GAME.player_counts() == [3, 4, 5, 6]


def test_target_only_with_the_long_game_and_bad_values_refused() -> None:
    with pytest.raises(InvalidOptions, match="long game"):
        GAME.new_match(4, {"target": 50})
    with pytest.raises(InvalidOptions):
        GAME.new_match(4, {"long_game": True, "target": 0})
    with pytest.raises(InvalidOptions, match="at most 1000"):
        GAME.new_match(4, {"long_game": True, "target": 1001})
    with pytest.raises(InvalidOptions):
        GAME.new_match(4, {"soft": "yes"})
    with pytest.raises(InvalidOptions):
        GAME.new_match(7)


def test_partners_sit_opposite_and_teams_are_reported() -> None:
    assert GAME.teams(4, {"partners": True}) == [[0, 2], [1, 3]]
    assert GAME.teams(6, {"partners": True}) == [[0, 3], [1, 4], [2, 5]]
    assert GAME.teams(4) == [] and team_rule(4, {"partners": False}) == []


def test_partners_one_must_give_to_another_team() -> None:
    state, _ = new(fixed={0: [1, 7], 1: [2, 9], 2: [5, 9], 3: [4, 9]}, options={"partners": True})
    pass_highest(state)
    state.apply({0: 1, 1: 2, 2: 5, 3: 4})
    assert [a["to"] for a in state.legal_actions(0)] == [1, 3]
    with pytest.raises(IllegalAction):
        state.apply({0: {"card": 8, "to": 2}})


def test_six_partners_the_one_gives_to_either_other_team() -> None:
    fixed = {0: [1, 7], 1: [2, 9], 2: [5, 9], 3: [4, 9], 4: [6, 9], 5: [3, 9]}
    state, _ = new(6, fixed=fixed, options={"partners": True})
    pass_highest(state)
    state.apply({0: 1, 1: 2, 2: 5, 3: 4, 4: 6, 5: 3})
    # Seat 3 is seat 0's partner at six (0-3, 1-4, 2-5): any other seat may receive.
    assert [a["to"] for a in state.legal_actions(0)] == [1, 2, 4, 5]
    with pytest.raises(IllegalAction):
        state.apply({0: {"card": 8, "to": 3}})
    state.apply({0: {"card": 8, "to": 5}})
    assert [(e["seat"], e["how"]) for e in state.events(None) if e["type"] == "take"] == [
        (5, "gift")
    ]


def test_partners_score_their_combined_hands() -> None:
    state, _ = new(options={"partners": True}, seed=8)
    play_out(state, [random_policy] * 4, Rng(2))
    counts = [[0] * 11, [0] * 11]
    for seat, hand in enumerate(state.hands):
        for card in hand:
            counts[seat % 2][card] += 1
    team = hand_points(counts)
    result = state.result()
    assert [s["score"] for s in result["seats"]] == [team[0], team[1], team[0], team[1]]
    assert result["teams"] == [[0, 2], [1, 3]]
    assert result["seats"][0]["rank"] == result["seats"][2]["rank"]


# -- gambling and the long game ------------------------------------------------------------


def test_gambling_example_played_out() -> None:
    # The book: a 19 collects 4 from a 15 and 6 from a 13. A 3-player hand built to end
    # 19-15-13: every round all three pass a card of one rank left and bid that rank, so
    # the bids tie, nobody takes the target and each hand loses one card of that rank.
    hands = {
        0: [3, 5, 6, 6, 7, 7, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10],
        1: [3, 5, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 10, 10, 10],
        2: [1, 2, 2, 3, 4, 4, 4, 4, 5, 6, 6, 6, 7, 8, 9, 10],
    }
    state, dealt = new(3, fixed=hands, options={"gambling": True}, kitty=[5, 5, 10, 10, 9, 9, 8])
    assert dealt == hands
    for rank in [3, 5, 10, 9, 8, 7, 6]:
        state.apply({seat: rank for seat in range(3)})  # pass
        state.apply({seat: rank for seat in range(3)})  # bid: all tied
    assert state.is_over() and not any(e["type"] == "take" for e in state.events(None))
    # Nobody holds a 3 or a 5. Seat 0 has the most 10s and 9s (19), seat 1 the most 8s
    # and 7s (15), seat 2 every 1, 2 and 4 and the most 6s (13).
    assert state.hands == [
        [6, 7, 8, 9, 9, 9, 10, 10, 10],
        [7, 7, 7, 8, 8, 8, 9, 10, 10],
        [1, 2, 2, 4, 4, 4, 4, 6, 6],
    ]
    seats = state.result()["seats"]
    assert [s["points"] for s in seats] == [19, 15, 13]
    assert [s["chips"] for s in seats] == [4 + 6, -4, -6]
    assert [s["score"] for s in seats] == [10, -4, -6] and state.pot.chips == 0


def test_gambling_tied_winners_split_and_odd_chips_wait_in_the_pot() -> None:
    state = GAME.new_match(5, {"gambling": True}, seed=1)
    assert state._payout([20, 20, 17, 20, 19]) == [1, 1, -3, 1, -1]
    assert state.pot.chips == 1 and sum(state.chips) + state.pot.chips == 0


def test_gambling_match_scores_chips() -> None:
    state = GAME.new_match(4, {"gambling": True}, seed=6)
    play_out(state, [random_policy] * 4, Rng(6))
    points = state.session.hands[0]["deltas"]
    top = max(points)
    result = state.result()["seats"]
    for seat, entry in enumerate(result):
        if points[seat] < top:
            assert entry["score"] == points[seat] - top
        assert (entry["rank"] == 1) == (points[seat] == top)


@pytest.mark.parametrize("options", [{"long_game": True}, {"long_game": True, "target": 40}])
def test_long_game_plays_hands_until_someone_reaches_the_target(options) -> None:
    state = GAME.new_match(4, options, seed=12)
    target = options.get("target", 100)
    play_out(state, [random_policy] * 4, Rng(12))
    totals = [0] * 4
    for hand in state.session.hands[:-1]:
        totals = [t + d for t, d in zip(totals, hand["deltas"])]
        assert max(totals) < target or sorted(totals)[-1] == sorted(totals)[-2]
    final = state.session.totals
    assert max(final) >= target and sorted(final)[-1] > sorted(final)[-2]
    assert len(state.session.hands) > 1
    assert [s["score"] for s in state.result()["seats"]] == final
    # Every hand is dealt from its own seed and the deal moves left.
    deals = [e for e in state.events(None) if e["type"] == "deal"]
    assert [e["dealer"] for e in deals] == [h % 4 for h in range(len(deals))]
