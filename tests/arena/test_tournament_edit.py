"""Editing a scheduled tournament (API PATCH and the dashboard form), refusals that sit on
their fields in plain words, and the entrant list's pasted names."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from bots.models import Bot
from tests.support.builders import active_bots, bot_with_version
from tournaments import services
from tournaments.models import Tournament

PASSWORD = "a long password 42"
LONG_OWNER = "ms_teacher_with_a_very_long_username_x"


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org", password=PASSWORD)


@pytest.fixture
def api(organiser):
    client = APIClient()
    client.force_authenticate(organiser)
    return client


@pytest.fixture
def web(organiser):
    client = Client()
    client.force_login(organiser)
    return client


def scheduled(organiser, bots, **settings) -> Tournament:
    return services.create_tournament(
        organiser=organiser,
        name="class cup",
        game="pairs",
        bot_ids=[b.pk for b in bots],
        start_at=timezone.now() + timedelta(days=2),
        **settings,
    )


def stored(tournament: Tournament) -> tuple:
    tournament.refresh_from_db()
    entries = tuple(tournament.entries.order_by("id").values_list("bot_id", "challenger"))
    return (
        tournament.name,
        tournament.options,
        tournament.format,
        tournament.rounds,
        tournament.seed,
        tournament.seed_commitment,
        tournament.start_at,
        entries,
    )


def test_the_organiser_renames_and_moves_the_start_keeping_the_seed(api, organiser):
    tournament = scheduled(organiser, active_bots(owner=organiser, count=3))
    later = timezone.now() + timedelta(days=5)
    answer = api.patch(
        f"/api/tournaments/{tournament.pk}/",
        {"name": "class cup, final", "start_at": later.isoformat()},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["name"] == "class cup, final"
    assert body["seed_commitment"] == tournament.seed_commitment  # no game changes
    tournament.refresh_from_db()
    assert abs((tournament.start_at - later).total_seconds()) < 1


def test_changing_entrants_rounds_and_options_renews_the_seed(api, organiser):
    bots = active_bots(owner=organiser, count=5)
    tournament = scheduled(organiser, bots[:3])
    old_commitment = tournament.seed_commitment
    answer = api.patch(
        f"/api/tournaments/{tournament.pk}/",
        {
            "bots": [b.pk for b in bots[1:]],
            "format": "swiss",
            "rounds": 2,
            "options": {"gambling": "tacoma"},
        },
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["seed_commitment"] != old_commitment
    assert [row["bot_id"] for row in body["entrants"]] == [b.pk for b in bots[1:]]
    tournament.refresh_from_db()
    assert tournament.format == "swiss" and tournament.rounds == 2
    assert tournament.options["gambling"] == "tacoma"
    # The new commitment is the new seed's: it checks once revealed.
    text = f"{tournament.seed_salt}:{tournament.seed}".encode()
    assert hashlib.sha256(text).hexdigest() == body["seed_commitment"]
    assert body["seed"] == tournament.seed  # the organiser sees it


def test_an_edit_is_refused_on_its_field_and_changes_nothing(api, organiser):
    tournament = scheduled(organiser, active_bots(owner=organiser, count=3))
    before = stored(tournament)
    answer = api.patch(
        f"/api/tournaments/{tournament.pk}/",
        {"games_per_pairing": 3, "options": {"games": 999}, "name": "x"},
        format="json",
    )
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "invalid"
    assert "try 2 or 4" in body["errors"]["games_per_pairing"][0]
    assert body["errors"]["options.games"] == ["Games must be at most 20: try 20 or fewer"]
    assert stored(tournament) == before


def test_a_started_tournament_is_refused_with_a_conflict(api, organiser):
    tournament = scheduled(organiser, active_bots(owner=organiser, count=3))
    services.start_tournament(tournament_id=tournament.pk)
    before = stored(tournament)
    answer = api.patch(f"/api/tournaments/{tournament.pk}/", {"name": "late"}, format="json")
    assert answer.status_code == 409
    assert answer.json()["code"] == "tournament_started"
    assert "only a scheduled one can be edited" in answer.json()["detail"]
    assert stored(tournament) == before


def test_nobody_else_edits_it(organiser, make_user):
    tournament = scheduled(organiser, active_bots(owner=organiser, count=3))
    before = stored(tournament)
    anonymous = APIClient().patch(
        f"/api/tournaments/{tournament.pk}/", {"name": "mine"}, format="json"
    )
    assert anonymous.status_code in (401, 403)
    other = APIClient()
    other.force_authenticate(make_user("mallory"))
    answer = other.patch(f"/api/tournaments/{tournament.pk}/", {"name": "mine"}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "permission_denied"
    assert other.patch("/api/tournaments/999999/", {"name": "x"}, format="json").status_code == 404
    assert stored(tournament) == before
    # Nor through the dashboard.
    assert Client().get(f"/tournaments/{tournament.pk}/edit/").status_code == 302  # to log in
    web = Client()
    web.force_login(get_user_model().objects.get(username="mallory"))
    assert web.get(f"/tournaments/{tournament.pk}/edit/").status_code == 403
    assert web.post(f"/tournaments/{tournament.pk}/edit/", {"name": "x"}).status_code == 403
    assert stored(tournament) == before


def form_of(page: str) -> dict:
    """The edit form's values as the page shows them (what a browser would send back)."""
    data: dict = {}
    for tag in re.findall(r"<input [^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        if not name or name.group(1) == "csrfmiddlewaretoken":
            continue
        value = re.search(r'value="([^"]*)"', tag)
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                data.setdefault(name.group(1), []).append(value.group(1) if value else "on")
        elif value:
            data[name.group(1)] = value.group(1)
    for select in re.finditer(r'<select name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', select.group(2))
        if chosen:
            data[select.group(1)] = chosen.group(1)
    return data


def test_the_edit_form_is_filled_in_and_saves(web, organiser):
    bots = active_bots(owner=organiser, count=4)
    tournament = scheduled(organiser, bots[:3], games_per_pairing=4)
    page = web.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/edit/"' in page
    page = web.get(f"/tournaments/{tournament.pk}/edit/").content.decode()
    data = form_of(page)
    assert data["name"] == "class cup" and data["games_per_pairing"] == "4"
    assert sorted(map(int, data["bots"])) == sorted(b.pk for b in bots[:3])
    old = tournament.seed_commitment
    # Sent back unchanged but for the name: saved, same seed (the start is kept as it was).
    answer = web.post(f"/tournaments/{tournament.pk}/edit/", {**data, "name": "renamed"})
    assert answer.status_code == 302
    tournament.refresh_from_db()
    assert tournament.name == "renamed" and tournament.seed_commitment == old
    # Another entrant: the seed is drawn again and the page says its new commitment.
    data["bots"] = [str(b.pk) for b in bots]
    answer = web.post(f"/tournaments/{tournament.pk}/edit/", data, follow=True)
    tournament.refresh_from_db()
    assert tournament.entries.count() == 4 and tournament.seed_commitment != old
    assert f"its new commitment is {tournament.seed_commitment}" in answer.content.decode()


def test_the_edit_form_refuses_a_started_tournament(web, organiser):
    tournament = scheduled(organiser, active_bots(owner=organiser, count=3))
    data = form_of(web.get(f"/tournaments/{tournament.pk}/edit/").content.decode())
    services.start_tournament(tournament_id=tournament.pk)
    before = stored(tournament)
    answer = web.post(f"/tournaments/{tournament.pk}/edit/", {**data, "name": "late"})
    assert answer.status_code == 409
    assert "can be edited only until it starts" in answer.content.decode()
    assert web.get(f"/tournaments/{tournament.pk}/edit/").status_code == 409
    assert stored(tournament) == before
    assert "edit-link" not in web.get(f"/tournaments/{tournament.pk}/").content.decode()


def new_form(bots, **fields) -> dict:
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
        **fields,
    }


