"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

import logging
import os
import time

from celery import Celery
from celery.signals import (
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_shutdown,
    worker_ready,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["bots", "tournaments", "arena.integrations"])

_keep_connections = False


@worker_init.connect
def keep_database_connections(**_kwargs) -> None:
    """In a worker, keep database connections for ARENA_WORKER_DB_CONN_MAX_AGE seconds.

    Runs in the worker's main process before the pool forks, so every pool process
    inherits it. Health checks are turned on with it: the first query of a task after a
    pause finds a connection the database dropped (a restart) and opens a new one.
    """
    global _keep_connections
    from django.conf import settings
    from django.db import connections

    age = settings.ARENA_WORKER_DB_CONN_MAX_AGE
    if age <= 0:
        return
    for alias in connections:
        for settings_dict in (connections.settings[alias], connections[alias].settings_dict):
            settings_dict["CONN_MAX_AGE"] = age
            settings_dict["CONN_HEALTH_CHECKS"] = True
    _keep_connections = True


@worker_init.connect
def end_orphaned_sandboxes(**_kwargs) -> None:
    """At start, end what a worker killed while starting a sandbox left of it (its first
    process, asleep or running with nothing above it: bots/sandbox/orphans.py)."""
    from bots.sandbox import sweep_orphans

    sweep_orphans()


# A connection that answered this recently is not pinged before the next task's first query.
ANSWERED_WITHIN_SECONDS = 1.0
_last_task_ended = float("-inf")


@task_prerun.connect
@task_postrun.connect
def close_old_connections(sender=None, signal=None, **_kwargs) -> None:
    """Around each task, what Django does around each request: close a connection that
    broke or outlived its age (Celery's fixup does not when told to reuse them).

    Django then pings each kept connection (``SELECT 1``) before its next query, so a
    connection the database dropped while the worker waited is replaced, not failed on.
    Not when the last task ended within ``ANSWERED_WITHIN_SECONDS``, as in a run of
    matches: the ping would cost a round trip every task, and a connection lost in that
    moment fails the task's first statement (the claim, which then changed nothing), whose
    retry (``tournaments.tasks``) runs on a new one."""
    global _last_task_ended
    if not _keep_connections or getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections as close
    from django.db import connections

    close()
    if signal is task_postrun:
        _last_task_ended = time.monotonic()
    elif time.monotonic() - _last_task_ended < ANSWERED_WITHIN_SECONDS:
        for connection in connections.all(initialized_only=True):
            connection.health_check_done = True


@worker_process_shutdown.connect
def record_what_was_handed_over(**_kwargs) -> None:
    """A pool process that stops (a warm shutdown) records the result its last task handed
    to its recording thread first (tournaments/services/recorder.py): it exits without
    ``atexit``. Given up after a heartbeat's staleness: the reaper has the match by then."""
    from django.conf import settings

    from tournaments.services.recorder import wait_recorded

    if not wait_recorded(timeout=settings.ARENA_STALE_MATCH_SECONDS):
        logging.getLogger("arena.worker").warning("a handed-over result was not recorded")


@worker_ready.connect
def announce_sandbox(**_kwargs) -> None:
    """Say at start which containment is in force, so an operator never has to guess."""
    from django.conf import settings

    from bots.sandbox import (
        describe_enforcement,
        describe_memory,
        enforcement_mode,
        sandbox_available,
    )

    log = logging.getLogger("arena.worker")
    if sandbox_available():
        mode = enforcement_mode()
        log.log(
            logging.WARNING if "NOT BOUNDED" in mode else logging.INFO, "sandbox mode: %s", mode
        )
    log.info("sandbox: %s", describe_enforcement())
    memory = describe_memory()
    log.log(logging.INFO if "per bot tree" in memory else logging.WARNING, "memory: %s", memory)
    if not sandbox_available():
        if settings.ARENA_TRUSTED_BOTS_ONLY:
            log.warning("!!! NO SANDBOX: ARENA_TRUSTED_BOTS_ONLY is on; bots run unconfined !!!")
        else:
            log.error("no sandbox (bubblewrap missing): uploaded bots will not be run")
