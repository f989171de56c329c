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
    """The version that enters tournaments and carries the rating: the one the owner chose
    or that last became active (``Bot.current``), if it is active; else the latest active."""
    if bot.current_id is not None:
        chosen = (
            bot.versions.defer("upload")
            .filter(pk=bot.current_id, status=BotVersion.Status.ACTIVE)
            .first()
        )
        if chosen is not None:
            return chosen
    return (
        bot.versions.defer("upload")
        .filter(status=BotVersion.Status.ACTIVE)
        .order_by("-number")
        .first()
    )


def current_versions(*, bots: list[Bot]) -> dict[int, BotVersion]:
    """``current_version`` of many bots in two queries: bot id -> version (active bots only)."""
    ids = [b.pk for b in bots]
    active = BotVersion.objects.defer("upload").filter(
        bot_id__in=ids, status=BotVersion.Status.ACTIVE
    )
    chosen = {b.pk: b.current_id for b in bots}
    out: dict[int, BotVersion] = {}
    for version in active.order_by("bot_id", "number"):
        if chosen.get(version.bot_id) == version.pk:
            out[version.bot_id] = version
            chosen[version.bot_id] = -1  # found: later numbers no longer replace it
        elif chosen.get(version.bot_id) != -1:
            out[version.bot_id] = version  # the latest active so far
    return out
