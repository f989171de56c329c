"""Match statistics: the reference vectors (cutechess-cli) and their properties."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments import stats
from tournaments.ratings import match


def test_reference_vector_near_even_record():
    # W 99, L 97, D 104 -> Elo +2.3 +- 31.9, LOS 55.7 %.
    result = match.trinomial(wins=99, draws=104, losses=97)
    assert round(result.elo, 1) == 2.3
    assert round(result.margin, 1) == 31.9
    assert round(result.los, 1) == 55.7
    assert result.games == 300


def test_reference_vector_decisive_record():
    # W 45, L 37, D 18 -> Elo +27.9 +- 62.5, LOS 81.2 %.
    result = match.trinomial(wins=45, draws=18, losses=37)
    assert round(result.elo, 1) == 27.9
    assert round(result.margin, 1) == 62.5
    assert round(result.los, 1) == 81.2


def test_fixed_names_give_the_reference_vectors():
    elo, margin = stats.elo_margin(99, 97, 104)  # wins, losses, draws
    assert (round(elo, 1), round(margin, 1)) == (2.3, 31.9)
    elo, margin = stats.elo_margin(45, 37, 18)
    assert (round(elo, 1), round(margin, 1)) == (27.9, 62.5)
    assert round(stats.los(99, 97), 1) == 55.7
    assert round(stats.los(45, 37), 1) == 81.2


def test_margin_with_the_rounded_quantile_matches_to_the_printed_digit():
    assert round(match.trinomial(wins=99, draws=104, losses=97, z=1.96).margin, 1) == 31.9


@pytest.mark.parametrize("wins,draws,losses", [(99, 104, 97), (45, 18, 37), (3, 0, 11)])
def test_swapping_sides_negates_elo_and_mirrors_los(wins, draws, losses):
    forward = match.trinomial(wins=wins, draws=draws, losses=losses)
    backward = match.trinomial(wins=losses, draws=draws, losses=wins)
    assert backward.elo == pytest.approx(-forward.elo)
    assert backward.margin == pytest.approx(forward.margin)
    assert backward.los == pytest.approx(100 - forward.los)
    assert (backward.elo_low, backward.elo_high) == pytest.approx(
        (-forward.elo_high, -forward.elo_low)
    )


def test_margin_shrinks_as_games_grow():
    margins = [match.trinomial(wins=45 * k, draws=18 * k, losses=37 * k).margin for k in (1, 4, 16)]
    assert margins[0] > margins[1] > margins[2]
    # Four times the games, about half the margin.
    assert margins[1] / margins[0] == pytest.approx(0.5, abs=0.02)


def test_even_record_and_no_games_are_neutral():
    even = match.trinomial(wins=10, draws=5, losses=10)
    assert even.elo == 0 and even.los == 50
    empty = match.trinomial(wins=0, draws=0, losses=0)
    assert empty.games == 0 and empty.los == 50 and empty.margin == float("inf")


def test_perfect_record_has_unbounded_elo_not_an_error():
    result = match.trinomial(wins=5, draws=0, losses=0)
    assert result.elo == float("inf") and result.margin == float("inf")
    assert result.los > 98


def _pairs(rng, count, deal_luck, edge):
    """The side's two game scores per pair of duplicate games.

    With probability ``deal_luck`` the deal decides both games: whoever holds the
    good hand wins, so the side wins one and loses the other. Otherwise each game is
    independent and the side wins with probability ``edge``.
    """
    pairs = []
    for _ in range(count):
        if rng.random() < deal_luck:
            pairs.append((1.0, 0.0) if rng.random() < 0.5 else (0.0, 1.0))
        else:
            pairs.append(tuple(1.0 if rng.random() < edge else 0.0 for _ in range(2)))
    return pairs


def test_pentanomial_counts_pairs_by_their_score():
    counts = match.pentanomial_counts([(1, 1), (1, 0.5), (0.5, 0.5), (0, 1), (0, 0.5), (0, 0)])
    assert counts == [1, 1, 2, 1, 1]


def test_pentanomial_has_the_same_score_but_smaller_error_on_correlated_pairs():
    rng = random.Random(17)
    pairs = _pairs(rng, 400, deal_luck=0.7, edge=0.6)
    games = [score for pair in pairs for score in pair]
    single = match.trinomial(**dict(zip(("wins", "draws", "losses"), match.wdl(games))))
    paired = match.pentanomial(match.pentanomial_counts(pairs))
    assert paired.games == single.games == 800
    assert paired.score == pytest.approx(single.score)
    assert paired.elo == pytest.approx(single.elo)
    assert paired.stdev < single.stdev * 0.7
    assert paired.margin < single.margin


def test_pentanomial_agrees_with_trinomial_on_independent_pairs():
    rng = random.Random(5)
    pairs = _pairs(rng, 2000, deal_luck=0.0, edge=0.55)
    games = [score for pair in pairs for score in pair]
    single = match.trinomial(**dict(zip(("wins", "draws", "losses"), match.wdl(games))))
    paired = match.pentanomial(match.pentanomial_counts(pairs))
    assert paired.stdev == pytest.approx(single.stdev, rel=0.1)
    assert paired.los == pytest.approx(single.los, abs=3)


def test_pentanomial_swapping_sides_mirrors():
    counts = [3, 10, 40, 20, 7]
    forward = match.pentanomial(counts)
    backward = match.pentanomial(counts[::-1])
    assert backward.elo == pytest.approx(-forward.elo)
    assert backward.margin == pytest.approx(forward.margin)
    assert backward.los == pytest.approx(100 - forward.los)


def test_pentanomial_needs_five_counts():
    with pytest.raises(ValueError):
        match.pentanomial([1, 2, 3])


def test_multi_seat_results_compare_the_two_by_rank():
    results = [
        (["a", "b", "c", "d"], [1, 3, 2, 4]),  # a ahead of b
        (["c", "b", "a", "d"], [1, 2, 2, 4]),  # a and b share a rank
        (["b", "c", "d", "a"], [1, 2, 3, 4]),  # b ahead of a
        (["c", "d", "a", "e"], [1, 2, 3, 4]),  # b absent: no comparison
    ]
    scores = match.head_to_head_scores(results, "a", "b")
    assert scores == [1.0, 0.5, 0.0]
    assert match.wdl(scores) == (1, 1, 1)
    assert match.head_to_head_scores(results, "b", "a") == [0.0, 0.5, 1.0]


def test_the_statistics_import_without_django():
    code = (
        "import sys; import tournaments.stats, tournaments.ratings.match, "
        "tournaments.ratings.sprt, tournaments.ratings.bradley_terry, "
        "tournaments.ratings.glicko2, tournaments.ratings.trueskill, "
        "tournaments.ratings.plackett_luce; "
        "assert not [m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework')]"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True, env={"PATH": ""})
