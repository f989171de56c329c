"""Glicko-2: Glickman's worked example and the idle-period rule."""

import pytest

from tournaments.ratings.glicko2 import Glicko2Rating, update


def test_paper_example():
    # 1500 / 200 / 0.06 beats 1400/30, loses to 1550/100 and 1700/300 -> 1464.06 / 151.52 / 0.05999.
    player = Glicko2Rating(1500, 200, 0.06)
    after = update(
        player,
        [
            (Glicko2Rating(1400, 30), 1.0),
            (Glicko2Rating(1550, 100), 0.0),
            (Glicko2Rating(1700, 300), 0.0),
        ],
        tau=0.5,
    )
    # The paper rounds mu' to -0.2069 before converting back, hence 1464.06;
    # unrounded arithmetic gives 1464.0507, within 0.01 of the printed figure.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.deviation, 2) == 151.52
    # 0.0599960: the paper prints it cut to five decimals.
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_an_idle_period_only_widens_the_deviation():
    after = update(Glicko2Rating(1500, 200, 0.06), [])
    assert after.rating == 1500 and after.volatility == 0.06
    assert after.deviation == pytest.approx((200**2 + (0.06 * 173.7178) ** 2) ** 0.5, rel=1e-5)


def test_a_draw_between_equals_keeps_the_rating_and_narrows_the_deviation():
    after = update(Glicko2Rating(1500, 200, 0.06), [(Glicko2Rating(1500, 200, 0.06), 0.5)])
    assert after.rating == pytest.approx(1500)
    assert after.deviation < 200
