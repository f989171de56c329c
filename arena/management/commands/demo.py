"""Load the demo: a user, example bots, a Pairs tournament of every format and a finished
competition.

Idempotent: a tournament or competition that exists is not made again. The round robin
and the competition (its ladder, the freeze, its final: single elimination) are played
here, synchronously, through the same services a worker calls, so the product starts with
real results even before the worker has picked anything up, and `manage.py
export_competition` / `verify_competition` can be tried at once (docs/archive.md); the
other formats are started and left to the workers (so `make run` opens on live
tournaments, and starts in seconds), unless --play-all plays them here too.
"""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from bots import services as bot_services
from bots.models import Bot
from tournaments import services
from tournaments.models import Competition, Match, Tournament
from tournaments.services import competition_ladder, competition_phases, competitions

DEMO_USER = "demo"
DEMO_TOURNAMENT = "Demo round robin (Pairs)"
# Name -> the format and its settings; the round robin above comes first.
DEMO_FORMATS = {
    "Demo Swiss (Pairs)": {"format": "swiss", "rounds": 3},
    "Demo single elimination (Pairs)": {"format": "single_elimination", "third_place": True},
    "Demo double elimination (Pairs)": {"format": "double_elimination"},
    "Demo gauntlet (Pairs)": {"format": "gauntlet", "challengers": ["cautious-pairs"]},
}
DEMO_COMPETITION = "Demo competition (Pairs)"
# Ladder tables played before the deadline (each a duplicate pair of games).
DEMO_COMPETITION_TABLES = 2
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
        if (
            Tournament.objects.filter(name__in=names).count() == len(names)
            and Competition.objects.filter(name=DEMO_COMPETITION).exists()
        ):
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
        self.competition(user, bot_ids)
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

    def competition(self, user, bot_ids: list[int]) -> None:
        """A competition of the example bots played from its opening to its close here: a
        few ladder tables, the freeze at the deadline (a minute from now: every example's
        version was uploaded before it), the final at once, the close. The dates are
        passed to the services as the beat would, so nothing waits for the clock."""
        if Competition.objects.filter(name=DEMO_COMPETITION).exists():
            return
        now = timezone.now()
        competition = competitions.create_competition(
            organiser=user,
            name=DEMO_COMPETITION,
            description="The example bots' season: a ladder until the deadline, then a "
            "single elimination final among the frozen versions. Export and verify it: "
            "docs/archive.md.",
            game="pairs",
            players=2,
            options={},
            opens_at=now,
            deadline=now + timedelta(minutes=1),
            final_at=now + timedelta(minutes=1),
            final_settings={"format": "single_elimination", "games_per_pairing": 2},
            seed=2031,
        )
        bots = Bot.objects.filter(pk__in=bot_ids).order_by("pk")
        for bot in bots:
            competitions.enter_competition(competition=competition, bot=bot, user=user, now=now)
        for table in range(DEMO_COMPETITION_TABLES):
            beat = now + timedelta(seconds=table)
            competition_ladder.schedule_competition(competition_id=competition.pk, now=beat)
            play_queued(Match.objects.filter(competition=competition))
        competition_phases.freeze_competition(competition=competition, now=competition.deadline)
        competition.refresh_from_db()
        if competition.final_id is not None:
            services.start_tournament(tournament_id=competition.final_id)
            play_queued(Match.objects.filter(tournament_id=competition.final_id))
        competition_phases.advance_competitions(now=timezone.now())
        competition.refresh_from_db()
        self.stdout.write(
            f"{DEMO_COMPETITION} #{competition.pk}: {competition.phase}, "
            f"{Match.objects.filter(competition=competition).count()} ladder matches, final "
            f"#{competition.final_id} ({competition.final.status if competition.final else 'none'}"
            f"); try: python manage.py export_competition {competition.pk} demo-archive.json.gz"
        )


def play_queued(matches) -> None:
    """Play every queued match of ``matches`` here, until none is queued (a result may
    queue the next round)."""
    while match_ids := list(
        matches.filter(status=Match.Status.QUEUED).values_list("pk", flat=True)
    ):
        for match_id in match_ids:
            services.play_match(match_id=match_id)
