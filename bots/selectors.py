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
    """The version that enters tournaments and carries the rating: the one the owner chose
    or that last became current (``Bot.current``) while it may play; else the latest
    active version that passed its gate (or had none)."""
    candidates = current_versions().filter(bot=bot).defer("upload")
    if bot.current_id is not None:
        chosen = candidates.filter(pk=bot.current_id).first()
        if chosen is not None:
            return chosen
    return candidates.order_by("-number").first()


def current_versions_of(*, bots: list[Bot]) -> dict[int, BotVersion]:
    """``current_version`` of many bots in two queries: bot id -> version (bots with one)."""
    chosen = {b.pk: b.current_id for b in bots}
    out: dict[int, BotVersion] = {}
    found: set[int] = set()
    candidates = current_versions().filter(bot_id__in=list(chosen)).defer("upload")
    for version in candidates.order_by("bot_id", "number"):
        if version.bot_id in found:
            continue
        out[version.bot_id] = version  # the latest so far, unless the chosen one turns up
        if chosen.get(version.bot_id) == version.pk:
            found.add(version.bot_id)
    return out
