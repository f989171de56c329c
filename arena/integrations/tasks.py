"""Thin Celery tasks: ids in, one service call."""

from celery import shared_task

from arena.integrations import services


@shared_task(bind=True, acks_late=True, max_retries=None)
def deliver_webhook(self, delivery_id: int) -> None:
    """One attempt; a failed one comes back after its backoff (the service counts the
    attempts and stops them)."""
    wait = services.attempt_delivery(delivery_id=delivery_id)
    if wait is not None:
        raise self.retry(countdown=wait)


@shared_task
def resend_lost_deliveries() -> None:
    services.resend_lost_deliveries()
