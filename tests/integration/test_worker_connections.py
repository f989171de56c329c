"""A worker keeps its database connection between tasks (ARENA_WORKER_DB_CONN_MAX_AGE), and
with 0 opens one per task as before. Seen from PostgreSQL itself (pg_stat_activity)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tests.integration.test_queues import active_bots, needs_redis_and_postgres
from tests.support.servers import wait_for
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments import services
from tournaments.models import Match

pytestmark = [pytest.mark.integration]


def worker_connections_opened_before(moment) -> int:
    """Other sessions on the test database that were opened before ``moment``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND backend_start < %s",
            [moment],
        )
        return cursor.fetchone()[0]


def play(tmp_path, name: str, age: str):
    owner = get_user_model().objects.create_user(f"conn-{name}")
    bot_ids = active_bots(owner, [f"{name}-a", f"{name}-b"])
    purge_broker()
    worker = start_worker(tmp_path, name, queues="matches", ARENA_WORKER_DB_CONN_MAX_AGE=age)
    tournament = services.create_tournament(
        organiser=owner, name=name, game="pairs", bot_ids=bot_ids, games_per_pairing=6, seed=5
    )
    services.start_tournament(tournament_id=tournament.pk)
    wait_for(
        lambda: not tournament.matches.exclude(status=Match.Status.FINISHED).exists(),
        240,
        "every match to finish",
        worker,
    )
    last_start = max(tournament.matches.values_list("started_at", flat=True))
    return worker, last_start


def test_a_worker_keeps_its_database_connection_between_matches(transactional_db, tmp_path):
    needs_redis_and_postgres()
    worker, last_start = play(tmp_path, "keep", "300")
    try:
        # The connection the last match was claimed on was opened before it began: by
        # an earlier task of the same pool process, and it is still open now.
        assert worker_connections_opened_before(last_start) >= 1
    finally:
        stop_worker(worker)


def test_with_no_age_a_worker_opens_a_connection_per_task(transactional_db, tmp_path):
    needs_redis_and_postgres()
    worker, last_start = play(tmp_path, "fresh", "0")
    try:
        # Every task closes its connection when it ends: none outlives its match.
        wait_for(
            lambda: worker_connections_opened_before(last_start) == 0,
            30,
            "the worker's connections to be closed",
            worker,
        )
    finally:
        stop_worker(worker)
