"""Bradley-Terry maximum likelihood: the standard example and the fit's properties."""

import math
import random
from itertools import combinations

import pytest

from tournaments.ratings import bradley_terry as bt
from tournaments.ratings import match

R = bt.PairRecord
# The standard 4-team example: A>B 2, A>D 1, B>A 3, B>C 5, C>B 3, C>D 1, D>A 4, D>C 3.
EXAMPLE = [
    R("A", "B", wins=2, losses=3),
    R("A", "D", wins=1, losses=4),
    R("B", "C", wins=5, losses=3),
    R("C", "D", wins=1, losses=3),
]


def test_reference_strengths_and_elo():
    fit = bt.fit(EXAMPLE)
    assert fit.converged and fit.prior_draws == 0
    strengths = {k: math.exp(v / bt.ELO_PER_NEPER) for k, v in fit.elo.items()}
    assert {k: round(v, 3) for k, v in strengths.items()} == {
        "A": 0.640,
        "B": 1.043,
        "C": 0.660,
        "D": 2.270,
    }
    assert {k: round(v, 1) for k, v in fit.elo.items()} == {
        "A": -77.6,
        "B": 7.4,
        "C": -72.2,
        "D": 142.4,
    }


def test_anchor_moves_the_pool_average_and_nothing_else():
    plain = bt.fit(EXAMPLE)
    anchored = bt.fit(EXAMPLE, anchor=1500)
    assert sum(anchored.elo.values()) / 4 == pytest.approx(1500)
    for key in "ABCD":
        assert anchored.elo[key] - 1500 == pytest.approx(plain.elo[key])
        assert anchored.stdev[key] == pytest.approx(plain.stdev[key])


def test_records_in_either_direction_fit_the_same():
    flipped = [R(r.second, r.first, wins=r.losses, draws=r.draws, losses=r.wins) for r in EXAMPLE]
    assert bt.fit(flipped).elo == pytest.approx(bt.fit(EXAMPLE).elo)


def test_intervals_los_and_covariance_are_consistent():
    fit = bt.fit(EXAMPLE)
    low, high = fit.interval("D")
    assert low < fit.elo["D"] < high
    assert high - low == pytest.approx(2 * match.Z95 * fit.stdev["D"])
    assert fit.los("D", "A") == pytest.approx(100 - fit.los("A", "D"))
    assert fit.los("D", "A") > 80
    assert fit.los("A", "A") == 50
    # Centred ratings: each row of the covariance sums to zero.
    for a in "ABCD":
        assert sum(fit.covariance(a, b) for b in "ABCD") == pytest.approx(0, abs=1e-6)


def test_two_players_fit_the_elo_of_their_record():
    fit = bt.fit([R("x", "y", wins=45, draws=18, losses=37)])
    direct = match.trinomial(wins=45, draws=18, losses=37)
    assert fit.elo["x"] - fit.elo["y"] == pytest.approx(direct.elo)
    assert fit.elo["x"] == pytest.approx(-fit.elo["y"])
    # The interval of the difference is the W-D-L margin, up to the logistic's curve.
    spread = fit.stdev["x"] ** 2 + fit.stdev["y"] ** 2 - 2 * fit.covariance("x", "y")
    assert match.Z95 * math.sqrt(spread) == pytest.approx(direct.margin, rel=0.02)


def test_multi_seat_results_decompose_into_weighted_pairs():
    records = bt.records_from_ranked_results(
        [(["a", "b", "c"], [1, 2, 2]), (["b", "a", "c"], [1, 2, 3])]
    )
    by_pair = {(r.first, r.second): (r.wins, r.draws, r.losses) for r in records}
    assert by_pair[("a", "b")] == (0.5, 0.0, 0.0)
    assert by_pair[("b", "a")] == (0.5, 0.0, 0.0)
    assert by_pair[("b", "c")] == (0.5, 0.5, 0.0)
    assert by_pair[("a", "c")] == (1.0, 0.0, 0.0)
    # Every side of a 3-seat game carries one game's worth of comparisons.
    fit = bt.fit(records)
    assert fit.games == pytest.approx({"a": 2.0, "b": 2.0, "c": 2.0})


