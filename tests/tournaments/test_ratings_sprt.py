"""SPRT: fishtest's bounds and LLR vectors, and error rates on simulated versions."""

import random

import pytest

from tournaments import stats
from tournaments.ratings import match, sprt


def test_bounds_for_five_percent_errors():
    lower, upper = sprt.bounds(alpha=0.05, beta=0.05)
    assert round(lower, 3) == -2.944
    assert round(upper, 3) == 2.944


def test_reference_llr_maximum_likelihood_method():
    # W 880, L 759, D 1863, elo0 0, elo1 5 -> LLR 2.947, accept H1 (just).
    llr = sprt.llr_trinomial(wins=880, draws=1863, losses=759, elo0=0, elo1=5)
    assert round(llr, 3) == 2.947
    assert sprt.verdict(llr) is sprt.Verdict.H1
    assert round(stats.sprt_llr(880, 759, 1863, 0, 5), 3) == 2.947


def test_reference_llr_normal_approximation():
    llr = sprt.llr_trinomial(wins=880, draws=1863, losses=759, elo0=0, elo1=5, method="normal")
    assert round(llr, 3) == 2.953


def test_state_reports_llr_bounds_and_verdict():
    state = sprt.sprt_trinomial(wins=880, draws=1863, losses=759, elo0=0, elo1=5)
    assert (round(state.lower, 3), round(state.upper, 3)) == (-2.944, 2.944)
    assert state.verdict is sprt.Verdict.H1
    early = sprt.sprt_pentanomial([1, 4, 10, 5, 2], elo0=0, elo1=5)
    assert early.verdict is sprt.Verdict.CONTINUE
    assert early.lower < early.llr < early.upper


def test_verdicts_at_and_beyond_the_bounds():
    lower, upper = sprt.bounds()
    assert sprt.verdict(upper) is sprt.Verdict.H1
    assert sprt.verdict(lower) is sprt.Verdict.H0
    assert sprt.verdict(0.0) is sprt.Verdict.CONTINUE
    assert sprt.verdict(-10.0) is sprt.Verdict.H0


def test_swapping_hypotheses_negates_the_llr():
    for method in ("mle", "normal"):
        forward = sprt.llr_pentanomial([5, 20, 50, 30, 8], 0, 5, method=method)
        backward = sprt.llr_pentanomial([5, 20, 50, 30, 8], 5, 0, method=method)
        assert backward == pytest.approx(-forward)


def test_no_games_is_no_evidence_and_empty_buckets_are_defined():
    assert sprt.llr_pentanomial([0, 0, 0, 0, 0], 0, 5) == 0.0
    assert sprt.llr_trinomial(wins=0, draws=0, losses=0, elo0=0, elo1=5) == 0.0
    # No draws at all yet: still a finite LLR.
    assert -10 < sprt.llr_trinomial(wins=12, draws=0, losses=9, elo0=0, elo1=5) < 10


def test_maximum_likelihood_and_normal_methods_agree_on_pairs():
    counts = [40, 210, 520, 260, 55]
    mle = sprt.llr_pentanomial(counts, 0, 5)
    normal = sprt.llr_pentanomial(counts, 0, 5, method="normal")
    assert mle == pytest.approx(normal, abs=0.05)


def test_constrained_fit_has_the_asked_mean():
    fitted = sprt.mle_with_mean([0.1, 0.3, 0.6], sprt.TRINOMIAL_SCORES, 0.55)
    assert sum(fitted) == pytest.approx(1.0)
    assert sum(p * a for p, a in zip(fitted, sprt.TRINOMIAL_SCORES)) == pytest.approx(0.55)


def _run(rng, true_elo, elo0, elo1, draw_rate, deal_luck, cap_pairs):
    """Play pairs of duplicate games until the SPRT decides; return the verdict.

    A share ``deal_luck`` of deals decide both games (one win each); the other
    games are independent with the win rate that keeps the side's expected score
    at the one ``true_elo`` gives.
    """
    target = match.score_from_elo(true_elo)
    other_games = (target - 0.5 * deal_luck) / (1 - deal_luck)
    win = other_games - draw_rate / 2
    counts = [0] * 5
    for played in range(1, cap_pairs + 1):
        if rng.random() < deal_luck:
            counts[2] += 1
        else:
            pair = 0.0
            for _ in range(2):
                roll = rng.random()
                pair += 1.0 if roll < win else (0.5 if roll < win + draw_rate else 0.0)
            counts[round(2 * pair)] += 1
        if played % 8 == 0:
            verdict = sprt.verdict(sprt.llr_pentanomial(counts, elo0, elo1))
            if verdict is not sprt.Verdict.CONTINUE:
                return verdict
    return sprt.Verdict.CONTINUE


def test_error_rates_on_simulated_versions_are_about_the_promised_five_percent():
    rng = random.Random(2026)
    runs = 150
    equal = [_run(rng, 0, 0, 30, 0.3, 0.4, 4000) for _ in range(runs)]
    stronger = [_run(rng, 30, 0, 30, 0.3, 0.4, 4000) for _ in range(runs)]
    assert sprt.Verdict.CONTINUE not in equal + stronger
    # 5% of 150 is 7.5, give or take 2.7; twice that would mean a broken test.
    assert equal.count(sprt.Verdict.H1) <= 15
    assert stronger.count(sprt.Verdict.H0) <= 15
    # And it does decide: most equal versions are rejected, most stronger accepted.
    assert equal.count(sprt.Verdict.H0) >= 0.85 * runs
    assert stronger.count(sprt.Verdict.H1) >= 0.85 * runs
