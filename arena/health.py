"""Liveness and readiness: ``/healthz`` (this process answers) and ``/readyz`` (the
database, the broker and the cache each answer within ``ARENA_READY_TIMEOUT_SECONDS``).

Each check runs in a thread of its own, so one hung dependency costs the bound, not the
probe's whole timeout, and the others are still reported. A failure names the dependency
and the kind of error, never the address or credentials in an exception's text.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from kombu import Connection

from arena.errors import json_error
from bots.sandbox import enforcement_mode, sandbox_available, trusted_only


def check_database(alias: str = "default") -> None:
    """One ``SELECT 1`` on a connection of this thread's own, closed afterwards."""
    connection = connections[alias]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


def check_broker() -> None:
    """Connect to ``CELERY_BROKER_URL`` (read now, not from the Celery app's copy) and,
    for Redis, PING it: a connection alone can be a half-open socket."""
    bound = settings.ARENA_READY_TIMEOUT_SECONDS
    options = dict(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}))
    options.update(socket_connect_timeout=bound, socket_timeout=bound)
    with Connection(
        settings.CELERY_BROKER_URL, connect_timeout=bound, transport_options=options
    ) as broker:
        broker.ensure_connection(max_retries=0)
        if broker.transport.driver_type == "redis":
            broker.default_channel.client.ping()


def check_cache() -> None:
    """A value written and read back: the throttles and the read cache need both."""
    key = f"arena:readyz:{uuid.uuid4().hex}"
    cache.set(key, "1", timeout=30)
    try:
        if cache.get(key) != "1":
            raise RuntimeError("the cache did not return what was written")
    finally:
        cache.delete(key)


CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "broker": check_broker,
    "cache": check_cache,
}


def containment_mode() -> str:
    """The sandbox containment in force in this process, in one phrase."""
    if sandbox_available():
        return enforcement_mode()
    if trusted_only():
        return "none: bubblewrap unusable, ARENA_TRUSTED_BOTS_ONLY runs bots unconfined"
    return "none: bubblewrap unusable, uploaded bots are refused"


def readiness(checks: dict[str, Callable[[], None]] | None = None) -> dict:
    """Run every check at once, each bounded; {"ready", "failed", "checks", "sandbox"}."""
    checks = CHECKS if checks is None else checks
    bound = settings.ARENA_READY_TIMEOUT_SECONDS
    results: dict[str, dict] = {}
    pool = ThreadPoolExecutor(max_workers=len(checks), thread_name_prefix="readyz")
    started = time.monotonic()
    futures = {name: pool.submit(_timed, check) for name, check in checks.items()}
    for name, future in futures.items():
        left = max(0.0, bound - (time.monotonic() - started))
        try:
            results[name] = future.result(timeout=left)
        except FutureTimeout:
            results[name] = {"ok": False, "error": f"no answer within {bound:g} s"}
    # A hung check's thread is left to its own socket timeouts; the answer does not wait.
    pool.shutdown(wait=False, cancel_futures=True)
    failed = [name for name, result in results.items() if not result["ok"]]
    return {
        "ready": not failed,
        "failed": failed,
        "checks": results,
        "sandbox": containment_mode(),
    }


def _timed(check: Callable[[], None]) -> dict:
    started = time.monotonic()
    try:
        check()
    except Exception as exc:  # any failure is the dependency's: report it, do not raise
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True, "ms": round((time.monotonic() - started) * 1000, 1)}


def _read_only(request: HttpRequest) -> JsonResponse | None:
    if request.method in ("GET", "HEAD"):
        return None
    response = json_error(
        405, f"{request.method} is not allowed here; use GET", code="method_not_allowed"
    )
    response["Allow"] = "GET, HEAD"
    return response


@csrf_exempt  # a probe posting by mistake gets the 405 below, not a CSRF page
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is alive and serves requests; asks nothing of the dependencies, so a
    database outage does not get every web process restarted."""
    return _read_only(request) or JsonResponse({"status": "ok"})


@csrf_exempt
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    refused = _read_only(request)
    if refused is not None:
        return refused
    report = readiness()
    body = {"status": "ready" if report["ready"] else "unready", **report}
    del body["ready"]
    return JsonResponse(body, status=200 if report["ready"] else 503)
