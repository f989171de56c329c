"""A worker's results recorded behind its next match: one recording thread per process.

A worker's task plays its match, then hands the result's recording (the transaction of
``recording.record_result``, the seats' logs, their kill) to this process's recording
thread and returns: Celery acks the message and delivers the next, whose claim and play
start while the last result commits. The recording's round trips, the PostgreSQL work and
the commit's wait for the WAL flush leave the worker's critical path; nothing about the
result changes (the same transaction, synchronous commit, the same conditional UPDATE that
only the attempt holding the claim can make).

What a worker lost between the hand-over and the commit leaves: the message is acked, the
match ``running`` with this attempt and a heartbeat that nobody refreshes. The reaper
queues it again once the heartbeat is ``ARENA_STALE_MATCH_SECONDS`` old, as for a worker
killed mid-match, and the next attempt plays it; nothing of the lost attempt was written,
so nothing is counted twice, and a late commit of it could not match the attempt number.
A warm shutdown records what is pending before the process exits
(``arena/celery.py``, ``worker_process_shutdown``; ``atexit`` where no pool forks).

At most one result waits: a second hand-over waits for the first to be recorded, so a
process never holds more than one unrecorded match, and its results commit in the order
they were played. The thread has its own database connection (Django's are per thread),
kept between results like the worker's own: closed after a result if it broke or is too
old, and not pinged before the next (a lost one fails the recording's first statement,
which the recording retries on a new connection).

Only where a sandbox starts with vfork and the C launcher (``bots/sandbox/launcher.py``):
nothing of Python runs between that fork and exec, so a second thread is safe beside it.
With the Python ``preexec_fn`` (no C compiler, ``ARENA_SANDBOX_LAUNCHER=python``) the
worker forks itself and runs Python in the child, which a second thread can deadlock (a
lock it holds is copied held): then the result is recorded inline, as before. (Without
cgroups, ``slots.kill_uid`` forks a helper that runs a few calls of ``os`` and exits: none
takes a lock another thread could hold; the GIL and the import lock are reset in a child.)

Why not a result's commit without the WAL flush instead (``synchronous_commit = off``, as
the claim's): it takes only the flush's wait off the path (3.7-3.9 ms of a recording's
~18 ms on a quiet machine, 5-10 of 33-37 ms under load; the rest is round trips,
PostgreSQL's work and the seats' last logs), and a crash of PostgreSQL would then lose
results already acked and announced (events, metrics, the next round's messages), each
played again through the reaper. The thread takes the whole recording off the path, and
a result it records is on disk once committed, as before.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable

from django.db import close_old_connections, connections

from bots.sandbox import launcher

log = logging.getLogger(__name__)


def records_behind() -> bool:
    """Whether this process may record behind its next match: its sandboxes start without
    Python running between fork and exec (the C launcher)."""
    return launcher.path() is not None


class _Recorder:
    """The process's recording thread and the one job it may hold."""

    def __init__(self) -> None:
        self._ready = threading.Condition()
        self._job: Callable[[], object] | None = None
        self._thread: threading.Thread | None = None

    def hand_over(self, job: Callable[[], object]) -> None:
        """Have the thread run ``job`` once the one before it is done; returns once taken.
        With no thread to be had (a process limit), ``job`` runs here, as inline."""
        with self._ready:
            if self._has_thread():
                while self._job is not None:
                    self._ready.wait()
                self._job = job
                self._ready.notify_all()
                return
        job()

    def _has_thread(self) -> bool:
        if self._thread is not None and self._thread.is_alive():
            return True
        self._thread = threading.Thread(target=self._run, name="arena-recorder", daemon=True)
        try:
            self._thread.start()
        except RuntimeError:  # can't start new thread
            log.warning("no recording thread could be started; recording inline", exc_info=True)
            self._thread = None
            return False
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job handed over to be done; False if it is not after ``timeout``."""
        with self._ready:
            return self._ready.wait_for(lambda: self._job is None, timeout)

    def _run(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._job is not None)
                job = self._job
            try:
                job()
            except Exception:  # the job logs its own; the thread goes on for the next
                log.exception("a result handed to the recording thread was not recorded")
            finally:
                _close_old_connections()
                with self._ready:
                    self._job = None
                    self._ready.notify_all()


def _close_old_connections() -> None:
    """After each job: close this thread's connections that broke or outlived their age (a
    worker keeps its own as long), as around a task, without the health check (a
    ``SELECT 1`` round trip) that arms for the next job's first query: a connection lost
    meanwhile fails the recording's first statement, which the recording retries on a new
    one (``playing._record_when_the_database_answers``), so the check would only cost a
    round trip every match."""
    close_old_connections()
    for connection in connections.all(initialized_only=True):
        connection.health_check_done = True


_RECORDER = _Recorder()


def hand_over(job: Callable[[], object]) -> None:
    """Record behind: ``job`` runs on this process's recording thread, after any job before
    it; returns once it is queued there (at once, unless one is still being recorded)."""
    _RECORDER.hand_over(job)


def wait_recorded(timeout: float | None = None) -> bool:
    """Wait until every result handed over is recorded (or given up); False on a timeout."""
    return _RECORDER.wait(timeout)


def _after_fork_in_child() -> None:
    """A child starts with no recording thread, and no job: the parent's is its own."""
    global _RECORDER
    _RECORDER = _Recorder()


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(wait_recorded, 60.0)
