"""Item 12: the dashboard's forms, tournament creation and password guessing are throttled,
with one count shared by the API and the forms; a refusal stores nothing. (Log-in locks
per account and address: test_login_lock.py.)"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from tests.support import throttle
from tournaments.models import Tournament

# The shared throttle fixtures, used by name.
clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates

BROKEN = b"def broken(:\n"  # refused at upload, so no validation is queued


@pytest.fixture
def alice(make_user):
    return make_user("alice")


def test_dashboard_sign_up_shares_the_api_s_count(db, client, rates):
    rates(register="3/hour")
    api = APIClient()
    for n in range(3):
        body = {"username": f"api{n}", "password": "a long password 42"}
        assert api.post("/api/auth/register/", body, format="json").status_code == 201
    page = client.post(
        "/signup/",
        {"username": "web", "password1": "a long password 7", "password2": "a long password 7"},
    )
    assert page.status_code == 429
    assert "Too many sign-ups from your address; try again in" in page.content.decode()
    assert not get_user_model().objects.filter(username="web").exists()


def test_dashboard_upload_forms_share_the_upload_budget(alice, client, client_for, rates):
    rates(uploads="2/hour")
    client.force_login(alice)
    for n in range(2):
        page = client.post(
            "/bots/new/",
            {"name": f"b{n}", "game": "pairs", "file": SimpleUploadedFile("main.py", BROKEN)},
        )
        assert "Upload refused" in page.content.decode() and page.status_code == 200
    page = client.post(
        "/bots/new/",
        {"name": "late", "game": "pairs", "file": SimpleUploadedFile("main.py", BROKEN)},
    )
    assert page.status_code == 429 and "Too many uploads; try again in" in page.content.decode()
    assert not Bot.objects.filter(name="late").exists()

    bot = Bot.objects.create(owner=alice, name="kept", game="pairs")
    page = client.post(
        f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("main.py", b"x = 1\n")}
    )
    assert page.status_code == 429 and "Too many uploads" in page.content.decode()
    # The API's upload throttle counts in the same place.
    answer = client_for(alice).post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("main.py", b"x = 1\n")},
        format="multipart",
    )
    assert answer.status_code == 429
    assert BotVersion.objects.count() == 0


def test_tournament_creation_is_throttled_through_api_and_form(
    alice, client, client_for, stored_version, rates
):
    rates(tournaments="2/hour")
    bots = []
    for name in ("t1", "t2"):
        bot = Bot.objects.create(owner=alice, name=name, game="pairs")
        stored_version(bot)
        bots.append(bot.pk)
    body = {"name": "cup", "game": "pairs", "bots": bots}
    api = client_for(alice)
    assert api.post("/api/tournaments/", body, format="json").status_code == 201
    assert api.post("/api/tournaments/", body, format="json").status_code == 201
    refused = api.post("/api/tournaments/", body, format="json")
    assert refused.status_code == 429 and "Retry-After" in refused
    assert refused.json()["detail"]  # a sentence, in the API's error shape
    assert api.get("/api/tournaments/").status_code == 200  # reading is not limited

    client.force_login(alice)
    form = {
        "name": "web cup",
        "game": "pairs",
        "bots": bots,
        "games_per_pairing": 2,
        "move_ms": 1000,
        "bank_ms": 10000,
        "rotate_seats": "on",
        "options": "{}",
    }
    page = client.post("/tournaments/new/", form)
    assert page.status_code == 429
    assert "Too many new tournaments; try again in" in page.content.decode()
    assert Tournament.objects.count() == 2


def test_only_tournaments_made_count_and_staff_are_not_counted(
    alice, client, client_for, stored_version, rates, make_user
):
    """Refused forms and bodies give their place back: mistakes never lock an organiser out."""
    rates(tournaments="2/hour")
    bots = []
    for name in ("m1", "m2"):
        bot = Bot.objects.create(owner=alice, name=name, game="pairs")
        stored_version(bot)
        bots.append(bot.pk)
    api = client_for(alice)
    client.force_login(alice)
    mistakes = 0
    for _ in range(3):
        wrong = {"name": "cup", "game": "pairs", "bots": bots[:1]}  # one entrant: refused
        assert api.post("/api/tournaments/", wrong, format="json").status_code == 400
        page = client.post("/tournaments/new/", {"name": "web cup", "game": "pairs"})
        assert page.status_code == 200 and "Too many" not in page.content.decode()
        mistakes += 2
    body = {"name": "cup", "game": "pairs", "bots": bots}
    assert api.post("/api/tournaments/", body, format="json").status_code == 201
    assert api.post("/api/tournaments/", body, format="json").status_code == 201
    assert api.post("/api/tournaments/", body, format="json").status_code == 429
    assert Tournament.objects.count() == 2 and mistakes == 6

    staff = make_user("staff")
    staff.is_staff = True
    staff.save()
    staff_bots = []
    for name in ("s1", "s2"):
        bot = Bot.objects.create(owner=staff, name=name, game="pairs")
        stored_version(bot)
        staff_bots.append(bot.pk)
    for n in range(3):
        made = client_for(staff).post(
            "/api/tournaments/",
            {"name": f"staff {n}", "game": "pairs", "bots": staff_bots},
            format="json",
        )
        assert made.status_code == 201
    assert Tournament.objects.count() == 5


def token(client, username, password, address):
    return client.post(
        "/api/auth/token/",
        {"username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
    )


def test_password_guessing_from_one_address_is_refused_for_any_account(alice, rates):
    rates(login_username="100/hour", login_address="5/hour")
    api = APIClient()
    for n in range(5):
        assert token(api, f"someone{n}", "a guess", "198.51.100.5").status_code == 400
    assert token(api, "alice", "correct horse 1", "198.51.100.5").status_code == 429
    assert token(api, "alice", "correct horse 1", "198.51.100.6").status_code == 200
