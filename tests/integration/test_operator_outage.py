"""An operator's night, end to end (PostgreSQL, a private Redis, a real gunicorn and
worker): during a tournament the worker is killed, then Redis stops; /metrics and /readyz
alone tell each step, and that everything recovered once a worker and Redis are back."""

from __future__ import annotations

import json
import os
import signal
import urllib.error
import urllib.request

import pytest
from django.contrib.auth import get_user_model
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.test_outages import PACED_BOT, all_final, finished_count
from tests.integration.test_queues import active_bots, needs_redis_and_postgres
from tests.support.outages import PrivateRedis
from tests.support.servers import start_gunicorn, stop_process_group, wait_for
from tests.support.workers import start_worker, stop_worker
from tournaments import services
from tournaments.models import Match

pytestmark = pytest.mark.integration

TOKEN = "night-shift"


def get(port: int, path: str, **headers) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def scrape(port: int) -> dict[str, dict[tuple, float]]:
    status, body = get(port, "/metrics", Authorization=f"Bearer {TOKEN}")
    assert status == 200, body
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def up(samples: dict) -> dict[str, float]:
    return {dict(key)["dependency"]: value for key, value in samples["arena_dependency_up"].items()}


def finished_metric(samples: dict) -> float:
    return sum(samples.get("arena_matches_finished_total", {}).values())


def test_a_killed_worker_and_a_stopped_redis_read_from_the_metrics(transactional_db, tmp_path):
    needs_redis_and_postgres()
    owner = get_user_model().objects.create_user("night-owner")
    bot_ids = active_bots(owner, ["n-a", "n-b", "n-c"], source=PACED_BOT)
    redis = PrivateRedis(tmp_path)
    redis.start()
    env = {
        "CELERY_BROKER_URL": redis.url,
        "CACHE_URL": redis.url.replace("/0", "/1"),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "ARENA_METRICS_TOKEN": TOKEN,
        # The reapers as often as the other killed-worker tests run them: the test waits
        # on them, it does not time them.
        "ARENA_REAPER_SECONDS": "1",
        "ARENA_LOST_MESSAGE_SECONDS": "5",
        "ARENA_STALE_MATCH_SECONDS": "4",
    }
    (tmp_path / "metrics").mkdir()
    web = start_gunicorn(tmp_path, env=env)
    worker = start_worker(tmp_path, "first", concurrency=1, **env)
    try:
        # The worker's beat starts it: this process never talks to the private broker.
        tournament = services.create_tournament(
            organiser=owner, name="night", game="pairs", bot_ids=bot_ids, games_per_pairing=4,
            seed=11,
        )  # fmt: skip
        wait_for(lambda: finished_count(tournament) >= 2, 240, "two matches to finish", worker)
        samples = scrape(web.port)
        assert samples["arena_workers_alive"] == {(): 1.0}
        assert up(samples) == {"database": 1.0, "broker": 1.0, "cache": 1.0}

        # 1. The worker dies at once, whatever it was playing.
        wait_for(
            lambda: tournament.matches.filter(status=Match.Status.RUNNING).exists(),
            60, "a match to be running", worker,
        )  # fmt: skip
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        orphaned = set(
            tournament.matches.filter(status=Match.Status.RUNNING).values_list("pk", flat=True)
        )
        samples = scrape(web.port)
        assert samples["arena_workers_alive"] == {(): 0.0}
        assert samples["arena_queue_depth"][(("queue", "matches"),)] >= 0
        assert up(samples)["broker"] == 1.0  # the worker, not the broker

        # 2. Redis stops.
        redis.stop()
        samples = scrape(web.port)
        assert up(samples) == {"database": 1.0, "broker": 0.0, "cache": 0.0}
        assert "arena_queue_depth" not in samples and "arena_workers_alive" not in samples
        status, body = get(web.port, "/readyz")
        assert status == 503 and sorted(json.loads(body)["failed"]) == ["broker", "cache"]

        # 3. Redis and a worker are back: everything left is played, and the numbers say so.
        redis.start()
        # Two processes replay what is left (one worker still, which is what the metrics count).
        worker = start_worker(tmp_path, "second", concurrency=2, **env)
        wait_for(lambda: all_final(tournament), 300, "every match to end", worker)
        status, _ = get(web.port, "/readyz")
        assert status == 200
        finished = Match.objects.filter(status=Match.Status.FINISHED).count()
        wait_for(lambda: finished_metric(scrape(web.port)) == finished, 30, "the last counts")
        samples = scrape(web.port)
        assert up(samples) == {"database": 1.0, "broker": 1.0, "cache": 1.0}
        assert samples["arena_workers_alive"] == {(): 1.0}
        assert finished == tournament.matches.count()
        # The killed worker's match was given back by the reaper and played on the second.
        for match in Match.objects.filter(pk__in=orphaned):
            assert (match.status, match.attempts >= 2) == (Match.Status.FINISHED, True)
        # The kill is no host failure: the host never reported one, the reaper acted.
        assert sum(samples.get("arena_host_failures_total", {(): 0}).values()) == 0
    finally:
        stop_worker(worker)
        stop_process_group(web)
        redis.stop()
