"""The dashboard's tournament form for every format, the tournament and ladder pages, cancel and pause."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.support.builders import active_bots
from tournaments import services
from tournaments.models import Ladder, Tournament
from tournaments.services.ladder import schedule_ladders


@pytest.fixture
def organiser(db, client):
    user = get_user_model().objects.create_user(username="org", password="a long password 42")
    client.force_login(user)
    return user


def form(bots, **fields):
    return {
        "name": "web cup",
        "game": "pairs",
        "bots": [b.pk for b in bots],
        "format": "round_robin",
        "seeding": "rating",
        "advance": 1,
        "move_ms": 1000,
        "bank_ms": 10000,
        "rotate_seats": "on",
        "rated": "on",
        "grand_final_reset": "on",
        "options": "{}",
        **fields,
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"format": "round_robin"},
        {"format": "swiss", "rounds": 2},
        {"format": "single_elimination", "third_place": "on"},
        {"format": "double_elimination"},
        {"format": "gauntlet", "challengers": "first"},
    ],
)
def test_every_format_can_be_created_from_the_dashboard(client, organiser, fields):
    bots = active_bots(owner=organiser, count=4)
    if fields.get("challengers") == "first":
        fields = {**fields, "challengers": [bots[0].pk]}
    answer = client.post("/tournaments/new/", form(bots, **fields))
    assert answer.status_code == 302, answer.content.decode()[-2000:]
    tournament = Tournament.objects.get()
    assert tournament.format == fields["format"]
    assert tournament.games_per_pairing == 2  # one game per seat rotation by default
    if fields["format"] == "gauntlet":
        assert tournament.challenger_ids == [bots[0].pk]
    services.start_tournament(tournament_id=tournament.pk)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert tournament.get_format_display() in page
    if "elimination" in fields["format"]:
        assert 'id="bracket"' in page and "W1.1" in page
    if fields["format"] in ("swiss", "gauntlet"):
        assert 'id="rounds"' in page


def test_the_form_shows_why_a_format_cannot_be_played_and_stores_nothing(client, organiser):
    bots = active_bots(owner=organiser, count=3)
    answer = client.post("/tournaments/new/", form(bots, format="gauntlet"))
    assert answer.status_code == 200
    assert "needs at least one challenger" in answer.content.decode()
    answer = client.post("/tournaments/new/", form(bots, games_per_pairing=3))
    assert "multiple of 2" in answer.content.decode()
    assert not Tournament.objects.exists()


def test_the_organiser_cancels_from_the_page_and_nobody_else_can(client, organiser):
    bots = active_bots(owner=organiser, count=3)
    tournament = services.create_tournament(
        organiser=organiser, name="cup", game="pairs", bot_ids=[b.pk for b in bots]
    )
    services.start_tournament(tournament_id=tournament.pk)
    assert 'id="cancel"' in client.get(f"/tournaments/{tournament.pk}/").content.decode()
    stranger = get_user_model().objects.create_user(username="stranger")
    client.force_login(stranger)
    assert 'id="cancel"' not in client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert client.post(f"/tournaments/{tournament.pk}/cancel/").status_code == 403
    tournament.refresh_from_db()
    assert tournament.status == "running"
    client.force_login(organiser)
    assert client.post(f"/tournaments/{tournament.pk}/cancel/").status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "cancelled"
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "0 of 6 matches played" in page and "6 cancelled" in page


def test_the_ladder_pages_and_staff_pause(client, organiser, settings):
    settings.ARENA_LADDER = True
    active_bots(owner=organiser, count=2)
    schedule_ladders()
    ladder = Ladder.objects.get()
    listing = client.get("/ladders/").content.decode()
    assert f"/ladders/{ladder.pk}/" in listing
    page = client.get(f"/ladders/{ladder.pk}/").content.decode()
    assert "bot0" in page and 'id="pause"' not in page
    assert client.post(f"/ladders/{ladder.pk}/", {"action": "pause"}).status_code == 403
    staff = get_user_model().objects.create_user(username="staff", is_staff=True)
    client.force_login(staff)
    assert client.post(f"/ladders/{ladder.pk}/", {"action": "pause"}).status_code == 302
    ladder.refresh_from_db()
    assert ladder.paused
    assert 'id="resume"' in client.get(f"/ladders/{ladder.pk}/").content.decode()
