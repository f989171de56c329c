"""Load the demo: a user, example bots, and a finished round-robin tournament of Pairs.

Idempotent: it does nothing when the demo tournament exists. The matches are
played here, synchronously, through the same services a worker calls, so the
product starts with real results even before the worker has picked anything up.
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

    def handle(self, *args, **options):
        if Tournament.objects.filter(name=DEMO_TOURNAMENT).exists():
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
        tournament = services.create_tournament(
            organiser=user,
            name=DEMO_TOURNAMENT,
            game="pairs",
            bot_ids=bot_ids,
            games_per_pairing=4,
            seed=2026,
        )
        services.start_tournament(tournament_id=tournament.pk)
        for match_id in tournament.matches.filter(status=Match.Status.QUEUED).values_list(
            "pk", flat=True
        ):
            services.play_match(match_id=match_id)
        tournament.refresh_from_db()
        self.stdout.write(
            f"demo tournament #{tournament.pk}: {tournament.status}, "
            f"{tournament.matches.count()} matches"
        )
