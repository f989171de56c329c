"""Write every read model again from the tables it is derived from.

The read models are kept up to date in the transactions that change what they show;
this command is for after a bulk load, a restore or a change of how they are computed.
One function per read model; ``--only`` picks some of them.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from tournaments import leaderboards

READ_MODELS = {
    "leaderboards": leaderboards.rebuild_leaderboards,
}


class Command(BaseCommand):
    help = "Rebuild the read models (leaderboards...) from the tables they are derived from."

    def add_arguments(self, parser):
        parser.add_argument(
            "--only",
            action="append",
            choices=sorted(READ_MODELS),
            help="rebuild only this read model (repeatable); all of them by default",
        )

    def handle(self, *args, only=None, **options):
        for name in only or list(READ_MODELS):
            started = time.perf_counter()
            result = READ_MODELS[name]()
            seconds = time.perf_counter() - started
            rows = sum(result.values()) if isinstance(result, dict) else result
            self.stdout.write(f"{name}: {rows} rows in {seconds:.1f} s")
