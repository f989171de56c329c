"""A bracket's series that ended level says how its winner went through: the decider on a
fresh deal, or the higher seed when the decider was level too."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.builders import play_queued, started_event

pytestmark = pytest.mark.django_db


def seat_zero_wins(match, seats):
    return [1 if seat.seat == 0 else 2 for seat in seats]


def lower_seed_wins_deciders(match, seats):
    """The series level (seat 0 wins each game); the decider to the lower seed (higher id)."""
    if ".D" not in match.pairing_key:
        return seat_zero_wins(match, seats)
    low = max(s.version.bot_id for s in seats)
    return [1 if s.version.bot_id == low else 2 for s in seats]


def final_box(tournament) -> str:
    html = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    return html.split('id="series-')[1].split('<div class="next">')[0]


def test_a_level_series_and_decider_go_to_the_higher_seed():
    cup = started_event(organiser=_user(), entrants=2, fields={"format": "single_elimination"})
    while play_queued(tournament_id=cup.pk, ranks_of=seat_zero_wins):
        pass
    cup.refresh_from_db()
    assert cup.status == "finished" and cup.matches.count() == 4  # 2 games, 2 deciders
    box = final_box(cup)
    assert "Level after the series and its decider too: bot0, the higher seed, went through." in box


def test_a_level_series_won_in_its_decider_says_so():
    cup = started_event(organiser=_user(), entrants=2, fields={"format": "single_elimination"})
    while play_queued(tournament_id=cup.pk, ranks_of=lower_seed_wins_deciders):
        pass
    box = final_box(cup)
    assert "Level after the series: bot1 won the decider on a fresh deal (2–0)." in box


def test_a_series_won_outright_needs_no_explanation():
    cup = started_event(organiser=_user(), entrants=2, fields={"format": "single_elimination"})
    while play_queued(tournament_id=cup.pk):  # the lower bot id wins every game
        pass
    assert 'class="why"' not in final_box(cup)


def _user():
    from tests.support.builders import user

    return user(name="msteacher_mathematics_department_stmarys_secondary")
