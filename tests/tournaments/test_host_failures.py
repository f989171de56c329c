"""A match the host cannot play (here: its bot cache is a file, so no bot unpacks) is
given back to the queue with a HostFailure row, and arena_host_failures_total counts it
once the release commits."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from bots import metrics
from tests.support import builders
from tournaments.models import HostFailure, Match
from tournaments.services.playing import play_queued_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_host_failure_is_stored_counted_and_the_match_queued_again(tmp_path):
    owner = builders.user(name="host-failure-owner")
    bots = [builders.bot_with_version(name=f"hf-{i}", owner=owner)[0] for i in range(2)]
    tournament = builders.started_tournament(organiser=owner, bots=bots, games_per_pairing=2)
    match = tournament.matches.order_by("pk").first()
    not_a_folder = tmp_path / "bot-cache"
    not_a_folder.write_text("a file where the bot cache should be")
    before = metrics.HOST_FAILURES._value.get()

    with override_settings(ARENA_BOT_CACHE=not_a_folder), pytest.raises(OSError):
        play_queued_match(match_id=match.pk)

    failure = HostFailure.objects.get(match=match)
    assert failure.attempt == 1
    assert failure.error.startswith("FileExistsError")
    assert failure.worker
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED
    assert metrics.HOST_FAILURES._value.get() == before + 1


def test_the_admin_lists_host_failures_read_only(client):
    owner = builders.user(name="hf-admin-owner")
    bots = [builders.bot_with_version(name=f"hfa-{i}", owner=owner)[0] for i in range(2)]
    match = builders.started_tournament(
        organiser=owner, bots=bots, games_per_pairing=2
    ).matches.first()
    HostFailure.objects.create(
        match=match, attempt=1, worker="w:1", error="OSError: gone", failed_at=match.queued_at
    )
    admin = get_user_model().objects.create_superuser("hf-admin", password="x" * 12)
    client.force_login(admin)
    listing = client.get("/admin/tournaments/hostfailure/")
    assert listing.status_code == 200 and "OSError: gone" in listing.content.decode()
    assert client.get("/admin/tournaments/hostfailure/add/").status_code == 403
