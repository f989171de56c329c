"""``python manage.py verify_competition <path>``: check a competition's archive without the
bots or the database (tournaments/archive/verify.py; ``python -m
tournaments.archive.verify <path>`` does the same without Django)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments.archive.verify import Discrepancy, Unreadable, load_archive, verify_archive

EXIT_DISCREPANCY = 1
EXIT_UNREADABLE = 2


class Command(BaseCommand):
    help = (
        "Check a competition's archive: the seeds' commitments, every match replayed through "
        "the engine, the final's pairings and standings rebuilt. Prints 'verified' (exit 0) "
        "or the first discrepancy (exit 1); an unreadable file exits 2."
    )
    # Nothing here reads the database: no checks that might.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path: str, **options):
        try:
            done = verify_archive(load_archive(path))
        except Unreadable as exc:
            raise CommandError(str(exc), returncode=EXIT_UNREADABLE) from None
        except Discrepancy as exc:
            # On stdout, where "verified" would be; the exit status says it failed.
            self.stdout.write(f"discrepancy: {exc}")
            raise CommandError(
                "not verified: the first discrepancy is above", returncode=EXIT_DISCREPANCY
            ) from None
        for note in done.notes:
            self.stdout.write(f"note: {note}")
        self.stdout.write(done.summary())
