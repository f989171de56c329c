"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

import logging
import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["bots", "tournaments"])


@worker_ready.connect
def announce_sandbox(**_kwargs) -> None:
    """Say at start which containment is in force, so an operator never has to guess."""
    from django.conf import settings

    from bots.sandbox import describe_enforcement, enforcement_mode, sandbox_available

    log = logging.getLogger("arena.worker")
    if sandbox_available():
        mode = enforcement_mode()
        log.log(
            logging.WARNING if "NOT BOUNDED" in mode else logging.INFO, "sandbox mode: %s", mode
        )
    log.info("sandbox: %s", describe_enforcement())
    if not sandbox_available():
        if settings.ARENA_TRUSTED_BOTS_ONLY:
            log.warning("!!! NO SANDBOX: ARENA_TRUSTED_BOTS_ONLY is on; bots run unconfined !!!")
        else:
            log.error("no sandbox (bubblewrap missing): uploaded bots will not be run")
