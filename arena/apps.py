import logging

from django.apps import AppConfig
from django.conf import settings


class ArenaConfig(AppConfig):
    name = "arena"

    def ready(self) -> None:
        if settings.ARENA_TRUSTED_BOTS_ONLY:
            logging.getLogger("arena").warning(
                "!!! ARENA_TRUSTED_BOTS_ONLY is on: bots may run without a sandbox. "
                "Only use this for code you trust. !!!"
            )
