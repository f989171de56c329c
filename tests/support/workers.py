"""Real Celery worker processes for the integration tests, pointed at the test database,
and the broker's queues emptied between them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.servers import ROOT, database_url, stop_process_group, wait_for

# The name the worker tests know it by.
stop_worker = stop_process_group

ALL_QUEUES = "matches,validations,human_games,maintenance"


def purge_broker() -> None:
    """Drop messages left by earlier runs in each of the app's queues. Not FLUSHDB: that
    also deletes kombu's queue bindings, and a producer that declared the queue earlier in
    this process would not declare it again, so its messages would go nowhere until the
    worker re-declares."""
    from arena.celery import app

    with app.connection_for_write() as connection:
        for queue in ALL_QUEUES.split(","):
            connection.default_channel.queue_purge(queue)


def start_worker(
    tmp_path: Path,
    name: str = "worker",
    queues: str | None = ALL_QUEUES,
    concurrency: int = 2,
    **env_extra: str,
) -> subprocess.Popen:
    """`celery worker --beat` as a separate process (its own session, so its whole group
    can be killed), pointed at the test database, consuming ``queues`` (None: no ``-Q``,
    as a bare `celery -A arena worker`); returns once it is ready."""
    env = dict(os.environ)
    env["DATABASE_URL"] = database_url()
    env["ARENA_BOT_CACHE"] = str(tmp_path / "bot-cache")
    env["ARENA_LADDER"] = "0"  # tests count their matches; the ladder's tests turn it on
    env.update(env_extra)
    log_path = tmp_path / f"{name}.log"
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "arena", "worker", "--beat",
                "--schedule", str(tmp_path / f"{name}-beat-schedule"),
                "--pool", "prefork", "--concurrency", str(concurrency), "--loglevel", "INFO",
                *(["-Q", queues] if queues is not None else []),
                "--without-gossip", "--without-mingle", "--hostname", f"{name}@%h",
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    worker.log_path = log_path
    try:
        wait_for(lambda: " ready." in log_path.read_text(), 60, f"{name} to start", worker)
    except BaseException:
        stop_worker(worker)
        raise
    return worker
