"""A class behind one school address: the students' mistakes lock each account at that
address (per username and address), never the whole class. An account that has logged in
from a browser before is not held back by the address's count of others' failures; one
that never has is, as a guard against guessing many accounts from one address."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena import throttling
from tests.support import throttle

clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates

SCHOOL = "198.51.100.20"
PASSWORD = "correct horse 1"


def log_in(client: Client, username: str, password: str):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=SCHOOL)


@pytest.fixture
def students(db, settings, rates):
    settings.AXES_FAILURE_LIMIT = 5
    rates(login_address="10/hour", login_username="10/hour")
    users = get_user_model().objects
    return [users.create_user(username=f"student_{n:02}", password=PASSWORD) for n in range(12)]


def test_many_students_behind_one_address_are_not_locked_together(students):
    browsers = {s.username: Client() for s in students}
    # Everyone logged in once this term, from their own browser at school.
    for name, browser in browsers.items():
        assert log_in(browser, name, PASSWORD).status_code == 302
        assert throttling.KNOWN_LOGINS_COOKIE in browser.cookies
        browser.post("/logout/", REMOTE_ADDR=SCHOOL)  # keeps the browser's other cookies
    # Today ten of them mistype their password once: the address's count is reached.
    for student in students[:10]:
        assert log_in(browsers[student.username], student.username, "typo").status_code == 200
    # Every one of them still logs in from their own browser, and so do the others.
    for name, browser in browsers.items():
        answer = log_in(browser, name, PASSWORD)
        assert answer.status_code == 302, (name, answer.content.decode()[:300])
        browser.post("/logout/", REMOTE_ADDR=SCHOOL)  # keeps the browser's other cookies


def test_one_account_is_still_locked_at_the_address_after_its_own_failures(students):
    browser = Client()
    assert log_in(browser, "student_00", PASSWORD).status_code == 302
    browser.post("/logout/", REMOTE_ADDR=SCHOOL)
    for _ in range(5):
        assert log_in(browser, "student_00", "typo").status_code == 200
    locked = log_in(browser, "student_00", PASSWORD)
    assert locked.status_code == 429
    assert "Too many failed log-ins for this account" in locked.content.decode()
    # Its classmate at the same address is not locked.
    assert log_in(Client(), "student_01", PASSWORD).status_code == 302


def test_a_browser_that_never_logged_in_meets_the_address_count(students):
    for n in range(10):
        log_in(Client(), f"student_{n:02}", "typo")
    refused = log_in(Client(), "student_11", PASSWORD)
    assert refused.status_code == 429
    assert "Too many failed log-ins from your address" in refused.content.decode()
    forged = Client()
    forged.cookies[throttling.KNOWN_LOGINS_COOKIE] = throttling.username_ident("student_11")
    assert log_in(forged, "student_11", PASSWORD).status_code == 429  # not signed: ignored
