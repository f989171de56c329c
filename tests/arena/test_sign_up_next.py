"""A newcomer sent to log in from a page that needs an account signs up instead and lands
back on that page; a ``next`` pointing off the site is ignored."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse 1"


def sign_up(client, url: str, name: str):
    return client.post(url, {"username": name, "password1": PASSWORD, "password2": PASSWORD})


def test_sign_up_from_the_log_in_page_goes_back_to_the_page_asked_for():
    client = Client()
    asked = client.get("/play/new/?bot=7")
    assert asked.status_code == 302 and asked["Location"].startswith("/login/?next=")
    login_page = client.get(asked["Location"]).content.decode()
    assert 'href="/signup/?next=%2Fplay%2Fnew%2F%3Fbot%3D7"' in login_page
    made = sign_up(client, "/signup/?next=%2Fplay%2Fnew%2F%3Fbot%3D7", "newcomer")
    assert made.status_code == 302 and made["Location"] == "/play/new/?bot=7"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:x"])
def test_a_next_off_the_site_is_ignored(target):
    client = Client()
    login_page = client.get("/login/", {"next": target}).content.decode()
    assert 'href="/signup/"' in login_page  # the sign-up link carries no such next
    made = sign_up(client, f"/signup/?next={target}", "newcomer")
    assert made.status_code == 302 and made["Location"] == "/"