def errors_by_field(page: str) -> dict[str, str]:
    """Each input's refusal as the page puts it beside the input (its error list's id)."""
    return {
        name: re.sub(r"<[^>]+>", " ", text)
        for name, text in re.findall(r'<ul class="errorlist" id="id_(\w+)_error">(.*?)</ul>', page)
    }


def test_one_refused_form_shows_every_mistake_on_its_field(web, organiser):
    bots = active_bots(owner=organiser, count=3)
    data = new_form(bots[:1], name="", games_per_pairing=3, move_ms=5)
    data["option__pairs__games"] = "25"
    answer = web.post("/tournaments/new/", data)
    assert answer.status_code == 200
    assert not Tournament.objects.exists()
    page = answer.content.decode()
    errors = errors_by_field(page)
    assert "Give the tournament a name" in errors["name"]
    assert "Move time (ms) must be 10 or more" in errors["move_ms"]
    assert "Pick at least two bots" in errors["bots"]
    assert "must be a multiple of 2 when seats rotate" in errors["games_per_pairing"]
    assert "try 2 or 4" in errors["games_per_pairing"]
    assert "Games must be at most 20: try 20 or fewer" in errors["option__pairs__games"]
    assert (
        "things to fix" in page
        and '<a href="#id_name">Name</a>: Give the tournament a name' in page
    )
    assert '<a href="#id_move_ms">Move time (ms) must be 10 or more</a>' in page
    assert "Ensure this value" not in page and "non_field" not in page


