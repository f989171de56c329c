import logging

from django.apps import AppConfig
from django.conf import settings


class ArenaConfig(AppConfig):
    name = "arena"

    def ready(self) -> None:
        # Register the deploy checks and the failed-log-in counter.
        from arena import checks, parsers, throttling  # noqa: F401

        parsers.read_left_out_booleans_as_json_does()

        if settings.ARENA_TRUSTED_BOTS_ONLY:
            logging.getLogger("arena").warning(
                "!!! ARENA_TRUSTED_BOTS_ONLY is on: bots may run without a sandbox. "
                "Only use this for code you trust. !!!"
            )
