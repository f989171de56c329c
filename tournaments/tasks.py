"""Thin Celery tasks: ids in, one service call."""

from celery import shared_task

from tournaments import services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def play_match(match_id: int) -> None:
    services.play_match(match_id=match_id)


@shared_task
def start_due_tournaments() -> None:
    services.start_due_tournaments()


@shared_task
def requeue_stuck_matches() -> None:
    services.requeue_stuck_matches()
