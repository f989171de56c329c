"""A display name (optional, at sign-up or on the account page) shows beside the username
in the header, on the bot page, the tournament page and the list; changing it moves every
stored page, so anonymous readers see it at once. Only its holder changes it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.support.builders import active_bots
from tournaments import services

# Committed as in production: the stored pages move with the commit of the change.
pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "correct horse 1"


def test_a_display_name_from_sign_up_shows_beside_the_username():
    client = Client()
    made = client.post(
        "/signup/",
        {"username": "student_07", "first_name": "Amira Haddad",
         "password1": PASSWORD, "password2": PASSWORD},
    )  # fmt: skip
    assert made.status_code == 302
    header = client.get("/bots/").content.decode()
    assert "Amira Haddad (student_07)" in header


def test_the_account_page_changes_it_and_every_page_follows():
    teacher = get_user_model().objects.create_user(username="msteacher_m", password=PASSWORD)
    bots = active_bots(owner=teacher, count=2)
    tournament = services.create_tournament(
        organiser=teacher, name="Class cup", game="pairs", bot_ids=[b.pk for b in bots],
        start_at=datetime(2030, 1, 6, 9, tzinfo=UTC),
    )  # fmt: skip
    anonymous = Client()
    pages = [f"/bots/{bots[0].pk}/", f"/tournaments/{tournament.pk}/", "/tournaments/"]
    for path in pages:  # stored for anonymous readers under the names token
        assert "msteacher_m" in anonymous.get(path).content.decode()
    assert anonymous.get("/account/").status_code == 302  # signed-out: to the log-in page
    mine = Client()
    mine.force_login(teacher)
    assert "Display name" in mine.get("/account/").content.decode()
    saved = mine.post("/account/", {"first_name": "Ms Marguerite Teacher", "email": ""})
    assert saved.status_code == 302
    for path in pages:
        page = anonymous.get(path).content.decode()
        assert "Ms Marguerite Teacher (msteacher_m)" in page, path
    # The form edits the signed-in account alone: no field names another.
    other = get_user_model().objects.create_user(username="student_01", password=PASSWORD)
    mine.post(
        "/account/", {"first_name": "x", "email": "", "username": "student_01", "id": other.pk}
    )
    other.refresh_from_db()
    assert other.first_name == "" and other.username == "student_01"
    refused = mine.post("/account/", {"first_name": "y" * 151, "email": "not an address"})
    assert refused.status_code == 200 and "errorlist" in refused.content.decode()
