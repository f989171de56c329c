"""Games against bots on real workers: a person's game on the "human_games" queue with a
real program bot in the sandbox; the worker killed mid-game, the game goes on from its
recorded moves on another worker, and the person finishes it."""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

from bots import services as bot_services
from games import registry
from tests.support.human_play import play_out, wait_for_status
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments.models import Match

EXAMPLE = Path(__file__).parents[2] / "examples" / "bots" / "pairs_cautious.py"
# The reaper every second, a claim stale after 4 s: the test does not wait minutes.
FAST_REAPER = {"ARENA_STALE_MATCH_SECONDS": "4", "ARENA_REAPER_SECONDS": "1"}


@pytest.fixture
def person_and_bot(transactional_db):
    people = get_user_model().objects
    person, owner = people.create_user("person"), people.create_user("bot-owner")
    bot = bot_services.create_bot(owner=owner, name="cautious", game="pairs")
    version = bot_services.upload_version(bot=bot, filename="main.py", data=EXAMPLE.read_bytes())
    assert bot_services.validate_version(version_id=version.pk).status == "active"
    client = APIClient()
    client.force_authenticate(person)
    return client, bot


def test_a_game_survives_its_worker_being_killed_and_ends_on_another(person_and_bot, tmp_path):
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")
    client, bot = person_and_bot
    purge_broker()
    first = start_worker(tmp_path, "first", queues="human_games,maintenance", **FAST_REAPER)
    second = None
    try:
        made = client.post(
            "/api/human-games/",
            {
                "game": "pairs",
                "players": 3,
                "seat": 0,
                "bots": [bot.pk, "random"],
                "options": {"games": 3},  # long enough to be killed mid-game
            },  # fmt: skip
            format="json",
        )
        assert made.status_code == 201, made.content
        game_id, match_id = made.json()["id"], made.json()["match"]
        rng = random.Random(2)
        # Two moves of the person on the first worker.
        for _ in range(2):
            turn = wait_for_status(client, game_id, {"your_turn"}, timeout=60)
            answer = client.post(
                f"/api/human-games/{game_id}/act/",
                {"action": rng.choice(turn["legal"]), "turn": turn["turn"]},
                format="json",
            )
            assert answer.status_code == 200, answer.content
        turn = wait_for_status(client, game_id, {"your_turn"}, timeout=60)
        played = Match.objects.get(pk=match_id).moves
        assert len(played) >= 2
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        # Meanwhile the page says the game waits for its server, and offers no move.
        lost = wait_for_status(client, game_id, {"waiting"}, timeout=30)
        assert "stopped answering" in lost["message"] and lost["legal"] == []
        second = start_worker(tmp_path, "second", queues="human_games,maintenance", **FAST_REAPER)
        resumed = wait_for_status(client, game_id, {"your_turn"}, timeout=90)
        match = Match.objects.get(pk=match_id)
        assert match.attempts == 2 and resumed["turn"] == turn["turn"]
        # The recorded moves stand: the game went on from them, the deal unchanged.
        assert match.moves[: len(played)] == played
        assert resumed["observation"] == registry.rebuild(match.record).observation(0)
        final = play_out(client, game_id, rng, timeout=120)
        assert final["status"] == "finished", final["message"]
        match.refresh_from_db()
        assert match.status == "finished" and match.attempts == 2
        assert [seat["fault"] for seat in match.result["seats"]] == [None, None, None]
        assert registry.rebuild(match.record).is_over()
        assert second.poll() is None
    finally:
        stop_worker(first)
        if second is not None:
            stop_worker(second)
