"""Item 10: failed log-ins lock an account at the address they came from, not everywhere. A
stranger guessing from one address locks the account there only; its owner still logs in
from an address where it has not failed. An account guessed from many addresses is slowed
down where it failed, not locked. The token API, the dashboard and the admin are covered."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.support import throttle

# The shared throttle fixtures, used by name.
clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates
trusted_proxies = throttle.trusted_proxies

STRANGER = "203.0.113.66"
OWNER = "198.51.100.7"
PASSWORD = "correct horse 1"  # make_user's
LOCKED = "Too many failed log-ins for this account from your address"


@pytest.fixture
def alice(make_user, settings):
    settings.AXES_FAILURE_LIMIT = 5
    return make_user("alice")


def token(client, username, password, address, **headers):
    return client.post(
        "/api/auth/token/",
        {"username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
        **headers,
    )


def test_a_stranger_locks_the_account_at_their_address_only(alice):
    api = APIClient()
    # Past the lock, and past the account's count from anywhere (10/hour).
    statuses = [token(api, "alice", f"guess {n}", STRANGER).status_code for n in range(12)]
    assert statuses == [400] * 5 + [429] * 7
    # Locked there: the right password is refused too, before it is checked.
    refused = token(api, "alice", PASSWORD, STRANGER)
    assert refused.status_code == 429, refused.content
    body = refused.json()
    assert body["code"] == "throttled" and body["detail"].startswith(LOCKED)
    assert body["errors"] == {} and "token" not in body
    assert 0 < int(refused["Retry-After"]) <= 3600
    # The owner, from an address where the account has not failed, logs in.
    answer = token(api, "alice", PASSWORD, OWNER)
    assert answer.status_code == 200 and answer.json()["token"]
    # Another account at the stranger's address is not locked either.
    get_user_model().objects.create_user(username="bob", password="correct horse 2")
    assert token(api, "bob", "correct horse 2", STRANGER).status_code == 200


def test_a_log_in_that_succeeds_forgets_the_failures_before_it(alice):
    api = APIClient()
    for n in range(4):
        assert token(api, "alice", f"typo {n}", OWNER).status_code == 400
    assert token(api, "alice", PASSWORD, OWNER).status_code == 200
    for n in range(4):
        assert token(api, "alice", f"typo {n}", OWNER).status_code == 400
    assert token(api, "alice", PASSWORD, OWNER).status_code == 200


def test_the_dashboard_and_the_token_api_count_together_and_say_why(alice, client):
    # The test client's address is 127.0.0.1.
    for n in range(3):
        assert token(APIClient(), "alice", f"guess {n}", "127.0.0.1").status_code == 400
    for n in range(2):
        page = client.post("/login/", {"username": "alice", "password": f"web guess {n}"})
        assert page.status_code == 200 and "correct username and password" in page.content.decode()
    page = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert page.status_code == 429
    text = page.content.decode()
    assert f"{LOCKED}; try again in 60 minutes." in text
    assert '<nav aria-label="Main">' in text  # the site's layout, the form shown again
    assert "_auth_user_id" not in client.session
    # From another address the owner logs in on the page.
    elsewhere = client.post(
        "/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR=OWNER
    )
    assert elsewhere.status_code == 302 and "_auth_user_id" in client.session


def test_the_admin_log_in_is_locked_per_account_and_address(alice, client):
    alice.is_staff = alice.is_superuser = True
    alice.save()
    for n in range(5):
        page = client.post("/admin/login/", {"username": "alice", "password": f"guess {n}"})
        assert "correct username and password" in page.content.decode()
    page = client.post("/admin/login/", {"username": "alice", "password": PASSWORD})
    assert f"{LOCKED}; try again in" in page.content.decode()
    assert "_auth_user_id" not in client.session
    page = client.post(
        "/admin/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR=OWNER
    )
    assert page.status_code == 302 and "_auth_user_id" in client.session


def test_the_admin_lists_failed_log_ins(alice, client, make_user):
    for n in range(2):
        token(APIClient(), "alice", f"guess {n}", STRANGER)
    admin = make_user("root")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    page = client.get("/admin/axes/accessattempt/")
    assert page.status_code == 200
    assert "alice" in page.content.decode() and STRANGER in page.content.decode()
    # Other users cannot read it.
    client.force_login(alice)
    assert client.get("/admin/axes/accessattempt/").status_code == 302
    client.logout()
    assert client.get("/admin/axes/accessattempt/").status_code == 302


def test_an_account_guessed_from_many_addresses_is_slowed_down_not_locked(alice, rates, settings):
    rates(login_username="4/hour", login_address="100/hour")
    settings.ARENA_LOGIN_SLOW_SECONDS = 30
    api = APIClient()
    for n in range(4):  # one guess from each address: the account's count is reached
        assert token(api, "alice", "a guess", f"192.0.2.{n}").status_code == 400
    # From the addresses where it failed: one password check between them all, then a pause.
    assert token(api, "alice", "another guess", "192.0.2.0").status_code == 400
    slowed = token(api, "alice", PASSWORD, "192.0.2.1")
    assert slowed.status_code == 429 and slowed.json()["code"] == "throttled"
    assert 0 < int(slowed["Retry-After"]) <= 30
    assert "checked only every few seconds" in slowed.json()["detail"]
    # Where it never failed (its owner's address, most likely) it is not slowed down.
    for _ in range(2):
        assert token(api, "alice", PASSWORD, OWNER).status_code == 200


def test_the_lock_follows_the_trusted_proxy_s_address(alice, trusted_proxies):
    trusted_proxies(1)
    api = APIClient()
    for n in range(5):
        answer = token(api, "alice", f"guess {n}", "10.0.0.1", HTTP_X_FORWARDED_FOR=STRANGER)
        assert answer.status_code == 400
    forwarded = {"HTTP_X_FORWARDED_FOR": STRANGER}
    assert token(api, "alice", PASSWORD, "10.0.0.1", **forwarded).status_code == 429
    assert token(api, "alice", PASSWORD, "10.0.0.1", HTTP_X_FORWARDED_FOR=OWNER).status_code == 200
    # A proxy's entry that is no address: the lock goes by the proxy's own address.
    garbled = {"HTTP_X_FORWARDED_FOR": "not an address"}
    assert token(api, "alice", "guess", "10.0.0.1", **garbled).status_code == 400


@pytest.mark.parametrize(
    "username", ["x" * 1000, "nul\x00name", " alice ", 5, None, ["alice"], {"a": 1}]
)
def test_odd_usernames_get_a_400(alice, username):
    answer = token(APIClient(), username, "a guess", STRANGER)
    assert answer.status_code == 400 and answer.json()["code"] == "invalid"
