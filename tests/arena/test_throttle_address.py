"""Item 10: the client address for throttling is REMOTE_ADDR unless proxies are trusted;
a forged X-Forwarded-For never buys a fresh allowance."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.support import throttle

# The shared throttle fixtures, used by name.
clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates
trusted_proxies = throttle.trusted_proxies


def sign_up(client, number: int, **headers):
    return client.post(
        "/api/auth/register/",
        {"username": f"user{number}", "password": "a long password 42"},
        format="json",
        **headers,
    )


def test_forty_sign_ups_with_forged_forwarded_for_are_throttled(db, rates):
    rates(register="10/hour")
    client = APIClient()
    answers = [
        sign_up(client, n, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(40)
    ]
    assert answers.count(201) == 10 and answers.count(429) == 30, answers
    assert get_user_model().objects.count() == 10


def test_dashboard_sign_ups_with_forged_forwarded_for_are_throttled(db, client, rates):
    rates(register="3/hour")
    statuses = []
    for n in range(6):
        client.logout()
        answer = client.post(
            "/signup/",
            {
                "username": f"web{n}",
                "password1": "a long password 7",
                "password2": "a long password 7",
            },
            HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
        )
        statuses.append(answer.status_code)
    assert statuses == [302, 302, 302, 429, 429, 429]
    assert get_user_model().objects.count() == 3


def test_a_trusted_proxy_s_entry_is_the_client(db, rates, trusted_proxies):
    rates(register="2/hour")
    trusted_proxies(1)
    client = APIClient()
    # Behind one proxy, the rightmost entry is the address the proxy saw; anything to its
    # left came from the client and is ignored.
    for n in range(2):
        forged = f"10.0.0.{n}, 192.0.2.7"
        assert sign_up(client, n, HTTP_X_FORWARDED_FOR=forged).status_code == 201
    assert sign_up(client, 2, HTTP_X_FORWARDED_FOR="10.9.9.9, 192.0.2.7").status_code == 429
    # Another client behind the same proxy has its own allowance.
    assert sign_up(client, 3, HTTP_X_FORWARDED_FOR="192.0.2.8").status_code == 201
