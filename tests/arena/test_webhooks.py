"""Webhooks: made through the API (secret shown once), signed deliveries received by a real
HTTP server, chat formats, failures backing off and turning the hook off, tests sent from
its page, nothing sent about a hidden match, and the docs' verification snippet checking
a real delivery."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from arena.integrations import services
from arena.integrations.models import Notification, Webhook, WebhookDelivery
from bots import hooks
from bots import services as bot_services
from bots.models import BotVersion
from tests.support import builders
from tests.support.receiver import start_receiver

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def local_receivers(settings):
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = True
    started = []

    def make(statuses=None):
        receiver = start_receiver(statuses)
        started.append(receiver)
        return receiver

    yield make
    for receiver in started:
        receiver.server.shutdown()


def run_pending() -> list[float | None]:
    """One attempt at every pending delivery, as the worker's task makes it once due (the
    backoff's wait is taken as passed)."""
    pending = WebhookDelivery.objects.filter(status="pending")
    pending.filter(next_attempt_at__gt=timezone.now()).update(next_attempt_at=timezone.now())
    return [
        services.attempt_delivery(delivery_id=pk)
        for pk in WebhookDelivery.objects.filter(status="pending").values_list("pk", flat=True)
    ]


def validate(owner, capture, ok=True, reason=""):
    bot, _ = builders.bot_with_version(name=f"bot-{BotVersion.objects.count()}", owner=owner)
    version = builders.version(bot=bot, status=BotVersion.Status.VALIDATING, announce=False)
    with capture(execute=True):
        bot_services._record_verdict(version=version, ok=ok, reason=reason)
    return version


def docs_verify():
    text = DOCS.read_text()
    snippet = re.search(r"<!-- verify-snippet -->\n```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    exec(snippet, namespace)
    return namespace["verify"]


def test_post_webhooks_answers_its_id_and_secret_once(alice, client_for, local_receivers):
    receiver = local_receivers()
    api = client_for(alice)
    answer = api.post("/api/webhooks/", {"url": receiver.url, "events": []}, format="json")
    assert answer.status_code == 201, answer.content
    made = answer.json()
    assert made["id"] and len(made["secret"]) == 64 and made["events"] == []
    assert made["format"] == "json" and made["active"] is True
    assert "secret" not in api.get("/api/webhooks/").json()[0]
    assert "secret" not in api.get(f"/api/webhooks/{made['id']}/").json()
    assert Webhook.objects.get().wants("tournament.finished")  # empty: every kind


@pytest.mark.parametrize(
    "body, field",
    [
        ({"url": "ftp://example.org/x"}, "url"),
        ({"url": "https://example.org/x", "events": ["no.such"]}, "events.0"),
        ({"url": "http://127.0.0.1:9/x"}, "url"),
        ({"url": "http://localhost/x"}, "url"),
        ({"url": "https://example.org/x", "format": "xml"}, "format"),
        ({"url": "https://example.org/x", "tournament": 999999}, "tournament"),
    ],
)
def test_a_bad_webhook_is_a_400_on_its_field(alice, client_for, body, field):
    answer = client_for(alice).post("/api/webhooks/", body, format="json")
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["errors"], answer.json()
    assert not Webhook.objects.exists()


def test_only_its_organiser_hooks_a_tournament(alice, make_user, client_for):
    bots = [builders.bot_with_version(name=f"t{i}", owner=alice)[0] for i in range(2)]
    tournament = builders.started_tournament(organiser=alice, bots=bots)
    body = {"url": "https://example.org/x", "tournament": tournament.pk}
    assert (
        client_for(make_user("bob")).post("/api/webhooks/", body, format="json").status_code == 403
    )
    assert client_for(alice).post("/api/webhooks/", body, format="json").status_code == 201


def test_anonymous_and_other_users_reach_no_webhook(alice, make_user, client_for):
    hook = services.create_webhook(user=alice, url="https://example.org/x", events=[])
    anonymous = APIClient()
    assert anonymous.get("/api/webhooks/").status_code == 401
    assert (
        anonymous.post("/api/webhooks/", {"url": "https://e.org/"}, format="json").status_code
        == 401
    )
    bob = client_for(make_user("bob"))
    assert bob.get("/api/webhooks/").json() == []
    for call in (bob.get, bob.delete):
        assert call(f"/api/webhooks/{hook.pk}/").status_code == 404
    for action in ("test", "enable"):
        assert bob.post(f"/api/webhooks/{hook.pk}/{action}/").status_code == 404
    assert Webhook.objects.filter(pk=hook.pk).exists() and not WebhookDelivery.objects.exists()


def test_a_real_receiver_gets_signed_deliveries_the_docs_snippet_verifies(
    alice, local_receivers, django_capture_on_commit_callbacks
):
    receiver = local_receivers()
    hook = services.create_webhook(user=alice, url=receiver.url, events=["version.validated"])
    version = validate(alice, django_capture_on_commit_callbacks)
    validate(alice, django_capture_on_commit_callbacks, ok=False, reason="no")  # not subscribed
    assert run_pending() == [None]
    (got,) = receiver.wait_for(1)
    body = json.loads(got.body)
    assert body["event"] == "version.validated"
    assert body["data"]["version_id"] == version.pk and body["url"].endswith(
        f"/bots/{version.bot_id}/"
    )
    timestamp = got.headers["X-Arena-Timestamp"]
    expected = hmac.new(
        hook.secret.encode(), f"{timestamp}.".encode() + got.body, hashlib.sha256
    ).hexdigest()
    assert got.headers["X-Arena-Signature"] == f"sha256={expected}"
    verify = docs_verify()
    assert verify(hook.secret, got.headers, got.body)
    assert not verify("another secret", got.headers, got.body)
    assert not verify(hook.secret, got.headers, got.body + b" ")
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.status_code, delivery.attempts) == ("delivered", 204, 1)


