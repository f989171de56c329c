"""``python manage.py replay <match.json> [--bot SEAT=FILE ...]``: see bots/rerun.py."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from bots import cli, rerun

EXIT_DIFFERENT = 1


class Command(BaseCommand):
    help = (
        "Play a recorded match again (a `play --json` file, or GET /api/matches/<id>/) and "
        "check every move and the result; exit status 1 at the first difference."
    )

    def add_arguments(self, parser):
        parser.add_argument("record", help="the match file")
        parser.add_argument(
            "--bot",
            action="append",
            default=[],
            metavar="SEAT=FILE",
            help="play that seat with this bot (a .py, .zip, folder or built-in name); the "
            "seats without one play their recorded moves",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, **options):
        try:
            record = rerun.read_record(options["record"])
            bots = rerun.parse_bots(options["bot"], len(record.result["seats"]))
            report = rerun.rerun(record, bots)
        except cli.PlayError as exc:
            raise CommandError(str(exc), returncode=cli.EXIT_ERROR) from None
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "same": report.same,
                        "first_move": report.first_move,
                        "differences": report.differences,
                        "seats": report.seats,
                        "replayed": report.outcome.to_dict(),
                    },
                    indent=1,
                )
            )
        else:
            self.stdout.write(rerun.describe(report))
        if not report.same:
            raise CommandError(
                f"the replay differs from the record: {report.differences[0]}",
                returncode=EXIT_DIFFERENT,
            )
