"""/readyz of a real gunicorn whose PostgreSQL and Redis are reached through proxies that
can cut them (the shared servers keep running): 503 naming what is down, 200 once back."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from tests.integration.test_queues import needs_redis_and_postgres
from tests.support.outages import TcpProxy
from tests.support.servers import database_url, redis_url, start_gunicorn, stop_process_group

pytestmark = [pytest.mark.integration]


def through(url: str, proxy: TcpProxy) -> str:
    parts = urlsplit(url)
    return parts._replace(
        netloc=parts.netloc.replace(f"{parts.hostname}:{parts.port}", f"127.0.0.1:{proxy.port}")
    ).geturl()


def readyz(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_readyz_names_postgres_then_redis_while_cut_and_recovers(transactional_db, tmp_path):
    needs_redis_and_postgres()
    database, broker = database_url(), redis_url()
    db_proxy = TcpProxy(urlsplit(database).port)
    redis_proxy = TcpProxy(urlsplit(broker).port)
    web = start_gunicorn(
        tmp_path,
        env={
            "DATABASE_URL": through(database, db_proxy),
            "CELERY_BROKER_URL": through(broker, redis_proxy),
            "CACHE_URL": through(broker, redis_proxy),
            "ARENA_READY_TIMEOUT_SECONDS": "3",
        },
    )
    try:
        status, body = readyz(web.port)
        assert (status, body["failed"]) == (200, []), body

        db_proxy.cut()
        status, body = readyz(web.port)
        assert (status, body["status"], body["failed"]) == (503, "unready", ["database"]), body
        db_proxy.restore()
        status, body = readyz(web.port)
        assert (status, body["failed"]) == (200, []), body

        redis_proxy.cut()
        status, body = readyz(web.port)
        assert status == 503, body
        assert sorted(body["failed"]) == ["broker", "cache"], body
        assert body["checks"]["database"]["ok"]
        redis_proxy.restore()
        status, body = readyz(web.port)
        assert (status, body["failed"]) == (200, []), body
    finally:
        stop_process_group(web)
        db_proxy.close()
        redis_proxy.close()
