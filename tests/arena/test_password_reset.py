"""A forgotten password is reset by email (Django's views; the console backend unless an
SMTP server is named): the link works once, says nothing about who has an account, and
requests are limited per address. Sign-up takes an optional address for it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from tests.support import throttle

clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates

pytestmark = pytest.mark.django_db
OLD, NEW = "correct horse 1", "a brand new secret 7"


def test_signing_up_with_an_address_then_resetting_the_password():
    client = Client()
    page = client.get("/login/").content.decode()
    assert 'href="/password-reset/" id="forgot"' in page
    made = client.post(
        "/signup/",
        {"username": "student_42", "email": "s42@school.example",
         "password1": OLD, "password2": OLD},
    )  # fmt: skip
    assert made.status_code == 302
    assert get_user_model().objects.get(username="student_42").email == "s42@school.example"
    stranger = Client()
    sent = stranger.post("/password-reset/", {"email": "s42@school.example"})
    assert sent.status_code == 302 and sent["Location"] == "/password-reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["s42@school.example"]
    body = mail.outbox[0].body
    assert "student_42" in body
    link = re.search(r"http://testserver(/password-reset/\S+/)", body).group(1)
    form = stranger.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    done = stranger.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done["Location"] == "/password-reset/done/"
    assert "_auth_user_id" not in stranger.session  # the reset does not log anyone in
    assert Client().login(username="student_42", password=NEW)
    again = stranger.get(link, follow=True).content.decode()
    assert "has been used already or is out of date" in again


def test_an_unknown_address_is_answered_as_a_known_one_and_sends_nothing():
    get_user_model().objects.create_user(username="noaddress", password=OLD)
    answer = Client().post("/password-reset/", {"email": "nobody@school.example"})
    assert answer.status_code == 302 and answer["Location"] == "/password-reset/sent/"
    assert mail.outbox == []
    page = Client().get("/password-reset/sent/").content.decode()
    assert "If an account has that address" in page


def test_reset_requests_are_limited_per_address(rates):
    rates(password_reset="3/hour")
    client = Client()
    statuses = [
        client.post("/password-reset/", {"email": f"x{n}@school.example"}).status_code
        for n in range(4)
    ]
    assert statuses == [302, 302, 302, 429]
    refused = client.post("/password-reset/", {"email": "x@school.example"})
    assert "Too many password reset requests from your address" in refused.content.decode()


def test_a_forged_link_changes_nothing():
    user = get_user_model().objects.create_user(username="victim", password=OLD)
    page = Client().get(f"/password-reset/{user.pk}/not-a-token/").content.decode()
    assert "out of date" in page
    assert Client().login(username="victim", password=OLD)
