"""Item 11: throttle counts live in the shared cache (Redis), so a limit holds in total
across web processes: two gunicorn servers, requests alternating between them."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid

import pytest

from tests.support.servers import redis_url, start_gunicorn, stop_process_group

pytestmark = pytest.mark.integration


def request(port: int, path: str, body: dict | None = None, headers=None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    call = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(call, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.fixture
def two_servers(transactional_db, tmp_path):
    """Two gunicorn servers on the test database and one Redis cache, with low limits."""
    env = {
        "CACHE_URL": redis_url(),
        "CACHE_KEY_PREFIX": f"test-{uuid.uuid4().hex}",  # a fresh count for this test only
        "ARENA_REGISTER_RATE": "4/hour",
        "ARENA_LOGIN_FAILURE_LIMIT": "3",
    }
    servers = []
    try:
        for name in ("first", "second"):
            servers.append(start_gunicorn(tmp_path, env=env, name=name))
        yield [server.port for server in servers]
    finally:
        for server in servers:
            stop_process_group(server)


def test_sign_up_limit_holds_across_two_server_processes(two_servers):
    statuses = []
    for n in range(8):
        port = two_servers[n % 2]
        body = {"username": f"spread{n}", "password": "a long password 42"}
        statuses.append(request(port, "/api/auth/register/", body)[0])
    assert statuses.count(201) == 4 and statuses.count(429) == 4, statuses

    from django.contrib.auth import get_user_model

    assert get_user_model().objects.count() == 4


def test_failed_log_ins_count_across_two_server_processes(two_servers):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username="victim", password="correct horse 9")
    for n in range(3):
        body = {"username": "victim", "password": f"guess {n}"}
        assert request(two_servers[n % 2], "/api/auth/token/", body)[0] == 400
    for port in two_servers:
        body = {"username": "victim", "password": "correct horse 9"}
        assert request(port, "/api/auth/token/", body)[0] == 429
