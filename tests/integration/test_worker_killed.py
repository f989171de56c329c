"""A worker killed with SIGKILL mid-match: its bots die with it, and the match is played
again by another worker, recorded and rated exactly once (Redis and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from bots import sandbox
from bots.sandbox import slots
from tests.bots.test_worker_death import orphaned_sandbox  # noqa: F401 (a fixture)
from tests.support.builders import bot_with_version
from tests.support.servers import wait_for
from tests.support.workers import start_worker, stop_worker
from tournaments import services
from tournaments.models import Match, RatingChange, Tournament

# Slow enough (about 0.15 s a move) that the kill lands mid-match.
SLOW_BOT = b"""import time
from arena_sdk import run


def act(observation, legal):
    time.sleep(0.15)
    return legal[0]


run(act)
"""

# Short enough that the test does not wait minutes for the reaper.
FAST_REAPER = {"ARENA_STALE_MATCH_SECONDS": "4", "ARENA_REAPER_SECONDS": "1"}


def bot_programs() -> list[int]:
    """Processes of sandbox uids that are not bubblewrap's own code."""
    bwrap = os.path.realpath(sandbox.bwrap_path() or "/usr/bin/bwrap")
    found = []
    for pid in slots.all_slot_processes():
        try:
            if os.readlink(f"/proc/{pid}/exe") != bwrap:
                found.append(pid)
        except OSError:
            continue
    return found


def skip_without_redis_and_postgresql() -> None:
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def one_match_running(owner, bot_ids, worker, *, name: str, seed: int) -> tuple:
    """A one-match tournament of the two slow bots, started; its tournament and match once
    ``worker`` plays it with its bots up."""
    tournament = services.create_tournament(
        organiser=owner, name=name, game="pairs", bot_ids=bot_ids,
        games_per_pairing=1, rotate_seats=False, move_ms=2000, bank_ms=30000, seed=seed,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)
    match = Match.objects.get(tournament=tournament)

    def mid_match():
        match.refresh_from_db()
        return match.status == Match.Status.RUNNING and slots.all_slot_processes()

    wait_for(mid_match, 60, "the match to be running with its bots", worker)
    return tournament, match


def wait_acked_with_its_result_waiting(match, worker) -> None:
    """Until the match's task is acked while its result waits on the recording thread
    (the caller holds the tournament's row, which the result's first statement locks)."""
    from bots.queueing import MATCHES, PLAY_MATCH, held_first_args

    def acked_with_its_result_waiting():
        match.refresh_from_db()
        held = held_first_args(task_name=PLAY_MATCH, queue=MATCHES, delivered_within=60)
        return match.status == Match.Status.RUNNING and match.pk not in held

    wait_for(acked_with_its_result_waiting, 60, "the task to be acked", worker)


@pytest.fixture
def two_slow_bots(transactional_db):
    """Two bots stored active as they are: validating them would play the slow bot's
    sample games (seconds), and validation is not what these tests hold."""
    owner = get_user_model().objects.create_user("kill-test")
    bot_ids = [
        bot_with_version(owner=owner, name=name, source=SLOW_BOT)[0].pk
        for name in ("slow-a", "slow-b")
    ]
    return owner, bot_ids


def test_a_killed_worker_loses_no_match_and_counts_none_twice(two_slow_bots, tmp_path):
    skip_without_redis_and_postgresql()
    owner, bot_ids = two_slow_bots
    from tests.support.workers import purge_broker

    purge_broker()
    first = start_worker(tmp_path, "first", **FAST_REAPER)
    second = None
    try:
        tournament, match = one_match_running(owner, bot_ids, first, name="kill test", seed=11)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        # The bots were children of the killed worker: PR_SET_PDEATHSIG takes them down. The
        # sandboxes it built ahead for its next match never start their program: they wait,
        # bubblewrap's own code, for the next worker's start-up to end them.
        assert wait_for(lambda: not bot_programs(), 10, "the orphaned bots to die")

        second = start_worker(tmp_path, "second", **FAST_REAPER)
        assert wait_for(
            lambda: not slots.all_slot_processes(), 10, "the start-up to end held sandboxes"
        )

        def finished():
            match.refresh_from_db()
            return match.status == Match.Status.FINISHED

        wait_for(finished, 180, "the reaper and the second worker to finish it", second)
        assert match.attempts == 2
        assert match.result and len(match.result["seats"]) == 2
        assert RatingChange.objects.filter(match=match).count() == 2
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED
        assert second.poll() is None
    finally:
        stop_worker(first)
        if second is not None:
            stop_worker(second)


