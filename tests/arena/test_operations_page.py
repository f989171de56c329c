"""The operations page and its buttons: staff only (anonymous visitors sent to log in,
other users refused), what it lists, and each button going through its service."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.utils import timezone

from bots import operations
from tests.support import builders
from tests.support.servers import free_port
from tournaments.models import HostFailure, Ladder, Match

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("quick_inspect"),
]
PAGES = ("/operations/", "/operations/live/")


@pytest.fixture
def quick_inspect():
    with override_settings(ARENA_METRICS_INSPECT_SECONDS=0.2):
        yield


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_user("ops-staff", is_staff=True)
    client.force_login(user)
    return client


@pytest.fixture
def ordinary(client):
    client.force_login(get_user_model().objects.create_user("ops-ordinary"))
    return client


@pytest.fixture
def tournament():
    owner = builders.user(name="ops-owner")
    bots = [builders.bot_with_version(name=f"ops-{i}", owner=owner)[0] for i in range(2)]
    return builders.started_tournament(organiser=owner, bots=bots, games_per_pairing=2)


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_visitors_are_sent_to_log_in(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.parametrize("path", [*PAGES, "/operations/act/"])
def test_other_users_are_refused(ordinary, path):
    assert ordinary.get(path).status_code == 403
    assert ordinary.post("/operations/act/", {"action": "pause", "ladder": "1"}).status_code == 403


def test_an_anonymous_button_press_changes_nothing(client):
    ladder = Ladder.objects.create(key="pairs:2:{}", game="pairs", players=2)
    response = client.post("/operations/act/", {"action": "pause", "ladder": ladder.pk})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    ladder.refresh_from_db()
    assert not ladder.paused


def test_staff_see_the_incident(staff, tournament):
    stuck, failed = tournament.matches.order_by("pk")[:2]
    long_ago = timezone.now() - timedelta(minutes=30)
    Match.objects.filter(pk=stuck.pk).update(
        status=Match.Status.RUNNING, attempts=1, worker="gone-host:4242", heartbeat_at=long_ago
    )
    Match.objects.filter(pk=failed.pk).update(
        status=Match.Status.FAILED, attempts=3, error="out of attempts", finished_at=timezone.now()
    )
    HostFailure.objects.create(
        match=failed, attempt=2, worker="bad-host:7", error="OSError: disk full",
        failed_at=timezone.now(),
    )  # fmt: skip
    HostFailure.objects.create(
        match=failed, attempt=1, worker="bad-host:7", error="OSError: an old one",
        failed_at=timezone.now() - timedelta(hours=2),
    )  # fmt: skip

    page = staff.get("/operations/")
    assert page.status_code == 200
    assert "no-cache" in page["Cache-Control"]
    html = page.content.decode()
    for section in ("health", "queues", "workers", "stuck", "host-failures", "failed", "ladders"):
        assert f'id="{section}"' in html
    assert "gone-host:4242" in html and "30 min" in html  # the stuck match's silence
    assert "Host failures, last hour (1)" in html
    assert "OSError: disk full" in html and "an old one" not in html
    assert 'value="requeue"' in html
    assert 'hx-get="/operations/live/"' in html
    live = staff.get("/operations/live/").content.decode()
    assert live.startswith('<div id="live"') and "gone-host:4242" in live


def test_requeue_goes_through_the_service(staff, tournament):
    match = tournament.matches.order_by("pk").first()
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FAILED, attempts=3, error="out of attempts", finished_at=timezone.now()
    )
    response = staff.post("/operations/act/", {"action": "requeue", "match": match.pk}, follow=True)
    assert response.redirect_chain[-1][0] == "/operations/"
    match.refresh_from_db()
    assert (match.status, match.attempts, match.error) == (Match.Status.QUEUED, 0, "")
    again = staff.post("/operations/act/", {"action": "requeue", "match": match.pk}, follow=True)
    assert "was not queued again: only a failed match" in again.content.decode()


def test_pause_and_resume_a_ladder(staff):
    ladder = Ladder.objects.create(key="pairs:2:{}", game="pairs", players=2)
    staff.post("/operations/act/", {"action": "pause", "ladder": ladder.pk})
    ladder.refresh_from_db()
    assert ladder.paused
    staff.post("/operations/act/", {"action": "resume", "ladder": ladder.pk})
    ladder.refresh_from_db()
    assert not ladder.paused


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"action": "explode"},
        {"action": "requeue"},
        {"action": "requeue", "match": "x"},
        {"action": "pause", "ladder": "-1"},
        {"action": "drain", "queue": "celery"},
    ],
)
def test_bad_presses_are_refused_with_a_reason(staff, data):
    response = staff.post("/operations/act/", data)
    assert response.status_code == 400
    assert 'id="refusal"' in response.content.decode()


def test_an_unknown_object_is_a_404(staff):
    assert (
        staff.post("/operations/act/", {"action": "requeue", "match": "999999"}).status_code == 404
    )


def test_a_drain_with_no_worker_stops_none_and_remembers_none(staff):
    response = staff.post("/operations/act/", {"action": "drain", "queue": "matches"}, follow=True)
    assert "Queue matches drained: 0 worker(s)" in response.content.decode()
    assert operations.drained_by("matches") == []


def test_the_page_says_when_the_broker_does_not_answer(staff):
    with override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0"):
        html = staff.get("/operations/").content.decode()
    assert "The broker does not answer" in html
    assert 'id="check-broker"' in html and "DOWN: OperationalError" in html
    assert "consumers unknown" in html
