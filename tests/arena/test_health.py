"""/healthz and /readyz in this process: the answers' shape, a broker on a closed port
naming the broker, and the bound on a check that hangs."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.test import override_settings

from arena import health
from tests.support.servers import free_port

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_answers_without_asking_anything(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_readyz_is_ready_with_every_check_and_the_sandbox_mode(client):
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ready"
    assert body["failed"] == []
    assert set(body["checks"]) == {"database", "broker", "cache"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["sandbox"] == health.containment_mode()
    assert body["sandbox"]


def test_readyz_names_the_broker_when_nothing_listens_there_and_recovers(client):
    closed = f"redis://127.0.0.1:{free_port()}/0"
    with override_settings(CELERY_BROKER_URL=closed):
        response = client.get("/readyz")
    assert response.status_code == 503
    body = json.loads(response.content)
    assert body["status"] == "unready"
    assert body["failed"] == ["broker"]
    assert body["checks"]["broker"]["ok"] is False
    assert "127.0.0.1" not in response.content.decode()  # no addresses in a public answer
    assert body["checks"]["database"]["ok"] and body["checks"]["cache"]["ok"]
    assert client.get("/readyz").status_code == 200  # the real setting again


def test_a_hung_check_costs_the_bound_and_is_named(client):
    release = threading.Event()
    try:
        with override_settings(ARENA_READY_TIMEOUT_SECONDS=0.3):
            started = time.monotonic()
            report = health.readiness(
                {"database": health.check_database, "stuck": lambda: release.wait(10)}
            )
            elapsed = time.monotonic() - started
    finally:
        release.set()
    assert report["failed"] == ["stuck"]
    assert report["checks"]["stuck"] == {"ok": False, "error": "no answer within 0.3 s"}
    assert report["checks"]["database"]["ok"]
    assert elapsed < 5  # not the stuck check's 10 s


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_only_reads_are_answered(client, path):
    response = client.post(path)
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert response["Allow"] == "GET, HEAD"
    assert client.head(path).status_code in (200, 503)
