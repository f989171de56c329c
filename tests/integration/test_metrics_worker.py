"""/metrics after real work on two real workers sharing one metrics directory (Redis,
PostgreSQL): parsed with prometheus_client's own parser, every count equals what the
database says happened, whichever of the workers' processes counted it.

One worker is healthy; the other takes only matches and cannot unpack a bot (its bot cache
is a file), so each match it takes is a host failure given back to the queue.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.test import Client, override_settings
from prometheus_client.parser import text_string_to_metric_families

from bots import services as bot_services
from bots.models import BotVersion
from bots.players import FAULT_KINDS
from tests.integration.test_queues import QUICK_BOT, needs_redis_and_postgres
from tests.support import builders
from tests.support.servers import wait_for
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments import services
from tournaments.models import HostFailure, Match, MatchSeat

pytestmark = [pytest.mark.integration]

TOKEN = "scrape-me"
CRASHING_BOT = b"import sys\nsys.exit(3)\n"


def scrape(metrics_dir) -> dict[str, dict[tuple, float]]:
    """{sample name: {sorted label items: value}} of one authorised GET /metrics."""
    with override_settings(ARENA_METRICS_DIR=metrics_dir, ARENA_METRICS_TOKEN=TOKEN):
        response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            key = tuple(sorted(sample.labels.items()))
            samples.setdefault(sample.name, {})[key] = sample.value
    return samples


def database_counts() -> dict[str, dict[tuple, float]]:
    """The same samples as the database tells them."""
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    faults: dict[tuple, float] = {}
    for fault in MatchSeat.objects.filter(
        match__status=Match.Status.FINISHED, fault__isnull=False
    ).values_list("fault", flat=True):
        key = (("kind", fault["kind"]),)
        faults[key] = faults.get(key, 0) + 1
    return {
        "arena_matches_finished_total": {
            (("game", game),): float(finished.filter(game=game).count())
            for game in set(finished.values_list("game", flat=True))
        },
        "arena_match_faults_total": faults,
        "arena_host_failures_total": {(): float(HostFailure.objects.count())},
        "arena_validation_seconds_count": {
            (): float(BotVersion.objects.filter(validated_at__isnull=False).count())
        },
    }


def counted(samples: dict) -> dict:
    """The samples the database can be compared with; series shown at 0 before anything
    was counted (every fault kind is) left out, as the database has no row for them."""
    return {
        name: {key: value for key, value in samples.get(name, {}).items() if value}
        for name in database_counts()
    }


def test_counts_from_every_process_of_two_workers_equal_the_database(transactional_db, tmp_path):
    needs_redis_and_postgres()
    purge_broker()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    broken_cache = tmp_path / "not-a-folder"
    broken_cache.write_text("a file where the bot cache should be")
    shared = {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "ARENA_MAX_MATCH_ATTEMPTS": "20"}
    healthy = start_worker(tmp_path, name="healthy", concurrency=2, **shared)
    broken = None
    try:
        owner = get_user_model().objects.create_user("metrics-owner")
        uploaded = []
        for name in ("m-a", "m-b"):  # validated by the healthy worker
            bot = bot_services.create_bot(owner=owner, name=name, game="pairs")
            bot_services.upload_version(bot=bot, filename="quick.py", data=QUICK_BOT)
            uploaded.append(bot)
        wait_for(
            lambda: not BotVersion.objects.filter(status__in=["pending", "validating"]).exists(),
            120,
            "the validations",
            healthy,
        )
        assert all(bot.versions.get().status == "active" for bot in uploaded)
        crasher, _ = builders.bot_with_version(name="m-crash", owner=owner, source=CRASHING_BOT)

        broken = start_worker(
            tmp_path, name="broken", queues="matches", concurrency=1,
            ARENA_BOT_CACHE=str(broken_cache), **shared,
        )  # fmt: skip
        tournament = services.create_tournament(
            organiser=owner, name="metered", game="pairs",
            bot_ids=[uploaded[0].pk, uploaded[1].pk, crasher.pk], games_per_pairing=4, seed=5,
        )  # fmt: skip
        services.start_tournament(tournament_id=tournament.pk)
        wait_for(
            lambda: not Match.objects.filter(~Q(status__in=["finished", "failed"])).exists(),
            240,
            "every match to end",
            healthy,
        )
        # The counters move just after each commit: wait for the last ones, then compare.
        try:
            wait_for(
                lambda: counted(scrape(metrics_dir)) == database_counts(),
                30,
                "the counts to settle",
            )
        except pytest.fail.Exception:
            assert counted(scrape(metrics_dir)) == database_counts()  # says which differ
            raise
        samples = scrape(metrics_dir)
        expected = database_counts()
        assert counted(samples) == expected
        assert sum(expected["arena_matches_finished_total"].values()) == 12
        assert expected["arena_match_faults_total"], "the crashing bot faulted in none"
        assert expected["arena_host_failures_total"][()] > 0, "the broken worker took no match"
        assert samples["arena_workers_alive"] == {(): 2.0}
        assert set(samples["arena_match_faults_total"]) == {(("kind", k),) for k in FAULT_KINDS}
        assert set(samples["arena_queue_depth"]) == {
            (("queue", q),) for q in ("matches", "validations", "human_games", "maintenance")
        }
        assert samples["arena_dependency_up"] == {
            (("dependency", d),): 1.0 for d in ("database", "broker", "cache")
        }
        # Several processes wrote their own files, and the scrape added them all up.
        assert len(list(metrics_dir.glob("counter_*.db"))) >= 2
        histogram_sum = samples["arena_validation_seconds_sum"][()]
        assert 0 < histogram_sum < 600
    finally:
        for worker in (broken, healthy):
            if worker is not None:
                stop_worker(worker)
