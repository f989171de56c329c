"""``python manage.py play <game> <bot> <bot>...``: one match (bots/cli.py), or many
(``--games``, ``--round-robin``, ``--gauntlet``: tournaments/bulk/play.py).

It lives in the tournaments app because bulk play reports statistics from
``tournaments.stats``, and bots/ sits below tournaments/ (pyproject.toml's layers).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from bots import cli
from tournaments.bulk import play as bulk_play


class Command(BaseCommand):
    help = (
        "Play one match locally, in the same sandbox as the server, or many with --games "
        "(see docs/bots.md). Exit status 1 when a bot given as a file faulted."
    )

    def add_arguments(self, parser):
        cli.add_arguments(parser)
        bulk_play.add_arguments(parser)

    def handle(self, *args, **options):
        namespace = type("Args", (), options)
        try:
            if bulk_play.wants_bulk(namespace):
                # The progress bar rewrites its line: the raw stream, not Django's wrapper
                # (which ends every write with a newline).
                err = getattr(self.stderr, "_out", self.stderr)
                code = bulk_play.run(namespace, self.stdout, err)
            else:
                code = cli.run(namespace, self.stdout)
        except cli.PlayError as exc:
            raise CommandError(str(exc), returncode=cli.EXIT_ERROR) from None
        if code != cli.EXIT_OK:
            raise CommandError(
                "a bot given as a file faulted (--fail-on chooses which faults count)",
                returncode=code,
            )
