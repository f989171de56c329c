"""Competitions as tests need them: created with dates around now, bots entered with
versions old enough to count at the freeze, and a final played to its end."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from bots.models import BotVersion
from tests.support.builders import bot_with_version, play_queued
from tournaments import services
from tournaments.models import Competition, CompetitionEntry
from tournaments.services import competition_phases, competitions


def new_competition(
    organiser,
    *,
    name: str = "Spring cup",
    now: datetime | None = None,
    opened: timedelta = timedelta(minutes=5),
    deadline: timedelta = timedelta(hours=1),
    final: timedelta = timedelta(hours=2),
    final_settings: dict | None = None,
    **fields,
) -> Competition:
    """A Pairs competition for two players, opened ``opened`` ago, its deadline and final
    that long after ``now``; ``fields`` go to the service as they are."""
    now = now or timezone.now()
    settings = {
        "name": name,
        "game": "pairs",
        "players": 2,
        "options": {},
        "opens_at": now - opened,
        "deadline": now + deadline,
        "final_at": now + final,
        "final_settings": {"format": "round_robin"} if final_settings is None else final_settings,
    }
    settings.update(fields)
    return competitions.create_competition(organiser=organiser, **settings)


def enter_bots(competition: Competition, owners, *, prefix: str = "entrant") -> list:
    """A bot for each owner (``<prefix><n>``) entered, its version made a day old so that
    it is the one the freeze keeps."""
    entries: list[CompetitionEntry] = []
    for number, owner in enumerate(owners):
        bot, version = bot_with_version(owner=owner, name=f"{prefix}{number}", announce=False)
        BotVersion.objects.filter(pk=version.pk).update(
            created_at=timezone.now() - timedelta(days=1)
        )
        entries.append(competitions.enter_competition(competition=competition, bot=bot, user=owner))
    return entries


def start_final(competition: Competition, *, at: datetime) -> Competition:
    """Freezes the competition at ``at`` (past its deadline) and starts its final."""
    assert competition_phases.freeze_competition(competition=competition, now=at)
    competition.refresh_from_db()
    assert competition.final is not None
    assert services.start_tournament(tournament_id=competition.final_id)
    return competition


def play_final(competition: Competition, *, at: datetime) -> Competition:
    """Freezes the competition at ``at`` (past its deadline) and plays its final out."""
    start_final(competition, at=at)
    while play_queued(tournament_id=competition.final_id):
        pass
    competition.refresh_from_db()
    return competition
