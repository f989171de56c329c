"""``GET /metrics``: Prometheus' text format, for a scraper holding ``ARENA_METRICS_TOKEN``.

What the services counted (``bots.metrics``) is added up over every process's files
(prometheus_client's multiprocess mode); what is read at scrape time is added beside it:
each queue's depth, the workers answering a ping, whether each dependency answers.
"""

from __future__ import annotations

import hmac
import time

from django.conf import settings
from django.db.models import Count, Max, Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from arena import health
from arena.errors import json_error
from bots import metrics as counted
from bots import operations
from tournaments.models import Match

IN_FLIGHT = (Match.Status.QUEUED, Match.Status.RUNNING)


class LiveCollector:
    """Gauges read when scraped, each within its bound: a broker that does not answer
    leaves its gauges out (and ``arena_dependency_up`` says so), never the scrape hung."""

    def collect(self):
        report = health.readiness()
        up = GaugeMetricFamily(
            "arena_dependency_up",
            "1 when the dependency answered /readyz's check within its bound.",
            labels=["dependency"],
        )
        for name, check in report["checks"].items():
            up.add_metric([name], 1.0 if check["ok"] else 0.0)
        yield up
        if "database" not in report["failed"]:
            yield self._matches()
            yield self._heartbeats()
        if "broker" in report["failed"]:
            return
        depths = operations.queue_depths(timeout=settings.ARENA_READY_TIMEOUT_SECONDS)
        depth = GaugeMetricFamily(
            "arena_queue_depth", "Messages waiting in the queue.", labels=["queue"]
        )
        for queue, count in depths.items():
            if count is not None:
                depth.add_metric([queue], count)
        yield depth
        workers = operations.workers_alive(timeout=settings.ARENA_METRICS_INSPECT_SECONDS)
        alive = GaugeMetricFamily(
            "arena_workers_alive", "Celery workers that answered a ping just now."
        )
        alive.add_metric([], len(workers))
        yield alive

    def _heartbeats(self) -> GaugeMetricFamily:
        """Each worker playing a match: seconds since the newest heartbeat of its matches
        (a worker stuck or gone shows here long before the reaper acts)."""
        gauge = GaugeMetricFamily(
            "arena_worker_heartbeat_age_seconds",
            "Seconds since the newest heartbeat of the matches each worker is playing.",
            labels=["worker"],
        )
        now = timezone.now()
        rows = (
            Match.objects.filter(status=Match.Status.RUNNING, heartbeat_at__isnull=False)
            .values("worker")
            .annotate(newest=Max("heartbeat_at"))
        )
        for row in rows:
            gauge.add_metric([row["worker"]], max(0.0, (now - row["newest"]).total_seconds()))
        return gauge

    def _matches(self) -> GaugeMetricFamily:
        """Matches waiting and being played, the ladder's (its tables in flight) apart."""
        gauge = GaugeMetricFamily(
            "arena_matches_in_flight",
            "Matches queued or running, by state, with the ladder's apart.",
            labels=["state", "source"],
        )
        counts = {
            row["status"]: row
            for row in Match.objects.filter(status__in=IN_FLIGHT)
            .values("status")
            .annotate(total=Count("pk"), ladder=Count("pk", filter=Q(ladder__isnull=False)))
        }
        for state in IN_FLIGHT:
            row = counts.get(state, {"total": 0, "ladder": 0})
            gauge.add_metric([state, "ladder"], row["ladder"])
            gauge.add_metric([state, "other"], row["total"] - row["ladder"])
        return gauge


def registry() -> CollectorRegistry:
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(settings.ARENA_METRICS_DIR))
    registry.register(LiveCollector())
    return registry


@csrf_exempt
@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        response = json_error(
            405, f"{request.method} is not allowed here; use GET", code="method_not_allowed"
        )
        response["Allow"] = "GET, HEAD"
        return response
    refused = _refusal(request)
    if refused is not None:
        return refused
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


def _refusal(request: HttpRequest) -> HttpResponse | None:
    token = settings.ARENA_METRICS_TOKEN
    if not token:
        return json_error(
            403,
            "Metrics are turned off: set ARENA_METRICS_TOKEN and send it as a Bearer token.",
            code="metrics_disabled",
        )
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        response = json_error(
            401, "Send the metrics token: Authorization: Bearer <token>.", code="not_authenticated"
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        return json_error(403, "That is not the metrics token.", code="permission_denied")
    return None


def family_of(path: str) -> str:
    """The family a request's path belongs to: few values, so the histogram stays small."""
    first = path.lstrip("/").split("/", 1)[0]
    if first == "api":
        return "api"
    if first == "admin":
        return "admin"
    if first in ("static", "favicon.ico"):
        return "static"
    if first in ("metrics", "healthz", "readyz"):
        return "ops"
    return "pages"


class RequestTimingMiddleware:
    """Times every request into ``arena_request_seconds{family}``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.monotonic()
        try:
            return self.get_response(request)
        finally:
            counted.request_answered(
                family=family_of(request.path_info), seconds=time.monotonic() - started
            )
