"""Webhook posts go to the address that was judged, never to a second resolution of the
name (DNS rebinding), and private addresses are refused unless allowed."""

from __future__ import annotations

import ipaddress

import pytest

from arena.integrations import delivery
from tests.support.receiver import start_receiver


@pytest.fixture
def receiver():
    found = start_receiver([204, 302, 500])
    yield found
    found.server.shutdown()


def test_the_post_connects_to_the_given_address_and_names_the_host(receiver, settings):
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = False
    port = receiver.server.server_address[1]
    # The name resolves nowhere: only a connection to the judged address can reach the
    # receiver, and the request still names the URL's host.
    url = f"http://hooks.example.invalid:{port}/hook?x=1"
    code, error = delivery.post(
        url, b"{}", {"Content-Type": "application/json"}, address=ipaddress.ip_address("127.0.0.1")
    )
    assert (code, error) == (204, "")
    got = receiver.wait_for(1)[0]
    assert got.path == "/hook?x=1"
    assert got.headers["Host"] == f"hooks.example.invalid:{port}"
    # A redirect is not followed, and an error is a failure with its code.
    assert delivery.post(url, b"{}", {}, address=ipaddress.ip_address("127.0.0.1")) == (
        302,
        "answered 302",
    )
    assert delivery.post(url, b"{}", {}, address=ipaddress.ip_address("127.0.0.1")) == (
        500,
        "answered 500",
    )
    assert len(receiver.requests) == 3


@pytest.mark.parametrize(
    "url, reason",
    [
        ("ftp://example.org/x", "an http:// or https:// URL"),
        ("http://localhost:9/x", "localhost is a private or local address"),
        ("http://127.0.0.1:9/x", "127.0.0.1 is a private or local address"),
        ("http://[::1]:9/x", "::1 is a private or local address"),
        ("http://10.1.2.3/x", "10.1.2.3 is a private or local address"),
        ("http://nothing.invalid/x", "nothing.invalid does not resolve"),
    ],
)
def test_refused_addresses_are_never_posted_to(url, reason, settings):
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = False
    assert delivery.judge(url) == (reason, [])
    assert delivery.post(url, b"{}", {}) == (None, f"not sent: {reason}")


def test_a_private_receiver_is_reached_when_allowed(receiver, settings):
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = True
    assert delivery.post(receiver.url, b"{}", {}) == (204, "")
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = False
    reason = "127.0.0.1 is a private or local address"
    assert delivery.post(receiver.url, b"{}", {}) == (None, f"not sent: {reason}")
    assert len(receiver.requests) == 1


def test_a_public_literal_address_is_judged_without_resolving(settings):
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = False
    assert delivery.judge("https://93.184.215.14/hook") == (
        None,
        [ipaddress.ip_address("93.184.215.14")],
    )
