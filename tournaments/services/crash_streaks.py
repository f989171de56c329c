"""A version that faults in ARENA_CRASH_STREAK of its matches in a row is taken out of
play, and its owner told why, with the last faulted match (whose seat logs they may read).

Matches whose results a competition holds back (tournaments.release) neither count nor
start a streak: taking the version out and telling its owner would give away outcomes
the organiser has not released."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings

from bots import hooks
from bots import services as bot_services
from bots.models import BotVersion
from tournaments import release
from tournaments.models import Match, MatchSeat

log = logging.getLogger(__name__)


def check_crash_streaks(*, version_ids: Iterable[int], match_id: int) -> list[int]:
    """After a result in which these versions' seats faulted (in its transaction): the
    versions whose last ARENA_CRASH_STREAK finished matches all faulted are disabled.
    Returns their ids."""
    streak = settings.ARENA_CRASH_STREAK
    if streak <= 0:
        return []
    held = Match.objects.filter(release.hidden_results_q(user=None))
    if held.filter(pk=match_id).exists():
        return []
    taken = []
    for version_id in sorted(set(version_ids)):
        last = list(
            MatchSeat.objects.filter(version_id=version_id, match__status=Match.Status.FINISHED)
            .exclude(match__in=held)
            .order_by("-match__finished_at", "-match_id")
            .values_list("fault", flat=True)[:streak]
        )
        if len(last) < streak or any(fault is None for fault in last):
            continue
        reason = f"taken out of play: it faulted in {streak} matches in a row"
        version = bot_services.take_out_of_play(version_id=version_id, reason=reason)
        if version is None:
            continue  # not active any more (disabled meanwhile)
        taken.append(version_id)
        log.warning("%s %s (the last: match %s)", version.label, reason, match_id)
        fault = last[0] if isinstance(last[0], dict) else {}
        hooks.emit(
            hooks.Event(
                kind="version.crash_streak",
                user_ids=(version.bot.owner_id,),
                text=f"{version.label} was {reason}; the last was match {match_id}"
                + (f" ({fault.get('reason')})" if fault.get("reason") else "")
                + ". Upload a fixed version to play again.",
                link=f"/matches/{match_id}/",
                data={
                    "bot_id": version.bot_id,
                    "version_id": version.pk,
                    "match_id": match_id,
                    "streak": streak,
                    "status": BotVersion.Status.DISABLED,
                },
                match_id=match_id,
            )
        )
    return taken
