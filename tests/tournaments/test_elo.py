import pytest

from tournaments.ratings import elo


def result(*sides_and_ranks):
    return elo.RatedResult(
        sides=[list(s) for s, _ in sides_and_ranks], ranks=[r for _, r in sides_and_ranks]
    )


def test_equal_ratings_two_players_winner_gains_half_k():
    ratings = {"a": 1500.0, "b": 1500.0}
    elo.apply(ratings, result((["a"], 1), (["b"], 2)), k=24, start=1500)
    assert ratings == {"a": 1512.0, "b": 1488.0}


def test_standard_elo_expected_score_for_400_point_gap():
    # A 400-point favourite is expected to score 10/11.
    assert elo.expected(1900, 1500) == pytest.approx(10 / 11)
    ratings = {"fav": 1900.0, "dog": 1500.0}
    elo.apply(ratings, result((["fav"], 2), (["dog"], 1)), k=24, start=1500)
    assert ratings["dog"] == pytest.approx(1500 + 24 * (1 - 1 / 11))
    assert ratings["fav"] == pytest.approx(1900 - 24 * (10 / 11))


def test_draw_between_equals_changes_nothing():
    ratings = {"a": 1500.0, "b": 1500.0}
    elo.apply(ratings, result((["a"], 1), (["b"], 1)), k=24, start=1500)
    assert ratings == {"a": 1500.0, "b": 1500.0}


def test_multiplayer_is_pairwise_averaged_over_opponents():
    ratings = {}
    moved = elo.apply(
        ratings, result((["a"], 1), (["b"], 2), (["c"], 2), (["d"], 4)), k=24, start=1500
    )
    # All equal: expected 0.5 against each. a beats all three -> +12; b and c
    # each lose to a, tie each other and beat d (1.5 of 3) -> 0; d loses all -> -12.
    assert moved["a"][1] == pytest.approx(1512)
    assert moved["b"][1] == pytest.approx(1500)
    assert moved["c"][1] == pytest.approx(1500)
    assert moved["d"][1] == pytest.approx(1488)
    assert sum(ratings.values()) == pytest.approx(4 * 1500)


def test_teams_rated_at_their_mean_and_move_together():
    ratings = {"a": 1600.0, "b": 1400.0, "c": 1500.0, "d": 1500.0}
    elo.apply(ratings, result((["a", "b"], 1), (["c", "d"], 2)), k=24, start=1500)
    assert ratings["a"] == pytest.approx(1612) and ratings["b"] == pytest.approx(1412)
    assert ratings["c"] == pytest.approx(1488) and ratings["d"] == pytest.approx(1488)


def test_recompute_equals_live_fold():
    results = [
        result((["a"], 1), (["b"], 2)),
        result((["b"], 1), (["c"], 2)),
        result((["a"], 2), (["c"], 1), (["b"], 3)),
        result((["a"], 1), (["b"], 1)),
    ]
    live = {}
    for r in results:
        elo.apply(live, r, k=24, start=1500)
    assert elo.recompute(results, k=24, start=1500) == live
    # Order matters: the ledger order is part of the definition.
    assert elo.recompute(list(reversed(results)), k=24, start=1500) != live


def test_sides_from_match_result_uses_teams_and_faulted_ranks():
    match_result = {
        "seats": [{"rank": 2}, {"rank": 1}, {"rank": 2}, {"rank": 1}],
        "teams": [[0, 2], [1, 3]],
    }
    rated = elo.sides_from_match_result(match_result, ["v0", "v1", "v2", "v3"])
    assert rated.sides == [["v0", "v2"], ["v1", "v3"]]
    assert rated.ranks == [2, 1]