def test_refusals_of_the_service_sit_on_their_fields(web, organiser):
    bots = active_bots(owner=organiser, count=4)
    page = web.post(
        "/tournaments/new/", new_form(bots, format="gauntlet", players_per_match=3)
    ).content.decode()
    errors = errors_by_field(page)
    assert (
        "A gauntlet plays two-seat games: set players per match to 2" in errors["players_per_match"]
    )
    page = web.post("/tournaments/new/", new_form(bots, format="gauntlet")).content.decode()
    assert "A gauntlet needs at least one challenger" in errors_by_field(page)["challengers"]


def test_a_pasted_list_of_bot_names_and_owners_enters_them(web, organiser):
    student = get_user_model().objects.create_user(username=LONG_OWNER)
    mine = active_bots(owner=organiser, count=2)
    theirs = [
        bot_with_version(owner=student, name=f"student_bot_{i}_long_name", announce=False)[0]
        for i in range(3)
    ]
    closed = bot_with_version(owner=student, name="closed_one", announce=False)[0]
    Bot.objects.filter(pk=closed.pk).update(accepts_entries=False)
    bot_with_version(owner=student, name="punky", game="punk", announce=False)
    data = new_form([mine[0]], bot_list=f"{mine[1].name.upper()}\n{LONG_OWNER}, bot0")
    answer = web.post("/tournaments/new/", data)
    assert answer.status_code == 302, errors_by_field(answer.content.decode())
    tournament = Tournament.objects.get()
    entered = set(tournament.entries.values_list("bot_id", flat=True))
    # The owner's Pairs bots that accept entries; not the closed one, not the Punk one.
    assert entered == {b.pk for b in mine + theirs}


def test_a_pasted_name_that_matches_nothing_is_refused_on_the_list(web, organiser):
    bots = active_bots(owner=organiser, count=2)
    page = web.post(
        "/tournaments/new/", new_form(bots, bot_list="bot0 nobody_here, closed")
    ).content.decode()
    assert "is named nobody_here, closed: check the spelling" in errors_by_field(page)["bot_list"]
    assert not Tournament.objects.exists()


def test_the_entrant_list_shows_owners_and_policies(web, organiser):
    student = get_user_model().objects.create_user(username=LONG_OWNER)
    bot_with_version(owner=student, name="their_bot", announce=False)
    active_bots(owner=organiser, count=1)
    page = web.get("/tournaments/new/").content.decode()
    assert f'data-owner="{LONG_OWNER}"' in page and 'data-mine="1"' in page
    assert f'<span class="bot-owner">by {LONG_OWNER}</span>' in page
    assert '<span class="bot-owner">by you</span>' in page
    assert 'id="select-shown"' in page and 'id="bot-search"' in page


def test_a_start_moved_later_is_not_started_at_the_old_time(organiser):
    bots = active_bots(owner=organiser, count=2)
    tournament = services.create_tournament(
        organiser=organiser, name="now", game="pairs", bot_ids=[b.pk for b in bots]
    )
    later = timezone.now() + timedelta(hours=1)
    services.update_tournament(tournament_id=tournament.pk, editor=organiser, start_at=later)
    assert services.start_due_tournaments() == []
    # Read as due before the edit, it is still not claimed: the claim asks again.
    assert not services.start_tournament(tournament_id=tournament.pk, due_by=timezone.now())
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.SCHEDULED
    assert services.start_due_tournaments(now=later) == [tournament.pk]


def test_an_entrant_whose_owner_closed_entries_stays_through_an_edit(organiser):
    student = get_user_model().objects.create_user(username=LONG_OWNER)
    theirs = bot_with_version(owner=student, name="their_bot", announce=False)[0]
    mine = active_bots(owner=organiser, count=1)
    tournament = scheduled(organiser, [mine[0], theirs])
    Bot.objects.filter(pk=theirs.pk).update(accepts_entries=False)
    changed = services.update_tournament(
        tournament_id=tournament.pk, editor=organiser, name="renamed"
    )
    assert changed.name == "renamed" and changed.entries.count() == 2
