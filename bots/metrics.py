"""The counters and histograms services add to as things happen (Prometheus' client).

Defined here, the lowest layer that records any of them (validations), so the tournaments'
services count matches without importing ``arena``; ``arena.metrics`` exports them with
the gauges read at scrape time (queues, workers).

Every process that counts writes its values to files of its own under
``PROMETHEUS_MULTIPROC_DIR`` (the settings point it at ``ARENA_METRICS_DIR``), and
``/metrics`` adds up the files of every process, dead ones included: a Celery pool child
or a gunicorn worker that counted a match and exited still counts. Without the variable
(a script using the bots alone) values live in the process only.
"""

from __future__ import annotations

import os
import socket

from prometheus_client import Counter, Histogram, values

from bots.players import FAULT_KINDS


def _process_identifier() -> str:
    # The host too: containers sharing one metrics volume can run processes with equal
    # pids, whose files would otherwise be one file counted by both.
    return f"{socket.gethostname()}_{os.getpid()}"


if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # Chosen here, not when prometheus_client was imported: the settings may have set
    # the directory after that. Must precede the definitions below.
    values.ValueClass = values.MultiProcessValue(_process_identifier)

MATCHES_FINISHED = Counter(
    "arena_matches_finished",
    "Matches whose result was recorded, by game.",
    ["game"],
)
MATCH_FAULTS = Counter(
    "arena_match_faults",
    "Seats stopped for a fault of their bot in a recorded match, by the fault's kind.",
    ["kind"],
)
# Every kind shows from the start, at 0: a rate over a series that appears later misses
# its first increase.
for _kind in FAULT_KINDS:
    MATCH_FAULTS.labels(kind=_kind)
HOST_FAILURES = Counter(
    "arena_host_failures",
    "Match attempts the host could not play (a worker or sandbox error, not a bot's fault).",
)
MATCH_SECONDS = Histogram(
    "arena_match_seconds",
    "Wall time of a recorded match, from its claim to its result.",
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800),
)
VALIDATION_SECONDS = Histogram(
    "arena_validation_seconds",
    "From an upload to its validation's verdict (active or invalid).",
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600),
)
SANDBOX_START_SECONDS = Histogram(
    "arena_sandbox_start_seconds",
    "From a match's first sandbox build to every program seat's \"ready\" (the seats start"
    " side by side).",
    buckets=(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10),
)

THROTTLE_REFUSALS = Counter(
    "arena_throttle_refusals",
    "Requests refused by a rate limit or a log-in lock, by its scope.",
    ["scope"],
)
REQUEST_SECONDS = Histogram(
    "arena_request_seconds",
    "Time to answer a web request, by family of endpoint (api, pages, admin, ops, static).",
    ["family"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


def match_recorded(*, game: str, fault_kinds: list[str], seconds: float | None) -> None:
    MATCHES_FINISHED.labels(game=game).inc()
    for kind in fault_kinds:
        MATCH_FAULTS.labels(kind=kind).inc()
    if seconds is not None:
        MATCH_SECONDS.observe(max(0.0, seconds))


def sandboxes_started(*, seconds: float) -> None:
    SANDBOX_START_SECONDS.observe(max(0.0, seconds))


def host_failed() -> None:
    HOST_FAILURES.inc()


def validation_decided(*, seconds: float) -> None:
    VALIDATION_SECONDS.observe(max(0.0, seconds))


def throttle_refused(*, scope: str) -> None:
    THROTTLE_REFUSALS.labels(scope=scope).inc()


def request_answered(*, family: str, seconds: float) -> None:
    REQUEST_SECONDS.labels(family=family).observe(seconds)
