"""Before the start the tournament page says how many matches the format plans for the
entries ("about" where results change it), and the event then plays that many."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client

from tests.support.builders import active_bots, play_queued, user
from tournaments import services
from tournaments.models import Match, Tournament

pytestmark = pytest.mark.django_db

# format, entrants, settings, the count planned, whether exact
CASES = [
    ("round_robin", 5, {}, 20, True),
    ("swiss", 7, {}, 24, True),  # 4 rounds of 3 tables, 2 games each
    ("swiss", 7, {"rounds": 2}, 12, True),
    ("gauntlet", 6, {"challengers": [0]}, 10, True),
    ("single_elimination", 6, {"third_place": True}, 12, False),
    ("double_elimination", 5, {}, 16, False),
]


@pytest.mark.parametrize("format,count,fields,planned,exact", CASES)
def test_the_planned_count_is_shown_and_then_played(format, count, fields, planned, exact):
    organiser = user(name="msteacher_mathematics_department_stmarys_secondary")
    bots = active_bots(owner=organiser, count=count)
    fields = dict(fields)
    if "challengers" in fields:
        fields["challengers"] = [bots[i].pk for i in fields["challengers"]]
    tournament = services.create_tournament(
        organiser=organiser, name="Class cup", game="pairs", bot_ids=[b.pk for b in bots],
        format=format, seeding="entry", start_at=datetime(2030, 1, 6, 9, tzinfo=UTC), **fields,
    )  # fmt: skip
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    said = f"{'' if exact else 'about '}{planned} matches planned"
    assert f"Not started yet: {said}" in page
    assert ("a tied series adds deciders" in page) is not exact
    assert "0 of 0" not in page
    api = Client().get(f"/api/tournaments/{tournament.pk}/").json()
    assert api["planned"] == {"games": planned, "exact": exact}
    assert services.start_tournament(tournament_id=tournament.pk)
    while play_queued(tournament_id=tournament.pk):  # the lower bot id wins every game
        pass
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert Match.objects.filter(tournament=tournament).count() == planned


def test_a_field_the_format_cannot_play_says_so():
    organiser = user(name="organiser")
    bots = active_bots(owner=organiser, count=1)
    tournament = Tournament.objects.create(
        name="Alone", organiser=organiser, game="pairs", format="swiss", players_per_match=2,
        seed=1, start_at=datetime(2030, 1, 6, 9, tzinfo=UTC),
    )  # fmt: skip
    tournament.entries.create(bot=bots[0])
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Not started yet: no match can be planned for this field." in page


def test_a_swiss_without_rounds_says_how_many_it_plays_and_why():
    organiser = user(name="organiser")
    bots = active_bots(owner=organiser, count=7)
    tournament = services.create_tournament(
        organiser=organiser, name="Swiss", game="pairs", bot_ids=[b.pk for b in bots],
        format="swiss", start_at=datetime(2030, 1, 6, 9, tzinfo=UTC),
    )  # fmt: skip
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "(4 rounds: enough to separate the field, log2 of the entrants rounded up" in page
