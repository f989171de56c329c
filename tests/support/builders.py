"""Building rated matches directly (no worker): versions, results, and the rating service."""

from __future__ import annotations

import hashlib

from django.contrib.auth import get_user_model
from django.utils import timezone

from bots import hooks
from bots.models import Bot, BotVersion
from games import registry
from tournaments.models import Match
from tournaments.services.rating import rate_match


def owner(name: str = "owner"):
    return get_user_model().objects.get_or_create(username=name)[0]


def version(bot: Bot, number: int = 1, parent: BotVersion | None = None, **fields) -> BotVersion:
    source = f"# {bot.name} {number}\n".encode()
    fields.setdefault("status", BotVersion.Status.ACTIVE)
    created = BotVersion.objects.create(
        bot=bot,
        number=number,
        filename="main.py",
        upload=source,
        sha256=hashlib.sha256(source).hexdigest(),
        size=len(source),
        parent=parent,
        **fields,
    )
    # What bots.services does when a version becomes active: its bot's read models follow.
    hooks.bot_changed(bot.pk)
    return created


def bot_with_version(name: str, game: str = "pairs", **fields) -> tuple[Bot, BotVersion]:
    bot = Bot.objects.create(owner=owner(), name=name, game=game, **fields)
    return bot, version(bot)


def finished_match(
    versions: list[BotVersion],
    ranks: list[int],
    *,
    game: str = "pairs",
    options: dict | None = None,
    seed: int = 1,
    teams: list | None = None,
    rate: bool = True,
) -> Match:
    """A finished match with these versions in seats 0.. and these ranks, then rated."""
    match = Match.objects.create(
        game=game,
        engine_version=registry.get(game).version,
        options=options or {},
        seed=seed,
        status=Match.Status.FINISHED,
        finished_at=timezone.now(),
        result={
            "seats": [{"score": 0, "rank": r, "fault": None} for r in ranks],
            "teams": teams or [],
        },
    )
    for seat, (v, rank) in enumerate(zip(versions, ranks)):
        match.seats.create(seat=seat, version=v, rank=rank, score=0)
    if rate:
        rate_match(match=match)
    return match
