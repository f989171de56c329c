"""The operations page in Chromium at 1280 and 390 px, as staff during an incident: it
refreshes itself without a reload, and a button goes through and comes back; screenshots
kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from arena.dashboard.views import operations as operations_views
from tests.support.builders import active_bots, started_tournament
from tests.support.page_checks import NARROW, WIDE, check_page, follow
from tournaments.models import HostFailure, Ladder, Match

PASSWORD = "a long password 1"


@pytest.fixture
def staff(transactional_db, django_user_model):
    return django_user_model.objects.create_user(
        username="on-call", password=PASSWORD, is_staff=True
    )


def incident(owner) -> Ladder:
    tournament = started_tournament(
        organiser=owner, bots=active_bots(owner=owner, count=3), games_per_pairing=2
    )
    stuck, failed, *_ = tournament.matches.order_by("pk")
    Match.objects.filter(pk=stuck.pk).update(
        status=Match.Status.RUNNING, attempts=1, worker="worker-3.example.internal:31337",
        heartbeat_at=timezone.now() - timedelta(minutes=12),
    )  # fmt: skip
    Match.objects.filter(pk=failed.pk).update(
        status=Match.Status.FAILED, attempts=3, error="out of attempts", finished_at=timezone.now()
    )
    for attempt in (1, 2, 3):
        HostFailure.objects.create(
            match=failed, attempt=attempt, worker="worker-2.example.internal:4242",
            error="FileExistsError: [Errno 17] File exists: '/var/lib/arena/bot-cache'",
            failed_at=timezone.now() - timedelta(minutes=10 - attempt),
        )  # fmt: skip
    return Ladder.objects.create(key="pairs:2:{}", game="pairs", players=2)


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_operations_page_during_an_incident(page_at, live_server, staff, width, monkeypatch):
    monkeypatch.setattr(
        operations_views, "POLL_SECONDS", 1
    )  # the test's patience, not the product's
    ladder = incident(staff)
    page = page_at(width)
    with override_settings(ARENA_METRICS_INSPECT_SECONDS=0.3):
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "on-call")
        page.fill("input[name=password]", PASSWORD)
        follow(page, "button[type=submit]")
        page.goto(f"{live_server.url}/operations/")
        assert "Host failures, last hour (3)" in page.locator("#host-failures h2").inner_text()
        assert "12 min" in page.locator("#stuck").inner_text()
        assert page.locator("#queue-matches").is_visible()
        check_page(page, f"operations-{width}")

        # A new failure shows without a reload.
        HostFailure.objects.create(
            match_id=Match.objects.filter(status=Match.Status.FAILED).get().pk, attempt=4,
            worker="worker-2.example.internal:4242", error="OSError: No space left on device",
            failed_at=timezone.now(),
        )  # fmt: skip
        page.wait_for_function(
            "document.querySelector('#host-failures h2').textContent.includes('(4)')",
            timeout=15000,
        )

        follow(page, "#ladders button[value=pause]")
        assert "Ladder pairs paused." in page.locator("main").inner_text()
        ladder.refresh_from_db()
        assert ladder.paused
        check_page(page, f"operations-after-pause-{width}")
