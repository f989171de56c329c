"""The operations page, for staff: the dependencies and the sandbox mode, each queue's
depth and oldest work, the workers and what they run, stuck and failed matches, the host's
failures of the last hour; buttons that go through the services (requeue a failed match,
pause or resume a ladder, drain a queue or take it up again). Its live part refreshes itself.
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache

from arena import health
from bots import operations
from tournaments import services
from tournaments.models import Ladder, Match
from tournaments.selectors import operations as reads
from tournaments.services.requeue import requeue_failed_match

POLL_SECONDS = 10


def staff_only(view):
    """Anonymous visitors are sent to log in; a logged-in user who is not staff is refused."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied("only staff may see the operations page")
        return view(request, *args, **kwargs)

    return wrapped


@never_cache
@staff_only
def operations_page(request):
    return render(request, "arena/operations.html", _context())


@never_cache
@staff_only
def operations_live(request):
    """The part of the page its polling replaces."""
    return render(request, "arena/operations_live.html", _context())


def _context() -> dict:
    now = timezone.now()
    ready = health.readiness()
    broker_up = "broker" not in ready["failed"]
    timeout = settings.ARENA_METRICS_INSPECT_SECONDS
    depths = (
        operations.queue_depths(timeout=settings.ARENA_READY_TIMEOUT_SECONDS) if broker_up else {}
    )
    workers = operations.workers_alive(timeout=timeout) if broker_up else []
    oldest = reads.oldest_waiting()
    queues = []
    for queue in operations.QUEUES:
        since = oldest.get(queue)
        queues.append(
            {
                "name": queue,
                "depth": depths.get(queue),
                "oldest_seconds": (now - since).total_seconds() if since else None,
                "oldest_tracked": queue in oldest,
                "consumers": [w.name for w in workers if queue in w.queues],
                "drained_by": operations.drained_by(queue),
            }
        )
    host_failure_count, host_failures = reads.recent_host_failures(now=now)
    return {
        "now": now,
        "poll_seconds": POLL_SECONDS,
        "ready": ready,
        "broker_up": broker_up,
        "queues": queues,
        "workers": workers,
        "inspect_seconds": timeout,
        "stuck": reads.stuck_matches(now=now),
        "stale_seconds": settings.ARENA_STALE_MATCH_SECONDS,
        "failed": reads.recently_failed_matches(now=now),
        "given_back": reads.given_back(),
        "host_failure_count": host_failure_count,
        "host_failures": host_failures,
        "ladders": reads.ladders(),
    }


def _refused(request, detail: str):
    return render(request, "arena/refused.html", {"status": 400, "detail": detail}, status=400)


@staff_only
def operations_act(request):
    """One button's POST: each goes through its service and comes back to the page."""
    if request.method != "POST":
        return redirect("operations")
    action = request.POST.get("action", "")
    timeout = settings.ARENA_METRICS_INSPECT_SECONDS
    if action == "requeue":
        match = _object(request, Match, "match")
        if match is None:
            return _refused(request, "Say which match to queue again: a match number.")
        try:
            requeue_failed_match(match=match)
        except ValidationError as exc:
            messages.error(request, f"Match {match.pk} was not queued again: {exc.messages[0]}")
        else:
            messages.success(request, f"Match {match.pk} queued again.")
    elif action in ("pause", "resume"):
        ladder = _object(request, Ladder, "ladder")
        if ladder is None:
            return _refused(request, "Say which ladder: a ladder number.")
        services.set_ladder_paused(ladder=ladder, paused=action == "pause")
        messages.success(request, f"Ladder {ladder.game} {action}d.")
    elif action in ("drain", "undrain"):
        queue = request.POST.get("queue", "")
        if queue not in operations.QUEUES:
            return _refused(
                request, f"There is no queue {queue!r}: {', '.join(operations.QUEUES)}."
            )
        if action == "drain":
            stopped = operations.drain_queue(queue=queue, timeout=timeout)
            messages.success(
                request,
                f"Queue {queue} drained: {len(stopped)} worker(s) finish what they hold and "
                "take no more from it.",
            )
        else:
            resumed = operations.resume_queue(queue=queue, timeout=timeout)
            messages.success(request, f"Queue {queue} taken up again by {len(resumed)} worker(s).")
    else:
        return _refused(request, "Unknown action: requeue, pause, resume, drain or undrain.")
    return redirect("operations")


def _object(request, model, field: str):
    value = request.POST.get(field, "")
    if not value.isdigit():
        return None
    return get_object_or_404(model, pk=int(value))
