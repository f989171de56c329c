"""``python manage.py play <game> <bot> <bot>...``: a thin wrapper around bots/cli.py."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from bots import cli


class Command(BaseCommand):
    help = "Play one match locally, in the same sandbox as the server (see docs/bots.md)."

    def add_arguments(self, parser):
        cli.add_arguments(parser)

    def handle(self, *args, **options):
        namespace = type("Args", (), options)
        try:
            code = cli.run(namespace, self.stdout)
        except cli.PlayError as exc:
            raise CommandError(str(exc), returncode=cli.EXIT_ERROR) from None
        if code != cli.EXIT_OK:
            raise CommandError(
                "a bot given as a file faulted (--fail-on chooses which faults count)",
                returncode=code,
            )
