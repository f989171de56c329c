"""Load the demo: a user, example bots, and a finished Pairs tournament of every format.

Idempotent: a tournament that exists is not made again. The round robin is
played here, synchronously, through the same services a worker calls, so the
product starts with real results even before the worker has picked anything up;
the other formats are started and left to the workers (so `make run` opens on
live tournaments, and starts in seconds), unless --play-all plays them here too.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from bots import services as bot_services
from bots.models import Bot
from tournaments import services
from tournaments.models import Match, Tournament

DEMO_USER = "demo"
DEMO_TOURNAMENT = "Demo round robin (Pairs)"
# Name -> the format and its settings; the round robin above comes first.
DEMO_FORMATS = {
    "Demo Swiss (Pairs)": {"format": "swiss", "rounds": 3},
    "Demo single elimination (Pairs)": {"format": "single_elimination", "third_place": True},
    "Demo double elimination (Pairs)": {"format": "double_elimination"},
    "Demo gauntlet (Pairs)": {"format": "gauntlet", "challengers": ["cautious-pairs"]},
}
DEMO_BOTS = {
    # bot name -> example shipped in examples/bots/ (a folder is uploaded as a .zip)
    "cautious-pairs": "pairs_cautious.py",
    "random-sdk": "sdk_bot.py",
    "first-legal-raw": "raw_bot.py",
    "largest-zip": "zip_bot",
}


def example_upload(path: Path) -> tuple[str, bytes]:
    """The file name and bytes a user would upload for the example at ``path``."""
    if path.is_file():
        return path.name, path.read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member in sorted(path.glob("*.py")):
            archive.write(member, member.name)
    return f"{path.name}.zip", buffer.getvalue()


class Command(BaseCommand):
    help = "Load the demo data (example bots and a finished Pairs tournament)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--play-all",
            action="store_true",
            help="play every demo tournament here instead of leaving all but one to the workers",
        )

    def handle(self, *args, **options):
        names = [DEMO_TOURNAMENT, *DEMO_FORMATS]
        if Tournament.objects.filter(name__in=names).count() == len(names):
            self.stdout.write("demo already loaded")
            return
        user, created = get_user_model().objects.get_or_create(username=DEMO_USER)
        if created:
            user.set_unusable_password()
            user.save()
        examples = Path(settings.BASE_DIR) / "examples" / "bots"
        bot_ids = []
        for name, filename in DEMO_BOTS.items():
            path = examples / filename
            if not path.exists():
                self.stderr.write(f"skipping {name}: {path} is missing")
                continue
            bot = Bot.objects.filter(name=name).first() or bot_services.create_bot(
                owner=user,
                name=name,
                game="pairs",
                description=f"example: examples/bots/{filename}",
            )
            if not bot.versions.exists():
                upload_name, data = example_upload(path)
                with transaction.atomic():
                    version = bot_services.upload_version(bot=bot, filename=upload_name, data=data)
                # Validate here rather than wait for the worker.
                version = bot_services.validate_version(version_id=version.pk)
                self.stdout.write(
                    f"{bot.name} v{version.number}: {version.status} {version.reason}"
                )
            bot_ids.append(bot.pk)
        self.play(
            user,
            DEMO_TOURNAMENT,
            bot_ids,
            {"format": "round_robin", "games_per_pairing": 4, "seed": 2026},
            here=True,
        )
        by_name = dict(Bot.objects.filter(pk__in=bot_ids).values_list("name", "pk"))
        for number, (name, settings_) in enumerate(DEMO_FORMATS.items(), start=1):
            fields = {"games_per_pairing": 2, "seed": 2026 + number, **settings_}
            if "challengers" in fields:
                fields["challengers"] = [by_name[n] for n in fields["challengers"] if n in by_name]
            self.play(user, name, bot_ids, fields, here=options["play_all"])

    def play(self, user, name: str, bot_ids: list[int], fields: dict, *, here: bool) -> None:
        """Create and start the tournament; with ``here``, play it to its end in this process
        (the format adds rounds and series as results come in)."""
        if Tournament.objects.filter(name=name).exists():
            return
        tournament = services.create_tournament(
            organiser=user, name=name, game="pairs", bot_ids=bot_ids, seeding="entry", **fields
        )
        services.start_tournament(tournament_id=tournament.pk)
        while here:
            queued = tournament.matches.filter(status=Match.Status.QUEUED)
            match_ids = list(queued.values_list("pk", flat=True))
            if not match_ids:
                break
            for match_id in match_ids:
                services.play_match(match_id=match_id)
        tournament.refresh_from_db()
        self.stdout.write(
            f"{name} #{tournament.pk}: {tournament.status}, {tournament.matches.count()} matches"
        )
