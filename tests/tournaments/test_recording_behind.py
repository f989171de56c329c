"""A worker's result recorded behind its next match (tournaments/services/recorder.py): on the
process's recording thread, one at a time, and a worker lost before it commits leaves the
match to the reaper, played again and counted once."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from bots.sandbox import launcher
from games import registry
from tests.support.builders import active_bots, outcome, started_tournament, user
from tournaments import services, tasks
from tournaments.models import HostFailure, Match, Rating, RatingChange
from tournaments.read_models import stored_totals, totals_from_matches
from tournaments.services import playing, recorder

pytestmark = pytest.mark.django_db(transaction=True)
WAIT = 20.0


class Played:
    """What ``bots.runner.play_match`` returns, for a match the test does not run."""

    def __init__(self, result: dict):
        self.result = result

    def to_dict(self) -> dict:
        return self.result


@pytest.fixture
def tournament():
    owner = user(name="behind")
    return started_tournament(
        organiser=owner, bots=active_bots(owner=owner, count=2), games_per_pairing=4, seed=7
    )


@pytest.fixture(autouse=True)
def played_without_bots(monkeypatch):
    """Every match played at once, seat 0 winning: no sandbox, the rest as a worker runs it."""

    def run_match(*, game_slug, players, options, seed, clock, **_kwargs):
        game = registry.get(game_slug)
        return Played(
            outcome(match=Match(game=game.slug, engine_version=game.version), ranks=[1, 2])
        )

    monkeypatch.setattr(playing, "run_match", run_match)


@pytest.fixture
def behind(monkeypatch):
    """Recording behind allowed, whichever launcher this machine has (tested on its own)."""
    monkeypatch.setattr(recorder, "records_behind", lambda: True)
    yield
    assert recorder.wait_recorded(WAIT)


@pytest.fixture
def recorded_on(monkeypatch):
    """The threads the results were recorded on, each recording held until ``release``."""
    threads: list[int] = []
    release = threading.Event()
    record = playing.record_result

    def held_record(**kwargs):
        threads.append(threading.get_ident())
        assert release.wait(WAIT)
        return record(**kwargs)

    monkeypatch.setattr(playing, "record_result", held_record)
    held_record.threads, held_record.release = threads, release
    yield held_record
    release.set()


def queued(tournament) -> list[Match]:
    return list(tournament.matches.filter(status=Match.Status.QUEUED).order_by("pk"))


def assert_counted_once(tournament) -> None:
    """Standings equal a rebuild, and the live ratings a recompute from the results."""
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)
    live = {r.version_id: r.elo for r in Rating.objects.filter(pool="pairs:2")}
    recomputed = services.recompute_ratings(pool="pairs:2")
    assert live.keys() == recomputed.keys()
    for key in live:
        assert live[key] == pytest.approx(recomputed[key])


def test_a_result_handed_over_is_recorded_on_the_recording_thread(tournament, behind, recorded_on):
    match = queued(tournament)[0]
    assert playing.play_queued_match(match_id=match.pk, record_behind=True)
    # Returned with the result still being recorded: the next match could start now.
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.attempts == 1
    recorded_on.release.set()
    assert recorder.wait_recorded(WAIT)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert recorded_on.threads and recorded_on.threads[0] != threading.get_ident()
    assert RatingChange.objects.filter(match=match).count() == 2
    assert_counted_once(tournament)


def test_the_next_match_plays_while_the_last_is_recorded_and_both_count_once(
    tournament, behind, recorded_on
):
    first, second = queued(tournament)[:2]
    assert playing.play_queued_match(match_id=first.pk, record_behind=True)
    handed = threading.Event()

    def next_task():
        try:
            playing.play_queued_match(match_id=second.pk, record_behind=True)
            handed.set()
        finally:
            connection.close()  # this thread's own

    task = threading.Thread(target=next_task)
    task.start()
    # The second match is claimed and played, but its hand-over waits for the first's record.
    assert not handed.wait(0.5)
    assert Match.objects.get(pk=second.pk).status == Match.Status.RUNNING
    assert Match.objects.get(pk=first.pk).status == Match.Status.RUNNING
    recorded_on.release.set()
    assert handed.wait(WAIT)
    task.join(WAIT)
    assert recorder.wait_recorded(WAIT)
    assert set(
        Match.objects.filter(pk__in=[first.pk, second.pk]).values_list("status", flat=True)
    ) == {Match.Status.FINISHED}
    # Recorded in the order played: the ledger's positions follow it.
    assert Match.objects.get(pk=first.pk).rated_seq < Match.objects.get(pk=second.pk).rated_seq
    assert_counted_once(tournament)


def test_a_worker_lost_before_its_result_commits_leaves_the_match_to_the_reaper(
    tournament, behind, monkeypatch
):
    match = queued(tournament)[0]
    lost = []
    with monkeypatch.context() as patch:
        patch.setattr(recorder, "hand_over", lost.append)  # the process dies holding it
        assert playing.play_queued_match(match_id=match.pk, record_behind=True)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.attempts == 1
    assert not RatingChange.objects.filter(match=match).exists()

    # Nobody beats its heartbeat: once stale, the reaper queues it again.
    Match.objects.filter(pk=match.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    services.requeue_stuck_matches()
    assert Match.objects.get(pk=match.pk).status == Match.Status.QUEUED
    assert playing.play_queued_match(match_id=match.pk, record_behind=True)
    assert recorder.wait_recorded(WAIT)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.attempts == 2
    assert RatingChange.objects.filter(match=match).count() == 2
    # The lost attempt's recording, had it run late, records nothing.
    assert lost and lost[0]() is False
    assert RatingChange.objects.filter(match=match).count() == 2
    assert_counted_once(tournament)


def test_seats_that_cannot_be_closed_give_the_match_back_and_the_thread_goes_on(
    tournament, behind, monkeypatch
):
    first, second = queued(tournament)[:2]

    def broken_logs(_players):
        raise OSError("no such process group")

    with monkeypatch.context() as patch:
        patch.setattr(playing, "seat_logs", broken_logs)
        assert playing.play_queued_match(match_id=first.pk, record_behind=True)
        assert recorder.wait_recorded(WAIT)
    first.refresh_from_db()
    assert first.status == Match.Status.QUEUED
    assert HostFailure.objects.get(match=first).error.startswith("OSError")
    assert playing.play_queued_match(match_id=second.pk, record_behind=True)
    assert recorder.wait_recorded(WAIT)
    assert Match.objects.get(pk=second.pk).status == Match.Status.FINISHED


def test_recorded_inline_where_sandboxes_start_by_a_fork_running_python(tournament, monkeypatch):
    monkeypatch.setattr(launcher, "path", lambda: None)  # the preexec, not the C launcher
    assert not recorder.records_behind()
    match = queued(tournament)[0]
    assert playing.play_queued_match(match_id=match.pk, record_behind=True)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_only_a_worker_s_task_records_behind(tournament, behind, monkeypatch):
    asked = []
    monkeypatch.setattr(
        tasks.services,
        "play_queued_match",
        lambda *, match_id, record_behind: asked.append(record_behind),
    )
    match = queued(tournament)[0]
    tasks.play_match(match.pk)  # called directly
    tasks.play_match.apply(args=[match.pk])  # eagerly
    tasks.play_match.push_request(called_directly=False, is_eager=False)  # as a worker runs it
    try:
        tasks.play_match.run(match.pk)
    finally:
        tasks.play_match.pop_request()
    assert asked == [False, False, True]


def test_a_stopping_pool_process_records_what_was_handed_over_first():
    from arena.celery import record_what_was_handed_over

    done = threading.Event()
    started = threading.Event()

    def slow_record():
        started.set()
        threading.Event().wait(0.3)
        done.set()

    recorder.hand_over(slow_record)
    assert started.wait(WAIT)
    record_what_was_handed_over()
    assert done.is_set()


def test_one_result_waits_at_most_and_they_are_recorded_in_order():
    order = []
    first_may_end = threading.Event()
    recorder.hand_over(lambda: (first_may_end.wait(WAIT), order.append("first")))

    def hand_over_second():
        recorder.hand_over(lambda: order.append("second"))
        order.append("second handed over")

    second = threading.Thread(target=hand_over_second)
    second.start()
    second.join(0.3)
    assert second.is_alive() and order == []  # waiting for the first to be recorded
    first_may_end.set()
    second.join(WAIT)
    assert recorder.wait_recorded(WAIT)
    assert order[0] == "first" and sorted(order[1:]) == ["second", "second handed over"]


def test_with_no_thread_to_be_had_the_result_is_recorded_before_the_hand_over_returns(
    monkeypatch,
):
    class NoThread(threading.Thread):
        def start(self):
            raise RuntimeError("can't start new thread")

    fresh = recorder._Recorder()  # no thread started yet
    monkeypatch.setattr(recorder, "_RECORDER", fresh)
    monkeypatch.setattr(recorder.threading, "Thread", NoThread)
    ran_on = []
    recorder.hand_over(lambda: ran_on.append(threading.get_ident()))
    assert ran_on == [threading.get_ident()]
    assert recorder.wait_recorded(0)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="asks PostgreSQL its backend")
def test_the_recording_thread_keeps_its_connection_and_pings_it_not_before_each_result(
    monkeypatch,
):
    """Kept between results as a worker keeps it, with no health check round trip before
    each: a lost connection fails the recording's first statement, which it retries."""
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 60)
    monkeypatch.setitem(connections.settings["default"], "CONN_HEALTH_CHECKS", True)
    pings = []
    wrapper = type(connections["default"])
    is_usable = wrapper.is_usable

    def counted(self):
        pings.append(self.alias)
        return is_usable(self)

    monkeypatch.setattr(wrapper, "is_usable", counted)
    backends = []

    def record() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backends.append(cursor.fetchone()[0])

    recorder.wait_recorded(WAIT)

    def close() -> None:  # the recording thread's own connection
        connection.close()

    recorder.hand_over(close)  # a fresh connection next, with the settings above
    for _ in range(3):
        recorder.hand_over(record)
    recorder.hand_over(close)
    assert recorder.wait_recorded(WAIT)
    assert len(set(backends)) == 1 and len(backends) == 3
    assert pings == []
