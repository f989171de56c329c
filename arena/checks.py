"""Deployment checks of Arena's own settings (``manage.py check --deploy``)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def throttle_counts_are_shared(app_configs, **kwargs) -> list[Warning]:
    """Throttle counts in process memory multiply every limit by the number of web
    processes (gunicorn runs several): a deployment needs CACHE_URL."""
    backend = settings.CACHES["default"]["BACKEND"]
    if backend.endswith(("LocMemCache", "DummyCache")):
        return [
            Warning(
                "Throttle counts are kept in each process's memory, so with several web "
                "processes every rate limit is multiplied by their number.",
                hint="Set CACHE_URL to a Redis every web process shares, e.g. redis://host:6379/1.",
                id="arena.W001",
            )
        ]
    return []
