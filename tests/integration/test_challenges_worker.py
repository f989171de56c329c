"""Challenges on a real worker and real Redis: the figures equal play --games' on the same
games, and tournament matches queued before a flood of challenges start first."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.support.builders import active_bots, bot_with_version, started_tournament, user
from tests.support.servers import wait_for
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments.models import Challenge, Match

pytestmark = [pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
CAUTIOUS_BOT = (ROOT / "examples" / "bots" / "pairs_cautious.py").read_bytes()
FIRST_LEGAL_BOT = b"""from arena_sdk import run

run(lambda observation, legal: legal[0])
"""


@pytest.fixture(autouse=True)
def production_shape():
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def client_of(person) -> APIClient:
    client = APIClient()
    client.force_authenticate(person)
    return client


def test_a_challenge_on_a_worker_scores_as_play_scores_the_same_games(
    celery_worker_process, tmp_path
):
    alice, bob = user(name="alice"), user(name="bob")
    mine, _ = bot_with_version(name="cautious", owner=alice, source=CAUTIOUS_BOT)
    theirs, _ = bot_with_version(name="firstlegal", owner=bob, source=FIRST_LEGAL_BOT)
    made = client_of(alice).post(
        "/api/challenges/",
        {"bot": mine.pk, "opponents": [theirs.pk], "games": 8, "options": {}},
        format="json",
    )
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    wait_for(
        lambda: Challenge.objects.get(pk=pk).status == "finished",
        300,
        "the challenge's games",
        celery_worker_process,
    )
    result = client_of(alice).get(f"/api/challenges/{pk}/").json()
    assert result["played"] == result["total"] == 8
    assert all(m.moves for m in Match.objects.filter(challenge_id=pk))
    # A challenge's match has its page and replay like any other.
    first = result["matches"][0]
    assert Client().get(f"/matches/{first}/").status_code == 200
    assert APIClient().get(f"/api/matches/{first}/replay/").status_code == 200

    # The same bots, games and seed, played locally by play --games.
    (tmp_path / "cautious.py").write_bytes(CAUTIOUS_BOT)
    (tmp_path / "firstlegal.py").write_bytes(FIRST_LEGAL_BOT)
    out = io.StringIO()
    call_command(
        "play", "pairs", str(tmp_path / "cautious.py"), str(tmp_path / "firstlegal.py"),
        "--games", "8", "--seed", str(result["seed"]), "--json",
        stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    local = json.loads(out.getvalue())["pairings"][0]
    assert (result["wins"], result["draws"], result["losses"]) == (
        local["wins"], local["draws"], local["losses"],
    )  # fmt: skip
    assert result["elo_diff"] == pytest.approx(local["elo"])
    assert result["los"] == pytest.approx(local["los"])
    if result["elo_margin"] is not None:
        assert result["elo_margin"] == pytest.approx(local["elo_margin"])
    assert result["pentanomial"] == local["pentanomial"]["counts"]
    figures = result["figures"][0]
    assert figures["pentanomial"]["elo"] == pytest.approx(local["pentanomial"]["elo"])
    assert figures["pentanomial"]["los"] == pytest.approx(local["pentanomial"]["los"])


@override_settings(ARENA_CHALLENGES_AT_ONCE=100, ARENA_CHALLENGE_SLOTS=2)
def test_tournament_matches_queued_before_a_flood_of_challenges_start_first(
    transactional_db, tmp_path
):
    purge_broker()
    organiser = user(name="org")
    bots = active_bots(owner=organiser, count=3)
    tournament = started_tournament(organiser=organiser, bots=bots, games_per_pairing=2, seed=7)
    queued_before = list(
        Match.objects.filter(tournament=tournament, status="queued").values_list("pk", flat=True)
    )
    assert queued_before
    alice = user(name="alice")
    mine, _ = bot_with_version(name="mine", owner=alice)
    for _ in range(4):
        made = client_of(alice).post(
            "/api/challenges/",
            {"bot": mine.pk, "opponents": [bots[0].pk], "games": 2},
            format="json",
        )
        assert made.status_code == 201, made.content
    # A tournament started after the flood: the flood holds only ARENA_CHALLENGE_SLOTS (2)
    # places in the queue ahead of it.
    later = started_tournament(
        organiser=organiser, bots=bots, games_per_pairing=2, seed=8, name="later"
    )
    queued_after = list(
        Match.objects.filter(tournament=later, status="queued").values_list("pk", flat=True)
    )
    # One worker process: it takes the queue's messages in order, one at a time.
    worker = start_worker(tmp_path, concurrency=1)
    try:
        wait_for(
            lambda: not Match.objects.exclude(status__in=["finished", "failed"]).exists(),
            300,
            "every match",
            worker,
        )
    finally:
        stop_worker(worker)
    tournament_starts = Match.objects.filter(pk__in=queued_before).values_list(
        "started_at", flat=True
    )
    challenge_starts = Match.objects.filter(challenge__isnull=False).values_list(
        "started_at", flat=True
    )
    assert max(tournament_starts) < min(challenge_starts)
    later_starts = Match.objects.filter(pk__in=queued_after).values_list("started_at", flat=True)
    ahead_of_later = [start for start in challenge_starts if start < min(later_starts)]
    assert len(ahead_of_later) <= 2