def test_discord_and_slack_hooks_get_their_formats(
    alice, local_receivers, django_capture_on_commit_callbacks
):
    discord, slack = local_receivers(), local_receivers()
    services.create_webhook(user=alice, url=discord.url, events=[], format="discord")
    services.create_webhook(user=alice, url=slack.url, events=[], format="slack")
    validate(alice, django_capture_on_commit_callbacks, ok=False, reason="it timed out")
    run_pending()
    content = json.loads(discord.wait_for(1)[0].body)
    assert set(content) == {"content", "allowed_mentions"}
    assert "was refused: it timed out" in content["content"]
    assert "was refused: it timed out" in json.loads(slack.wait_for(1)[0].body)["text"]
    assert services.signing.format_for("https://discord.com/api/webhooks/1/abc") == "discord"
    assert services.signing.format_for("https://hooks.slack.com/services/T/B/x") == "slack"


def test_a_failing_receiver_backs_off_then_its_hook_is_turned_off(
    alice, local_receivers, settings, django_capture_on_commit_callbacks
):
    settings.ARENA_WEBHOOK_BACKOFF_SECONDS = 10
    settings.ARENA_WEBHOOK_ATTEMPTS = 5
    settings.ARENA_WEBHOOK_DISABLE_AFTER = 3
    receiver = local_receivers([500])
    hook = services.create_webhook(user=alice, url=receiver.url, events=["version.validated"])
    validate(alice, django_capture_on_commit_callbacks)
    waits = []
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(4):
            waits.extend(run_pending())
    assert waits == [10, 20, None]  # doubling; the third failure turns the hook off
    assert len(receiver.requests) == 3
    hook.refresh_from_db()
    assert not hook.active and "3 failed attempts in a row" in hook.disabled_reason
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.status_code) == ("failed", 3, 500)
    notice = Notification.objects.get(user=alice, kind="webhook.disabled")
    assert "turned off" in notice.text
    # Off: no new deliveries, and the test button says to turn it on first.
    validate(alice, django_capture_on_commit_callbacks)
    assert WebhookDelivery.objects.count() == 1
    with pytest.raises(services.ValidationError):
        services.send_test(webhook=hook)
    services.turn_on(webhook=hook)
    hook.refresh_from_db()
    assert hook.active and hook.failures == 0


def test_a_success_resets_the_count_of_failures(alice, local_receivers, settings):
    settings.ARENA_WEBHOOK_DISABLE_AFTER = 2
    backoff = settings.ARENA_WEBHOOK_BACKOFF_SECONDS
    receiver = local_receivers([500, 200, 500, 200])
    hook = services.create_webhook(user=alice, url=receiver.url, events=[])
    first, second = (services.send_test(webhook=hook) for _ in range(2))
    assert run_pending() == [backoff, None]  # the first fails, the second is delivered
    # The first fails again: two failures, but not in a row, so the hook stays on.
    assert run_pending() == [backoff * 2]
    hook.refresh_from_db()
    assert hook.active and hook.failures == 1
    assert run_pending() == [None]
    statuses = dict(WebhookDelivery.objects.values_list("pk", "status"))
    assert statuses == {first.pk: "delivered", second.pk: "delivered"}
    hook.refresh_from_db()
    assert hook.failures == 0


