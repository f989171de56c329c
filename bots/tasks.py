"""Thin Celery tasks: ids in, one service call."""

import time

from celery import shared_task
from django.db import InterfaceError, OperationalError

from bots import queueing, sandbox, services

# As for matches (tournaments/tasks.py): a database error retries with a jittered
# backoff instead of dropping the message; the validation reaper covers the rest.
DATABASE_ERRORS = (OperationalError, InterfaceError)
VALIDATION_TASK = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": DATABASE_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 8,
    "retry_jitter": True,
    "max_retries": 200,
}


@shared_task(**VALIDATION_TASK)
def validate_bot_version(version_id: int) -> None:
    services.validate_version(version_id=version_id)


@shared_task(**VALIDATION_TASK)
def validate_options(validation_id: int) -> None:
    services.validate_options(validation_id=validation_id)


@shared_task
def requeue_stuck_validations() -> None:
    services.requeue_stuck_validations()


@shared_task
def end_orphaned_sandboxes() -> None:
    """On whichever machine runs it: what workers killed while starting a sandbox left."""
    sandbox.sweep_orphans()


@shared_task
def check_queue_consumers() -> None:
    queueing.report_unserved_queues(now=time.time())
