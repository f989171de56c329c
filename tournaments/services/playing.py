"""Playing one match: claim it, run it in the sandbox, record the result exactly once."""

from __future__ import annotations

import logging
import socket
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from bots import services as bot_services
from bots.players import ProgramPlayer
from bots.runner import Clock
from bots.runner import play_match as run_match
from bots.sandbox import Limits
from tournaments.models import Match, Tournament
from tournaments.services.rating import rate_match

log = logging.getLogger(__name__)
HEARTBEAT_EVERY_SECONDS = 2.0
FINAL = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)


def worker_name() -> str:
    return f"{socket.gethostname()}:{__import__('os').getpid()}"


def claim_match(*, match_id: int) -> int | None:
    """Take the match for this worker with one conditional UPDATE; the new attempt number or None.

    A match is claimable when queued, or when running with a heartbeat so old
    that its worker must be gone. A redelivered or duplicated task therefore
    never plays a match someone else is playing.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    claimable = Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, heartbeat_at__lt=stale
    )
    claimed = Match.objects.filter(
        claimable, pk=match_id, attempts__lt=settings.ARENA_MAX_MATCH_ATTEMPTS
    ).update(
        status=Match.Status.RUNNING,
        attempts=F("attempts") + 1,
        worker=worker_name(),
        heartbeat_at=now,
        started_at=now,
    )
    if not claimed:
        _fail_if_out_of_attempts(match_id)
        return None
    return Match.objects.values_list("attempts", flat=True).get(pk=match_id)


def _fail_if_out_of_attempts(match_id: int) -> None:
    stale = timezone.now() - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    failed = Match.objects.filter(
        Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, heartbeat_at__lt=stale),
        pk=match_id,
        attempts__gte=settings.ARENA_MAX_MATCH_ATTEMPTS,
    ).update(status=Match.Status.FAILED, finished_at=timezone.now(), error="out of attempts")
    if failed:
        _finish_tournament_if_complete(match_id)


def play_match(*, match_id: int) -> Match:
    attempt = claim_match(match_id=match_id)
    match = Match.objects.select_related("tournament").get(pk=match_id)
    if attempt is None:
        return match
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    players = []
    try:
        for seat in seats:
            players.append(
                ProgramPlayer(
                    bot_services.version_dir(version=seat.version),
                    Limits(),
                    label=seat.version.label,
                )
            )
        last_beat = [time.monotonic()]

        def heartbeat(_move: int) -> None:
            if time.monotonic() - last_beat[0] >= HEARTBEAT_EVERY_SECONDS:
                last_beat[0] = time.monotonic()
                Match.objects.filter(pk=match_id, attempts=attempt).update(
                    heartbeat_at=timezone.now()
                )

        outcome = run_match(
            game_slug=match.game,
            players=players,
            options=match.options,
            seed=match.seed,
            clock=Clock(move_ms=match.move_ms, bank_ms=match.bank_ms),
            on_move=heartbeat,
        ).to_dict()
    except Exception as exc:  # the host failed, not a bot: give the match back
        log.exception("match %s attempt %s could not be played", match_id, attempt)
        _release(match_id, attempt, f"{type(exc).__name__}: {exc}")
        raise
    record_result(match_id=match_id, attempt=attempt, outcome=outcome)
    match.refresh_from_db()
    return match


def _release(match_id: int, attempt: int, error: str) -> None:
    from tournaments.services.scheduling import queue_match_after_commit

    with transaction.atomic():
        out_of_attempts = attempt >= settings.ARENA_MAX_MATCH_ATTEMPTS
        updated = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, attempts=attempt
        ).update(
            status=Match.Status.FAILED if out_of_attempts else Match.Status.QUEUED,
            error=error[:2000],
            finished_at=timezone.now() if out_of_attempts else None,
        )
        if updated and not out_of_attempts:
            queue_match_after_commit(match_id)
    if updated and out_of_attempts:
        _finish_tournament_if_complete(match_id)


def record_result(*, match_id: int, attempt: int, outcome: dict) -> bool:
    """Store the outcome once: only the attempt that holds the claim may finish the match."""
    with transaction.atomic():
        finished = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, attempts=attempt
        ).update(
            status=Match.Status.FINISHED,
            finished_at=timezone.now(),
            result=outcome["result"],
            moves=outcome["moves"],
            record=outcome["record"],
            engine_version=outcome["version"],
        )
        if not finished:
            return False
        match = Match.objects.select_related("tournament").get(pk=match_id)
        for seat in match.seats.all():
            seat_result = outcome["result"]["seats"][seat.seat]
            seat.score = seat_result["score"]
            seat.rank = seat_result["rank"]
            seat.fault = seat_result.get("fault")
            seat.save(update_fields=["score", "rank", "fault"])
        if match.tournament is None or match.tournament.rated:
            rate_match(match=match)
    _finish_tournament_if_complete(match_id)
    return True


def _finish_tournament_if_complete(match_id: int) -> None:
    with transaction.atomic():
        tournament_id = Match.objects.values_list("tournament_id", flat=True).get(pk=match_id)
        if tournament_id is None:
            return
        # Lock the tournament row: two last matches finishing together see each other.
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            return
        if not tournament.matches.exclude(status__in=FINAL).exists():
            Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).update(
                status=Tournament.Status.FINISHED, finished_at=timezone.now()
            )


def requeue_stuck_matches() -> int:
    """The reaper: matches whose worker vanished mid-match are queued again (or failed)."""
    from tournaments.services.scheduling import queue_match_after_commit

    stale = timezone.now() - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    count = 0
    for match_id, attempts in Match.objects.filter(
        status=Match.Status.RUNNING, heartbeat_at__lt=stale
    ).values_list("pk", "attempts"):
        with transaction.atomic():
            if attempts >= settings.ARENA_MAX_MATCH_ATTEMPTS:
                _fail_if_out_of_attempts(match_id)
                continue
            if Match.objects.filter(
                pk=match_id, status=Match.Status.RUNNING, attempts=attempts, heartbeat_at__lt=stale
            ).update(status=Match.Status.QUEUED, queued_at=timezone.now()):
                queue_match_after_commit(match_id)
                count += 1
    # Queued matches whose message was lost (a broker restart) are sent again;
    # a duplicate is harmless because only one task can claim the match.
    for match_id in Match.objects.filter(
        status=Match.Status.QUEUED, queued_at__lt=stale
    ).values_list("pk", flat=True):
        with transaction.atomic():
            Match.objects.filter(pk=match_id).update(queued_at=timezone.now())
            queue_match_after_commit(match_id)
            count += 1
    return count
