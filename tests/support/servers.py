"""Real server processes for tests: free loopback ports, gunicorn as the Dockerfile runs it,
waiting on a process with its log at hand, and stopping a process's whole group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """The URL of the database this test run uses, for processes started by a test."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    auth = f"{user}:{db['PASSWORD']}" if db.get("PASSWORD") else user
    return (
        f"postgres://{auth}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


def redis_url() -> str:
    """The Redis this run was given (CACHE_URL, else the broker's); the test fails without
    one: `make test` always gives one, and a test that needs Redis must not pass silently."""
    for name in ("CACHE_URL", "CELERY_BROKER_URL"):
        url = os.environ.get(name, "")
        if url.startswith("redis://"):
            return url
    pytest.fail("this test needs Redis: set CACHE_URL or CELERY_BROKER_URL to redis://...")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def wait_for(
    predicate: Callable[[], Any],
    timeout: float,
    what: str,
    process: subprocess.Popen | None = None,
    interval: float = 0.1,
) -> Any:
    """Polls ``predicate`` until it is true and returns its value; fails the test after
    ``timeout`` seconds, or as soon as ``process`` has exited, with the tail of its log.
    Polled often: a test that waits on a worker is idle meanwhile, and each wait's
    expected overshoot is half an interval."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if process is not None and process.poll() is not None:
            break
        time.sleep(interval)
    lines = process.log_path.read_text().splitlines() if process is not None else []
    # The beat's every-few-seconds housekeeping would push everything else out.
    tail = "\n".join(line for line in lines if "start-due-tournaments" not in line)[-6000:]
    pytest.fail(f"timed out waiting for {what}\n--- process log ---\n{tail}")


def stop_process_group(process: subprocess.Popen, grace: float = 20) -> None:
    """SIGTERM to the process, which stops its own children (a Celery worker's warm
    shutdown, gunicorn's graceful one); then SIGKILL to its group (it was started in its
    own session) for anything left, or for all of it after ``grace`` seconds.

    Not SIGTERM to the whole group: a prefork pool child killed while it held the pool's
    queue lock left its worker waiting on that lock at exit until the SIGKILL (billiard's
    _help_stuff_finish; every time with the embedded broker, the whole grace a test)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # nothing of it is left
    process.wait()


def start_gunicorn(
    tmp_path: Path, *, env: dict[str, str], workers: int = 1, name: str = "gunicorn"
) -> subprocess.Popen:
    """gunicorn serving arena.wsgi on a free loopback port, in its own session, pointed at
    the test database; ``env`` is laid over this process's environment. Returns once it
    listens, with ``.port`` and ``.log_path`` (tmp_path/<name>.log) set."""
    port = free_port()
    log_path = tmp_path / f"{name}.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "arena.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", str(workers), "--timeout", "60", "--access-logfile", "-"],
            cwd=ROOT, env={**os.environ, "DATABASE_URL": database_url(), **env},
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    process.port, process.log_path = port, log_path
    try:
        wait_for(lambda: listening(port), 60, f"{name} to listen", process)
    except BaseException:
        stop_process_group(process)
        raise
    return process