def test_a_worker_ends_at_start_up_what_a_killed_worker_left_of_a_sandbox(
    orphaned_sandbox,  # noqa: F811
    tmp_path,
):
    """A worker killed while bwrap started a sandbox left its first process asleep; the next
    worker's start-up ends it (and says so)."""
    worker = start_worker(tmp_path, "next")
    try:
        assert wait_for(
            lambda: not os.path.exists(f"/proc/{orphaned_sandbox}"), 10, "the orphan to end"
        )
        assert "of sandboxes whose worker process died" in worker.log_path.read_text()
    finally:
        stop_worker(worker)


def test_a_worker_killed_before_its_handed_over_result_commits_loses_nothing(
    two_slow_bots, tmp_path
):
    """A worker's task is acked once its match is played and the result handed to its
    recording thread (tournaments/services/recorder.py). Killed before that result commits,
    the worker leaves the match running under a heartbeat nobody beats: the reaper queues
    it again and another worker plays it, recorded and rated once."""
    skip_without_redis_and_postgresql()
    from tests.support.workers import purge_broker
    from tournaments.read_models import stored_totals, totals_from_matches

    owner, bot_ids = two_slow_bots
    purge_broker()
    first = start_worker(tmp_path, "first", **FAST_REAPER)
    second = None
    try:
        tournament, match = one_match_running(
            owner, bot_ids, first, name="kill after play", seed=12
        )
        with transaction.atomic():
            # The result's first statement locks the tournament's row: held here, the
            # result waits on the recording thread once the match is played.
            Tournament.objects.select_for_update().get(pk=tournament.pk)
            wait_acked_with_its_result_waiting(match, first)
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        assert wait_for(lambda: not bot_programs(), 10, "the orphaned bots to die")
        match.refresh_from_db()
        assert match.status == Match.Status.RUNNING and match.attempts == 1
        assert not RatingChange.objects.filter(match=match).exists()

        second = start_worker(tmp_path, "second", **FAST_REAPER)

        def finished():
            match.refresh_from_db()
            return match.status == Match.Status.FINISHED

        wait_for(finished, 180, "the reaper and the second worker to finish it", second)
        assert match.attempts == 2
        assert RatingChange.objects.filter(match=match).count() == 2
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED
        assert stored_totals(tournament.pk) == totals_from_matches(tournament)
    finally:
        stop_worker(first)
        if second is not None:
            stop_worker(second)


def test_a_warm_shutdown_records_the_result_handed_over_first(two_slow_bots, tmp_path):
    """A worker told to stop (SIGTERM to its main process) while its pool process holds a
    played match's result on its recording thread records it before that process exits."""
    skip_without_redis_and_postgresql()
    from tests.support.workers import purge_broker

    owner, bot_ids = two_slow_bots
    purge_broker()
    worker = start_worker(tmp_path, "warm")
    try:
        tournament, match = one_match_running(owner, bot_ids, worker, name="warm shutdown", seed=13)
        with transaction.atomic():
            Tournament.objects.select_for_update().get(pk=tournament.pk)  # the result waits
            wait_acked_with_its_result_waiting(match, worker)
            os.kill(worker.pid, signal.SIGTERM)  # a warm shutdown
            time.sleep(2)
            assert worker.poll() is None  # its pool process waits for the result
        worker.wait(60)
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED and match.attempts == 1
        assert RatingChange.objects.filter(match=match).count() == 2
    finally:
        stop_worker(worker)
