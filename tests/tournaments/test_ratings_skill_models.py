"""TrueSkill and OpenSkill's Plackett-Luce: the reference page's vectors."""

import pytest

from tournaments.ratings import plackett_luce, trueskill
from tournaments.ratings.plackett_luce import PlackettLuceRating
from tournaments.ratings.trueskill import TrueSkillRating


def _rounded(ratings, digits=3):
    return [(round(r.mu, digits), round(r.sigma, digits)) for r in ratings]


def test_trueskill_one_on_one_win():
    after = trueskill.rate([TrueSkillRating(), TrueSkillRating()], [1, 2])
    assert _rounded(after) == [(29.396, 7.171), (20.604, 7.171)]


def test_trueskill_one_on_one_draw():
    after = trueskill.rate([TrueSkillRating(), TrueSkillRating()], [1, 1])
    assert _rounded(after) == [(25.0, 6.458), (25.0, 6.458)]


def test_trueskill_four_player_free_for_all():
    after = trueskill.rate([TrueSkillRating()] * 4, [1, 2, 3, 4])
    assert _rounded(after) == [(33.207, 6.348), (27.401, 5.787), (22.599, 5.787), (16.793, 6.348)]


def test_trueskill_result_follows_the_players_not_the_order_given():
    after = trueskill.rate([TrueSkillRating()] * 4, [3, 1, 4, 2])
    assert _rounded(after) == [(22.599, 5.787), (33.207, 6.348), (16.793, 6.348), (27.401, 5.787)]


def test_plackett_luce_one_on_one_win():
    (winner,), (loser,) = plackett_luce.rate(
        [[PlackettLuceRating()], [PlackettLuceRating()]], [1, 2]
    )
    assert winner.mu == pytest.approx(27.635389493140497, abs=1e-12)
    assert winner.sigma == pytest.approx(8.06590141354368, abs=1e-12)
    assert loser.mu == pytest.approx(50 - winner.mu, abs=1e-12)


def test_plackett_luce_two_on_two_win():
    winners, losers = plackett_luce.rate(
        [[PlackettLuceRating()] * 2, [PlackettLuceRating()] * 2], [1, 2]
    )
    for player in winners:
        assert player.mu == pytest.approx(26.964294621803063, abs=1e-12)
        assert player.sigma == pytest.approx(8.177962604389991, abs=1e-12)
    for player in losers:
        assert player.mu == pytest.approx(23.035705378196937, abs=1e-12)
        assert player.sigma == pytest.approx(8.177962604389991, abs=1e-12)
