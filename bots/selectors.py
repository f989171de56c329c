"""Reads for bots and versions."""

from __future__ import annotations

from django.db.models import QuerySet

from bots.models import Bot, BotVersion


def bot_list(*, game: str | None = None, owner_id: int | None = None) -> QuerySet[Bot]:
    qs = Bot.objects.select_related("owner")
    if game:
        qs = qs.filter(game=game)
    if owner_id:
        qs = qs.filter(owner_id=owner_id)
    return qs


def version_list(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.defer("upload").order_by("-number")


def current_version(*, bot: Bot) -> BotVersion | None:
    """The latest active version: the one that enters tournaments and carries the rating."""
    return (
        bot.versions.defer("upload")
        .filter(status=BotVersion.Status.ACTIVE)
        .order_by("-number")
        .first()
    )