def test_a_player_who_won_everything_gets_a_finite_wide_rating():
    records = EXAMPLE + [R("E", "A", wins=3), R("E", "D", wins=2)]
    fit = bt.fit(records)
    assert fit.prior_draws == bt.DEFAULT_PRIOR_DRAWS and fit.converged
    assert all(math.isfinite(v) for v in fit.elo.values())
    assert fit.elo["E"] == max(fit.elo.values())
    assert fit.stdev["E"] == max(fit.stdev.values())
    assert fit.los("E", "D") > 50
    loser = bt.fit(EXAMPLE + [R("F", "B", losses=4)])
    assert fit.converged and loser.elo["F"] == min(loser.elo.values())
    assert math.isfinite(loser.elo["F"])


def test_a_pool_of_two_groups_that_never_met_does_not_blow_up():
    other = [R("P", "Q", wins=6, draws=2, losses=3), R("Q", "S", wins=4, losses=4)]
    fit = bt.fit(EXAMPLE + other, anchor=1500)
    assert fit.converged and fit.prior_draws > 0
    assert sum(fit.elo.values()) / len(fit.elo) == pytest.approx(1500)
    assert all(math.isfinite(v) and math.isfinite(fit.stdev[k]) for k, v in fit.elo.items())
    # Inside each group the order is the record's order.
    assert fit.elo["D"] > fit.elo["B"] > fit.elo["A"]
    assert fit.elo["P"] > fit.elo["Q"]


def test_explicit_prior_shrinks_towards_the_average():
    plain = bt.fit(EXAMPLE)
    shrunk = bt.fit(EXAMPLE, prior_draws=4)
    assert abs(shrunk.elo["D"]) < abs(plain.elo["D"])
    assert shrunk.stdev["D"] < plain.stdev["D"]


def _round_robin(rng, truth, games_per_pair, draw_rate=0.2):
    records = []
    for a, b in combinations(truth, 2):
        score = match.score_from_elo(truth[a] - truth[b])
        win = score - draw_rate / 2
        wins = draws = losses = 0
        for _ in range(games_per_pair):
            roll = rng.random()
            if roll < win:
                wins += 1
            elif roll < win + draw_rate:
                draws += 1
            else:
                losses += 1
        records.append(R(a, b, wins=wins, draws=draws, losses=losses))
    return records


TRUTH = {f"p{i}": -210 + 60 * i for i in range(8)}  # mean 0


def test_fit_recovers_known_strengths_within_its_intervals():
    rng = random.Random(17)
    inside = total = 0
    for _ in range(25):
        fit = bt.fit(_round_robin(rng, TRUTH, 40))
        for key, true in TRUTH.items():
            low, high = fit.interval(key)
            inside += low <= true <= high
            total += 1
    # 95% intervals, draws included (200 checks: 0.95 give or take 0.015).
    assert 0.91 <= inside / total <= 0.99


def test_more_games_narrow_the_intervals():
    rng = random.Random(3)
    few = bt.fit(_round_robin(rng, TRUTH, 10))
    many = bt.fit(_round_robin(rng, TRUTH, 160))
    for key in TRUTH:
        assert many.stdev[key] < few.stdev[key] / 3


def test_large_pool_approximation_is_close_to_the_exact_intervals():
    rng = random.Random(9)
    records = _round_robin(rng, TRUTH, 40)
    exact = bt.fit(records)
    approximate = bt.fit(records, exact_limit=0)
    assert exact.exact_covariance and not approximate.exact_covariance
    assert approximate.elo == pytest.approx(exact.elo)
    for key in TRUTH:
        assert approximate.stdev[key] == pytest.approx(exact.stdev[key], rel=0.15)


def test_a_warm_start_ends_at_the_same_fit_in_fewer_sweeps():
    rng = random.Random(11)
    records = _round_robin(rng, TRUTH, 40)
    cold = bt.fit(records)
    more = records + _round_robin(rng, TRUTH, 2)
    warm = bt.fit(more, initial_elo=cold.elo)
    again = bt.fit(more)
    assert warm.elo == pytest.approx(again.elo, abs=1e-5)
    assert warm.iterations < again.iterations
    # A newcomer without a starting value starts at the average.
    newcomer = bt.fit(more + [R("new", "p3", wins=2, losses=1)], initial_elo=cold.elo)
    assert newcomer.converged and math.isfinite(newcomer.elo["new"])
