"""Item 9: a burst of concurrent requests never passes a limit. Each request takes its place
in the count with one atomic increment, so 50 requests fired at once at a limit of 10, at
several server processes and threads sharing one Redis, see at most 10 succeed."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
import uuid

import pytest

from tests.support.servers import redis_url, start_gunicorn, stop_process_group

pytestmark = pytest.mark.integration

REQUESTS = 50
LIMIT = 10


def post(port: int, path: str, body: dict, address: str) -> tuple[int, dict, str | None]:
    call = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": address},
    )
    try:
        with urllib.request.urlopen(call, timeout=60) as answer:
            return answer.status, json.loads(answer.read() or b"{}"), None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}"), error.headers.get("Retry-After")


@pytest.fixture
def servers(transactional_db, tmp_path):
    """Two gunicorn servers of three processes of ten threads on one Redis count, sign-ups
    at 10/hour."""
    env = {
        "CACHE_URL": redis_url(),
        "CACHE_KEY_PREFIX": f"test-{uuid.uuid4().hex}",  # a fresh count for this test only
        "ARENA_REGISTER_RATE": f"{LIMIT}/hour",
        # Threads as well as processes: every request of the burst is in a server at once.
        "GUNICORN_CMD_ARGS": "--threads 10",
        # Each burst comes from its own address (the one proxy in front says which).
        "ARENA_TRUSTED_PROXIES": "1",
    }
    started = []
    try:
        for name in ("first", "second"):
            started.append(start_gunicorn(tmp_path, env=env, name=name, workers=3))
        yield [server.port for server in started]
    finally:
        for server in started:
            stop_process_group(server)


def burst(ports: list[int], address: str) -> list[tuple[int, dict, str | None]]:
    """REQUESTS sign-ups from ``address``, sent at the same moment from as many threads."""
    answers: list = [None] * REQUESTS
    start = threading.Barrier(REQUESTS)

    def sign_up(n: int) -> None:
        start.wait()
        body = {"username": f"burst-{address}-{n}", "password": "a long password 42"}
        answers[n] = post(ports[n % len(ports)], "/api/auth/register/", body, address)

    threads = [threading.Thread(target=sign_up, args=(n,)) for n in range(REQUESTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_fifty_concurrent_sign_ups_pass_a_limit_of_ten_at_most_ten_times(servers):
    from django.contrib.auth import get_user_model

    # Three bursts, each from its own address, so each starts from a count of zero.
    for address in ("192.0.2.1", "192.0.2.2", "192.0.2.3"):
        answers = burst(servers, address)
        statuses = [status for status, _, _ in answers]
        assert statuses.count(201) <= LIMIT, (address, statuses)
        assert statuses.count(201) + statuses.count(429) == REQUESTS, statuses
        for status, body, retry_after in answers:
            if status == 429:
                assert body["code"] == "throttled" and int(retry_after) > 0, body
        made = get_user_model().objects.filter(username__startswith=f"burst-{address}-")
        assert made.count() == statuses.count(201)
