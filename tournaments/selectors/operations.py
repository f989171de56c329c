"""Reads for the operations page: what waits longest, matches stuck past their deadline,
what failed lately and why, and the ladders' switches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Min
from django.utils import timezone

from bots.models import BotVersion, OptionsValidation
from bots.queueing import MATCHES, VALIDATIONS
from tournaments.models import HostFailure, Ladder, Match

RECENT = timedelta(hours=1)
LISTED = 50  # rows per list: an incident's first screenful, not its archive


def oldest_waiting() -> dict[str, datetime | None]:
    """{queue: when its longest-waiting work was sent}, from the rows the messages stand
    for (the broker's messages carry no time): queued matches, pending validations."""
    matches = Match.objects.filter(status=Match.Status.QUEUED).aggregate(at=Min("queued_at"))
    versions = BotVersion.objects.filter(status=BotVersion.Status.PENDING).aggregate(
        at=Min("created_at")
    )
    options = OptionsValidation.objects.filter(status=OptionsValidation.Status.PENDING).aggregate(
        at=Min("queued_at")
    )
    waiting = [at for at in (versions["at"], options["at"]) if at is not None]
    return {MATCHES: matches["at"], VALIDATIONS: min(waiting, default=None)}


@dataclass
class StuckMatch:
    match: Match
    silent_seconds: float  # since its worker's last heartbeat


def stuck_matches(*, now: datetime | None = None) -> list[StuckMatch]:
    """Running matches whose heartbeat is older than ARENA_STALE_MATCH_SECONDS: their
    worker is taken as lost, and the reaper's next run queues them again (or fails them,
    out of attempts)."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    rows = Match.objects.filter(status=Match.Status.RUNNING, heartbeat_at__lt=stale).order_by(
        "heartbeat_at"
    )[:LISTED]
    return [StuckMatch(match, (now - match.heartbeat_at).total_seconds()) for match in rows]


def recently_failed_matches(*, now: datetime | None = None) -> list[Match]:
    """Matches that failed in the last hour (out of attempts, or the host's error), newest
    first, with their tournament's format for the requeue button."""
    since = (now or timezone.now()) - RECENT
    return list(
        Match.objects.filter(status=Match.Status.FAILED, finished_at__gte=since)
        .select_related("tournament")
        .only("pk", "game", "attempts", "error", "finished_at", "worker", "tournament__format")
        .order_by("-finished_at")[:LISTED]
    )


def recent_host_failures(*, now: datetime | None = None) -> tuple[int, list[HostFailure]]:
    """How many host failures the last hour had, and the newest of them."""
    since = (now or timezone.now()) - RECENT
    recent = HostFailure.objects.filter(failed_at__gte=since)
    return recent.count(), list(recent.order_by("-failed_at", "-pk")[:LISTED])


def given_back() -> int:
    """Queued matches that have had an attempt already: what the reaper or a host failure
    gave back to the queue."""
    return Match.objects.filter(status=Match.Status.QUEUED, attempts__gte=1).count()


def ladders() -> list[Ladder]:
    return list(Ladder.objects.order_by("game", "pk"))
