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


# A version whose gate is running or failed is active (it may play its gate) but
# cannot be its bot's current version.
NOT_CURRENT = [BotVersion.Gating.RUNNING, BotVersion.Gating.FAILED]


def current_versions() -> QuerySet[BotVersion]:
    """Active versions that may be current: ungated, or passed their gate."""
    return BotVersion.objects.filter(status=BotVersion.Status.ACTIVE).exclude(
        gating__in=NOT_CURRENT
    )


def current_version(*, bot: Bot) -> BotVersion | None:
    """The latest active version that passed its gate (or had none): the one that enters
    tournaments and shows on the leaderboard."""
    return current_versions().filter(bot=bot).defer("upload").order_by("-number").first()
