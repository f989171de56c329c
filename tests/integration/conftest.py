"""A real Celery worker process for integration tests, pointed at the test database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# wait_for is also imported from here by the integration tests.
from tests.support.servers import ROOT, database_url, stop_process_group, wait_for

# The name the worker tests know it by.
stop_worker = stop_process_group

ALL_QUEUES = "matches,validations,maintenance"


def _purge_broker() -> None:
    """Drop messages left by earlier runs in each of the app's queues. Not FLUSHDB: that
    also deletes kombu's queue bindings, and a producer that declared the queue earlier in
    this process would not declare it again, so its messages would go nowhere until the
    worker re-declares."""
    from arena.celery import app

    with app.connection_for_write() as connection:
        for queue in ALL_QUEUES.split(","):
            connection.default_channel.queue_purge(queue)


def start_worker(
    tmp_path: Path, name: str = "worker", queues: str = ALL_QUEUES, **env_extra: str
) -> subprocess.Popen:
    """`celery worker --beat` as a separate process (its own session, so its whole group
    can be killed), pointed at the test database, consuming ``queues``; returns once it
    is ready."""
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
                "--pool", "prefork", "--concurrency", "2", "--loglevel", "INFO", "-Q", queues,
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


@pytest.fixture
def celery_worker_process(transactional_db, tmp_path):
    """One worker for the test; it must still be alive at the end."""
    _purge_broker()
    worker = start_worker(tmp_path)
    try:
        yield worker
    finally:
        alive = worker.poll() is None
        stop_worker(worker)
        if not alive:
            pytest.fail("the worker died during the test:\n" + worker.log_path.read_text()[-3000:])


@pytest.fixture
def organiser(transactional_db):
    """A user and an API client logged in as them."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    user = get_user_model().objects.create_user("format-org")
    client = APIClient()
    client.force_authenticate(user)
    return user, client
