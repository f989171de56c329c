"""Staff's second chance for a failed match (the admin's "re-queue" action)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from bots import events
from tournaments.models import Match, Tournament
from tournaments.read_models import count_result
from tournaments.services.queueing import queue_match_after_commit

# Formats whose games do not decide who plays next: a failed game may be played again.
INDEPENDENT_GAMES = (Tournament.Format.ROUND_ROBIN, Tournament.Format.GAUNTLET)


@transaction.atomic
def requeue_failed_match(*, match: Match) -> Match:
    """Queue a failed match again with a fresh count of attempts.

    Only a failed match qualifies, and only outside a cancelled tournament. A tournament
    that had finished around the failure runs again until the match lands (the service
    that records a result finishes it then). The message leaves after the commit.
    """
    tournament = None
    if match.tournament_id is not None:
        tournament = Tournament.objects.select_for_update().get(pk=match.tournament_id)
        if tournament.status == Tournament.Status.CANCELLED:
            raise ValidationError("the match's tournament is cancelled")
        if tournament.format not in INDEPENDENT_GAMES:
            # The failure counted as a draw and later rounds or series were paired on it:
            # a new result now would rewrite what they were built on.
            raise ValidationError(
                f"a failed match of a {tournament.get_format_display()} event counted as a "
                "draw and the event went on from it; it cannot be played again"
            )
    requeued = Match.objects.filter(pk=match.pk, status=Match.Status.FAILED).update(
        status=Match.Status.QUEUED,
        attempts=0,
        error="",
        worker="",
        heartbeat_at=None,
        started_at=None,
        finished_at=None,
        queued_at=timezone.now(),
    )
    if not requeued:
        raise ValidationError(f"only a failed match can be queued again, not a {match.status} one")
    if tournament is not None:
        # The failure counted as a draw: its tournament's totals take it back.
        count_result(match_id=match.pk)
    if tournament is not None and tournament.status == Tournament.Status.FINISHED:
        Tournament.objects.filter(pk=tournament.pk).update(
            status=Tournament.Status.RUNNING, finished_at=None
        )
    queue_match_after_commit(match.pk)
    # Logged now rather than on commit: nothing after this can undo the requeue.
    events.emit(
        "match.requeued",
        f"match {match.pk} queued again by staff",
        match=match.pk,
        attempt=0,
        error="requeued by staff",
    )
    match.refresh_from_db()
    return match
