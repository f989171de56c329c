import logging

from django.apps import AppConfig
from django.conf import settings


class ArenaConfig(AppConfig):
    name = "arena"

    def ready(self) -> None:
        # Register the deploy checks and the failed-log-in counter.
        from arena import checks, replay, throttling  # noqa: F401
        from tournaments.read_models import replays

        # The stored replays keep the viewer's frames and the page's text log too
        # (tournaments cannot build them).
        for part in replay.STORED_PARTS:
            replays.register_part(part)

        if settings.ARENA_TRUSTED_BOTS_ONLY:
            logging.getLogger("arena").warning(
                "!!! ARENA_TRUSTED_BOTS_ONLY is on: bots may run without a sandbox. "
                "Only use this for code you trust. !!!"
            )
