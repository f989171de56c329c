"""GET /metrics: never public (no token set: refused to everyone, staff included), the
Bearer token's checks, and an answer prometheus_client's parser reads."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from tests.support import builders, throttle

pytestmark = pytest.mark.django_db(transaction=True)
clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_user("metrics-staff", is_staff=True, is_superuser=True)
    client.force_login(staff)
    return client


def test_no_token_set_refuses_everyone_even_staff_and_a_guess(client, staff_client):
    with override_settings(ARENA_METRICS_TOKEN=""):
        for answer in (
            client.get("/metrics"),
            client.get("/metrics", HTTP_AUTHORIZATION="Bearer "),
            staff_client.get("/metrics"),
        ):
            assert answer.status_code == 403
            assert answer.json()["code"] == "metrics_disabled"


@override_settings(ARENA_METRICS_TOKEN="s3cret-token")
def test_the_token_is_asked_for_and_checked(client, staff_client):
    missing = client.get("/metrics")
    assert missing.status_code == 401
    assert missing["WWW-Authenticate"].startswith("Bearer")
    assert set(missing.json()) == {"detail", "code", "errors"}
    assert staff_client.get("/metrics").status_code == 401  # a session is not the token
    for wrong in ("Bearer s3cret", "Bearer s3cret-token-2", "Token s3cret-token", "s3cret-token"):
        answer = client.get("/metrics", HTTP_AUTHORIZATION=wrong)
        assert answer.status_code in (401, 403), wrong
        assert b"arena_" not in answer.content
    assert client.post("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").status_code == 405


@override_settings(ARENA_METRICS_TOKEN="s3cret-token", ARENA_METRICS_INSPECT_SECONDS=0.2)
def test_the_right_token_gets_every_fixed_name(client, tmp_path):
    with override_settings(ARENA_METRICS_DIR=tmp_path):
        answer = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert answer.status_code == 200
    names = {family.name for family in text_string_to_metric_families(answer.content.decode())}
    # The counters appear once something counted them; these are read at scrape time.
    assert {"arena_queue_depth", "arena_workers_alive", "arena_dependency_up"} <= names


def scrape(client) -> dict[str, dict[tuple, float]]:
    with override_settings(ARENA_METRICS_TOKEN="s3cret-token", ARENA_METRICS_INSPECT_SECONDS=0.2):
        answer = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token")
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(answer.content.decode()):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def counted_here(scope: str) -> float:
    """This process's own count of refusals in ``scope``: the endpoint sums every process
    sharing the metrics folder, and in the parallel test pass another process may be
    refusing in the same scope at the same moment."""
    value = REGISTRY.get_sample_value("arena_throttle_refusals_total", {"scope": scope})
    return value or 0.0


def test_refusals_and_request_times_are_counted(client, rates):
    rates(register="1/hour")
    refusals = (("scope", "register"),)
    before, here = scrape(client), counted_here("register")
    first = client.post("/api/auth/register/", {"username": "m-one", "password": "a long pass 1"})
    second = client.post("/api/auth/register/", {"username": "m-two", "password": "a long pass 1"})
    assert (first.status_code, second.status_code) == (201, 429)
    after = scrape(client)
    assert counted_here("register") == here + 1
    was = before.get("arena_throttle_refusals_total", {}).get(refusals, 0)
    assert after["arena_throttle_refusals_total"][refusals] >= was + 1
    api = (("family", "api"),)
    assert (
        after["arena_request_seconds_count"][api]
        >= before.get("arena_request_seconds_count", {}).get(api, 0) + 2
    )


def test_matches_in_flight_are_the_databases():
    owner = builders.user(name="flight-owner")
    bots = [builders.bot_with_version(name=f"fl-{i}", owner=owner)[0] for i in range(3)]
    tournament = builders.started_tournament(organiser=owner, bots=bots, games_per_pairing=2)
    queued = tournament.matches.filter(status="queued").count()
    assert queued > 0
    samples = scrape(Client())["arena_matches_in_flight"]
    assert samples[(("source", "other"), ("state", "queued"))] == queued
    assert samples[(("source", "ladder"), ("state", "queued"))] == 0
    assert samples[(("source", "other"), ("state", "running"))] == 0


def test_a_locked_log_in_is_counted(client, settings):
    settings.AXES_FAILURE_LIMIT = 2
    get_user_model().objects.create_user("m-locked", password="correct horse 1")
    login = (("scope", "login"),)
    before = scrape(client).get("arena_throttle_refusals_total", {}).get(login, 0)
    here = counted_here("login")
    api = APIClient()
    statuses = [
        api.post(
            "/api/auth/token/", {"username": "m-locked", "password": f"guess {n}"}, format="json"
        ).status_code
        for n in range(3)
    ]
    assert statuses == [400, 400, 429]
    assert counted_here("login") == here + 1
    assert scrape(client)["arena_throttle_refusals_total"][login] >= before + 1


def test_each_playing_worker_shows_the_age_of_its_newest_heartbeat():
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.models import Match

    owner = builders.user(name="beat-owner")
    bots = [builders.bot_with_version(name=f"hb-{i}", owner=owner)[0] for i in range(3)]
    tournament = builders.started_tournament(organiser=owner, bots=bots, games_per_pairing=2)
    first, second, third = tournament.matches.all()[:3]
    now = timezone.now()
    Match.objects.filter(pk=first.pk).update(
        status="running", worker="w-old", heartbeat_at=now - timedelta(seconds=300)
    )
    Match.objects.filter(pk=second.pk).update(
        status="running", worker="w-new", heartbeat_at=now - timedelta(seconds=1)
    )
    Match.objects.filter(pk=third.pk).update(
        status="running", worker="w-new", heartbeat_at=now - timedelta(seconds=200)
    )
    ages = scrape(Client())["arena_worker_heartbeat_age_seconds"]
    assert set(ages) == {(("worker", "w-old"),), (("worker", "w-new"),)}
    assert 299 <= ages[(("worker", "w-old"),)] < 330
    assert ages[(("worker", "w-new"),)] < 30  # its newest match's beat, not its oldest
