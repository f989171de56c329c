"""Thin Celery tasks: ids in, one service call."""

from celery import shared_task

from bots import services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def validate_bot_version(version_id: int) -> None:
    services.validate_version(version_id=version_id)


@shared_task
def requeue_stuck_validations() -> None:
    services.requeue_stuck_validations()
