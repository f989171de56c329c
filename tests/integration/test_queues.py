"""Separate queues (Redis and PostgreSQL, real workers): validations and the reapers never
wait behind a match backlog, and the reaper re-sends only match messages that are gone."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from bots import services as bot_services
from bots.models import BotVersion
from bots.queueing import (
    MATCHES,
    PLAY_MATCH,
    VALIDATE_BOT_VERSION,
    VALIDATIONS,
    held_first_args,
)
from tests.support import builders
from tests.support.servers import wait_for
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments import services
from tournaments.models import Match

pytestmark = [pytest.mark.integration]

QUICK_BOT = b"""from arena_sdk import run

run(lambda observation, legal: legal[0])
"""


def needs_redis_and_postgres() -> None:
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def active_bots(owner, names: list[str], source: bytes = QUICK_BOT) -> list[int]:
    """Bots with an active version, validated in this process (no worker involved)."""
    ids = []
    for name in names:
        bot = bot_services.create_bot(owner=owner, name=name, game="pairs")
        version = bot_services.upload_version(bot=bot, filename="quick.py", data=source)
        assert bot_services.validate_version(version_id=version.pk).status == "active"
        ids.append(bot.pk)
    return ids


def reaper_runs(worker) -> int:
    lines = worker.log_path.read_text().splitlines()
    return sum("requeue_stuck_matches[" in line and "succeeded" in line for line in lines)


def test_validations_and_the_reaper_pass_a_match_backlog_which_is_not_resent(
    transactional_db, tmp_path
):
    needs_redis_and_postgres()
    purge_broker()
    owner = get_user_model().objects.create_user("queue-test")
    bot_ids = active_bots(owner, ["q-a", "q-b", "q-c"])
    tournament = services.create_tournament(
        organiser=owner, name="backlog", game="pairs", bot_ids=bot_ids, games_per_pairing=4,
        seed=3,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)  # 12 match messages, no match worker
    match_ids = set(tournament.matches.values_list("pk", flat=True))

    def held_matches() -> set:
        # This tournament's only: a worker killed by another test leaves its own.
        held = held_first_args(task_name=PLAY_MATCH, queue=MATCHES, delivered_within=120)
        return held & match_ids

    late = bot_services.create_bot(owner=owner, name="q-late", game="pairs")
    version = bot_services.upload_version(bot=late, filename="quick.py", data=QUICK_BOT)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert broker.llen(MATCHES) == len(match_ids)

    # Only the service side runs: the matches wait, validation and reaper must not.
    fast_reaper = {
        "ARENA_REAPER_SECONDS": "1",
        "ARENA_LOST_MESSAGE_SECONDS": "1",
        "ARENA_STALE_MATCH_SECONDS": "2",
    }
    service = start_worker(tmp_path, "service", queues="validations,maintenance", **fast_reaper)
    try:

        def validated():
            version.refresh_from_db()
            return version.status == BotVersion.Status.ACTIVE

        wait_for(validated, 60, "the validation behind 12 queued matches", service)
        wait_for(lambda: reaper_runs(service) >= 3, 30, "three reaper runs", service)
        # Every match is still waiting, each message once: the backlog was not re-sent.
        assert set(Match.objects.values_list("status", flat=True)) == {Match.Status.QUEUED}
        assert broker.llen(MATCHES) == len(match_ids)
        assert held_matches() == match_ids

        # Five messages vanish (as with a broker restart): exactly those are sent again.
        lost = {json.loads(raw)["headers"]["argsrepr"] for raw in broker.rpop(MATCHES, 5)}
        assert len(lost) == 5
        wait_for(
            lambda: broker.llen(MATCHES) == len(match_ids),
            30,
            "the reaper to re-send the five lost messages",
            service,
        )
        runs = reaper_runs(service)
        wait_for(lambda: reaper_runs(service) >= runs + 2, 30, "two more reaper runs", service)
        assert broker.llen(MATCHES) == len(match_ids)
        assert held_matches() == match_ids

        # A worker that died holding a message leaves it "unacked" until the visibility
        # timeout, hours away: an hour-old delivery counts as lost and is sent again.
        raw = broker.rpop(MATCHES)
        tag = json.loads(raw)["properties"]["delivery_tag"]
        broker.hset("unacked", tag, json.dumps([json.loads(raw), MATCHES, MATCHES]))
        broker.zadd("unacked_index", {tag: time.time() - 3600})
        try:
            wait_for(
                lambda: broker.llen(MATCHES) == len(match_ids),
                30,
                "the reaper to re-send the message a dead worker held",
                service,
            )
        finally:
            broker.hdel("unacked", tag)
            broker.zrem("unacked_index", tag)
    finally:
        stop_worker(service)
    purge_broker()


def test_the_validation_reaper_resends_only_lost_messages_and_times_validating_from_delivery(
    transactional_db, settings
):
    needs_redis_and_postgres()
    purge_broker()
    settings.ARENA_LOST_MESSAGE_SECONDS = 30
    settings.ARENA_STALE_VALIDATION_SECONDS = 600
    owner = get_user_model().objects.create_user("reaper-test")
    bot = bot_services.create_bot(owner=owner, name="r-bot", game="pairs")
    now = timezone.now()

    def version(number: int, **fields) -> BotVersion:
        fields.setdefault("status", BotVersion.Status.PENDING)
        return builders.version(
            bot=bot, number=number, source=QUICK_BOT, filename="quick.py", announce=False,
            **fields,
        )  # fmt: skip

    def held() -> set:
        # Versions of this test only: a worker killed by another test leaves its own.
        held = held_first_args(
            task_name=VALIDATE_BOT_VERSION, queue=VALIDATIONS, delivered_within=600
        )
        return held & set(bot.versions.values_list("pk", flat=True))

    # Pending, sent a minute ago, but the broker has no message for it: sent again, once.
    lost = version(1, queued_at=now - timedelta(minutes=1))
    assert bot_services.requeue_stuck_validations() == 1
    assert held() == {lost.pk}
    BotVersion.objects.filter(pk=lost.pk).update(queued_at=now - timedelta(minutes=1))
    assert bot_services.requeue_stuck_validations() == 0  # the broker holds it: no duplicate
    assert held() == {lost.pk}

    # Uploaded an hour ago but delivered just now (it waited its turn): not abandoned.
    busy = version(2, status=BotVersion.Status.VALIDATING, queued_at=now)
    BotVersion.objects.filter(pk=busy.pk).update(created_at=now - timedelta(hours=1))
    assert bot_services.requeue_stuck_validations() == 0
    busy.refresh_from_db()
    assert busy.status == BotVersion.Status.VALIDATING

    # Delivered eleven minutes ago and still validating: its worker died.
    BotVersion.objects.filter(pk=busy.pk).update(queued_at=now - timedelta(minutes=11))
    assert bot_services.requeue_stuck_validations() == 1
    busy.refresh_from_db()
    assert busy.status == BotVersion.Status.PENDING
    assert held() == {lost.pk, busy.pk}
    purge_broker()


def test_a_bare_worker_serves_every_queue(transactional_db, tmp_path):
    """`celery -A arena worker` with no -Q, the first command anyone types: it validates,
    plays matches and runs the maintenance tasks."""
    needs_redis_and_postgres()
    purge_broker()
    owner = get_user_model().objects.create_user("bare-worker")
    bot_ids = active_bots(owner, ["bare-a", "bare-b"])
    late = bot_services.create_bot(owner=owner, name="bare-late", game="pairs")
    version = bot_services.upload_version(bot=late, filename="quick.py", data=QUICK_BOT)
    tournament = services.create_tournament(
        organiser=owner, name="bare", game="pairs", bot_ids=bot_ids, games_per_pairing=2,
        seed=5,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)
    worker = start_worker(tmp_path, "bare", queues=None)
    try:

        def played():
            statuses = set(tournament.matches.values_list("status", flat=True))
            return statuses == {Match.Status.FINISHED}

        wait_for(played, 90, "the bare worker to play every match", worker)

        def validated():
            version.refresh_from_db()
            return version.status == BotVersion.Status.ACTIVE

        wait_for(validated, 60, "the bare worker to validate", worker)
        wait_for(  # and the maintenance queue's tasks
            lambda: "start_due_tournaments[" in worker.log_path.read_text(),
            30,
            "a maintenance task to run",
            worker,
        )
        log = worker.log_path.read_text()
        for queue in ("matches", "validations", "maintenance"):
            assert f"exchange={queue}(direct) key={queue}" in log  # the worker's banner
        assert "arena.worker: memory: " in log  # which memory bound is in force
    finally:
        stop_worker(worker)
    purge_broker()


def test_a_queue_no_worker_consumes_is_reported_with_its_backlog(transactional_db, tmp_path):
    """Only a maintenance worker runs: matches and validations would wait in silence. Its
    periodic check names each queue nobody consumes, and how many messages wait there."""
    needs_redis_and_postgres()
    purge_broker()
    owner = get_user_model().objects.create_user("unserved-queues")
    bot_ids = active_bots(owner, ["u-a", "u-b", "u-c"])
    tournament = services.create_tournament(
        organiser=owner, name="unserved", game="pairs", bot_ids=bot_ids, games_per_pairing=2,
        seed=7,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)  # 6 match messages
    late = bot_services.create_bot(owner=owner, name="u-late", game="pairs")
    # Four validation messages: the three bots' (validated here, their messages still sent)
    # and this one's.
    bot_services.upload_version(bot=late, filename="quick.py", data=QUICK_BOT)
    check = {"ARENA_QUEUE_CHECK_SECONDS": "1", "ARENA_UNSERVED_QUEUE_SECONDS": "2"}
    worker = start_worker(tmp_path, "maintenance-only", queues="maintenance", **check)
    try:

        def reported() -> bool:
            log = worker.log_path.read_text()
            return (
                "no worker consumes the 'matches' queue" in log
                and "no worker consumes the 'validations' queue" in log
            )

        wait_for(reported, 60, "the warnings about matches and validations", worker)
        lines = worker.log_path.read_text().splitlines()
        matches = next(line for line in lines if "the 'matches' queue" in line)
        validations = next(line for line in lines if "the 'validations' queue" in line)
        assert "WARNING" in matches and "6 messages wait" in matches, matches
        assert "WARNING" in validations and "4 messages wait" in validations, validations
        assert "the 'maintenance' queue" not in worker.log_path.read_text()
    finally:
        stop_worker(worker)
    purge_broker()
