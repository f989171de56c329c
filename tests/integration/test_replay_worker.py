"""A long match's stored replay is built by a real worker (maintenance queue) once its result
commits, before anyone reads it; a short match sends nothing. On Redis and PostgreSQL, and
on the embedded default (SQLite and the filesystem broker)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client

from tests.support.replay_matches import record_played
from tests.support.servers import wait_for
from tests.support.stored_replays import VIEWERS, fresh_body, served_body
from tournaments.models import MatchReplay
from tournaments.read_models import replays


def store_replay_lines(worker, word: str) -> int:
    return sum(
        "tournaments.tasks.store_replay[" in line and word in line
        for line in worker.log_path.read_text().splitlines()
    )


def a_long_match_is_stored_before_any_read(worker) -> None:
    owner = get_user_model().objects.create_user("replays")
    short = record_played(owner, "pairs", seed=3, players=2)
    long = record_played(owner, "paks", seed=7, players=2)
    assert len(short.moves) < settings.ARENA_STORE_REPLAY_MOVES <= len(long.moves)
    row = wait_for(
        lambda: MatchReplay.objects.filter(match=long).first(), 60, "the stored replay", worker
    )
    built = replays.build_row(long)  # as the first read would build it, here
    assert (row.finished_at, row.version, row.index, bytes(row.data)) == (
        built.finished_at,
        built.version,
        built.index,
        bytes(built.data),
    )
    # The short match's message, had one been sent, was received first (one queue).
    wait_for(lambda: store_replay_lines(worker, "succeeded"), 10, "the build's log line", worker)
    assert store_replay_lines(worker, "received") == 1
    assert not MatchReplay.objects.filter(match=short).exists()
    client = Client()
    for kind in ("replay", "frames"):
        for seat in VIEWERS:
            cache.clear()
            assert served_body(client, long, kind, seat) == fresh_body(long, kind, seat), (
                kind,
                seat,
            )
    assert MatchReplay.objects.get(match=long).built_at == row.built_at


def test_a_long_match_is_stored_by_the_worker(celery_worker_process):
    a_long_match_is_stored_before_any_read(celery_worker_process)


@pytest.mark.embedded
def test_a_long_match_is_stored_by_the_worker_embedded(celery_worker_process):
    assert connection.vendor == "sqlite"
    a_long_match_is_stored_before_any_read(celery_worker_process)