def test_the_send_a_test_button_delivers_and_shows_in_the_log(alice, client, local_receivers):
    receiver = local_receivers()
    hook = services.create_webhook(user=alice, url=receiver.url, events=["version.refused"])
    client.force_login(alice)
    answer = client.post(f"/account/webhooks/{hook.pk}/test/")
    assert answer.status_code == 302
    run_pending()
    assert json.loads(receiver.wait_for(1)[0].body)["event"] == "webhook.test"
    page = client.get(f"/account/webhooks/{hook.pk}/").content.decode()
    assert "webhook.test" in page and "delivered" in page and "204" in page


def test_no_webhook_hears_of_a_match_whose_record_is_hidden(
    alice, local_receivers, django_capture_on_commit_callbacks
):
    receiver = local_receivers()
    services.create_webhook(user=alice, url=receiver.url, events=[])
    bots = [builders.bot_with_version(name=f"h{i}", owner=alice)[0] for i in range(3)]
    tournament = builders.started_tournament(
        organiser=alice, bots=bots, record_visibility="tournament_end"
    )
    builders.play_queued(tournament_id=tournament.pk, limit=1)
    match = tournament.matches.filter(status="finished").first()
    event = hooks.Event(
        kind="version.crash_streak", user_ids=(alice.pk,), text="hidden", match_id=match.pk
    )
    services.dispatch_event(event)
    assert Notification.objects.filter(user=alice, text="hidden").exists()  # the inbox: yes
    assert not WebhookDelivery.objects.exists()  # webhooks: not while the record is hidden


def test_a_delivery_whose_message_was_lost_is_sent_again(alice, local_receivers):
    receiver = local_receivers()
    hook = services.create_webhook(user=alice, url=receiver.url, events=[])
    lost, waiting = (services.send_test(webhook=hook) for _ in range(2))
    long_ago = timezone.now() - timedelta(hours=1)
    WebhookDelivery.objects.filter(pk=lost.pk).update(next_attempt_at=long_ago)
    # The other waits for a retry later: a copy of its message arriving now does nothing.
    later = timezone.now() + timedelta(minutes=5)
    WebhookDelivery.objects.filter(pk=waiting.pk).update(next_attempt_at=later)
    assert services.resend_lost_deliveries() == 1
    assert services.attempt_delivery(delivery_id=waiting.pk) is None
    assert WebhookDelivery.objects.get(pk=waiting.pk).attempts == 0
    assert services.attempt_delivery(delivery_id=lost.pk) is None
    assert WebhookDelivery.objects.get(pk=lost.pk).status == "delivered"
    assert len(receiver.requests) == 1


def test_a_tournament_s_webhook_gets_each_of_its_events_once(
    alice, make_user, django_capture_on_commit_callbacks
):
    bob = make_user("bob")
    bots = [
        builders.bot_with_version(name="ta", owner=alice)[0],
        builders.bot_with_version(name="tb", owner=bob)[0],
    ]
    organiser = make_user("org")
    tournament = builders.started_tournament(organiser=organiser, bots=bots)
    hook = services.create_webhook(
        user=organiser, url="https://example.org/cup", events=[], tournament_id=tournament.pk
    )
    with django_capture_on_commit_callbacks(execute=True):
        builders.play_queued(tournament_id=tournament.pk)
    kinds = list(hook.deliveries.values_list("kind", flat=True))
    assert kinds == ["tournament.finished"]
    body = json.loads(hook.deliveries.get().body)
    assert [p["bot"] for p in body["data"]["places"]] == ["ta", "tb"]


def test_the_webhooks_page_offers_only_the_reader_s_own_tournaments(alice, make_user, client):
    bots = [builders.bot_with_version(name=f"o{i}", owner=alice)[0] for i in range(2)]
    mine = builders.started_tournament(organiser=alice, bots=bots, name="my cup")
    theirs = builders.started_tournament(organiser=make_user("bob"), bots=bots, name="bob cup")
    client.force_login(alice)
    page = client.get("/account/webhooks/").content.decode()
    assert "my cup" in page and "bob cup" not in page
    refused = client.post(
        "/account/webhooks/", {"url": "https://example.org/h", "tournament": theirs.pk}
    )
    assert refused.status_code == 200 and not Webhook.objects.exists()
    made = client.post(
        "/account/webhooks/", {"url": "https://example.org/h", "tournament": mine.pk}
    )
    assert made.status_code == 302 and Webhook.objects.get().tournament == mine
