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


def current_version(*, bot: Bot, versions: list[BotVersion] | None = None) -> BotVersion | None:
    """The version that enters tournaments and carries the rating: the one the owner chose
    or that last became current (``Bot.current``) while it may play; else the latest
    active version that passed its gate (or had none). ``versions``: every version of the
    bot, when the caller has read them (then no query)."""
    if versions is not None:
        may = [
            v
            for v in versions
            if v.status == BotVersion.Status.ACTIVE and v.gating not in NOT_CURRENT
        ]
        chosen = next((v for v in may if v.pk == bot.current_id), None)
        return chosen or max(may, key=lambda v: v.number, default=None)
    candidates = current_versions().filter(bot=bot).defer("upload")
    if bot.current_id is not None:
        chosen = candidates.filter(pk=bot.current_id).first()
        if chosen is not None:
            return chosen
    return candidates.order_by("-number").first()


def current_versions_of(*, bots: list[Bot], only: tuple[str, ...] = ()) -> dict[int, BotVersion]:
    """``current_version`` of many bots in two queries: bot id -> version (bots with one).
    ``only``: the version fields the caller reads, when not all of them (the others
    deferred)."""
    chosen = {b.pk: b.current_id for b in bots}
    out: dict[int, BotVersion] = {}
    found: set[int] = set()
    candidates = current_versions().filter(bot_id__in=list(chosen)).defer("upload")
    if only:
        candidates = candidates.only("id", "bot_id", *only)
    for version in candidates.order_by("bot_id", "number"):
        if version.bot_id in found:
            continue
        out[version.bot_id] = version  # the latest so far, unless the chosen one turns up
        if chosen.get(version.bot_id) == version.pk:
            found.add(version.bot_id)
    return out


BOT_PAGE_SIZE = 50


def bot_page(
    *,
    query: str = "",
    game: str = "",
    after: str = "",
    before: str = "",
    size: int = BOT_PAGE_SIZE,
) -> dict:
    """One page of bots by name (keyset: the names either side, never an offset), with
    an optional name search and game. ``after`` gives the page following that name,
    ``before`` the page ending just before it; neither gives the first page.

    Returns ``bots`` and the names to ask for the next and previous pages (or None)."""
    qs = Bot.objects.select_related("owner").only(
        "pk", "name", "game", "created_at", "owner__username"
    )
    if query:
        qs = qs.filter(name__icontains=query)
    if game:
        qs = qs.filter(game=game)
    if before:
        rows = list(qs.filter(name__lt=before).order_by("-name")[: size + 1])
        more_before = len(rows) > size
        bots = rows[:size][::-1]
        more_after = True
    else:
        rows = list(qs.filter(name__gt=after).order_by("name")[: size + 1] if after else [])
        if not after:
            rows = list(qs.order_by("name")[: size + 1])
        more_after = len(rows) > size
        bots = rows[:size]
        more_before = bool(after)
    return {
        "bots": bots,
        "next": bots[-1].name if bots and more_after else None,
        "previous": bots[0].name if bots and more_before else None,
    }
