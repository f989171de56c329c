"""``python manage.py export_competition <id> <path>``: a competition's archive, one JSON
document (gzip when the path ends in .gz) that ``verify_competition`` checks anywhere."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments.archive.export import competition_archive
from tournaments.archive.verify import dump_archive
from tournaments.models import Competition


class Command(BaseCommand):
    help = (
        "Write a competition's archive (every match's deal seed, versions, moves and result; "
        "the seeds' commitments; the final's format and standings) to PATH, gzip if it ends "
        "in .gz. It holds everything, hidden results too: see docs/archive.md."
    )

    def add_arguments(self, parser):
        parser.add_argument("competition_id", type=int)
        parser.add_argument("path")

    def handle(self, *args, competition_id: int, path: str, **options):
        competition = Competition.objects.filter(pk=competition_id).first()
        if competition is None:
            raise CommandError(f"there is no competition {competition_id}")
        archive = competition_archive(competition=competition)
        try:
            dump_archive(archive, path)
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror}") from None
        if competition.phase != Competition.Phase.CLOSED:
            self.stderr.write(
                f"note: the competition is {competition.phase}, not closed: this archive "
                "reveals its ladder's seed (and so its coming deals) and any hidden results"
            )
        elif competition.release != Competition.Release.PUBLIC:
            self.stderr.write(
                f"note: the results are released to {competition.release} only; this archive "
                "holds them all"
            )
        matches = archive["matches"]
        self.stdout.write(
            f"wrote {path}: competition {competition.pk} ({competition.name}), "
            f"{len(matches)} matches"
        )
