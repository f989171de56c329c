"""A new author on the embedded default (SQLite, the filesystem broker): upload a version,
challenge a bot for 20 games, read the score with Elo, its margin and LOS."""

import time

import pytest
from django.db import connection

from tests.support.servers import wait_for
from tests.support.user_journey import SDK_BOT, register, upload, version_status
from tournaments.models import Challenge

pytestmark = [pytest.mark.embedded]

FIRST_LEGAL_BOT = b"""from arena_sdk import run

run(lambda observation, legal: legal[0])
"""


def test_a_new_author_reads_a_20_game_challenge_embedded(celery_worker_process):
    assert connection.vendor == "sqlite"
    worker = celery_worker_process
    bob = register("bob")
    theirs, theirs_version = upload(bob, "theirs", "main.py", FIRST_LEGAL_BOT)
    alice = register("alice")
    started = time.monotonic()
    mine, version = upload(alice, "mine", "main.py", SDK_BOT)
    for client, pk in ((alice, version), (bob, theirs_version)):
        checked = wait_for(lambda c=client, p=pk: version_status(c, p), 120, "validation", worker)
        assert checked["status"] == "active", checked
    made = alice.post(
        "/api/challenges/",
        {"bot": mine, "opponents": [theirs], "games": 20, "options": {}},
        format="json",
    )
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    wait_for(lambda: Challenge.objects.get(pk=pk).status == "finished", 300, "the games", worker)
    result = alice.get(f"/api/challenges/{pk}/").json()
    print(f"upload to a 20-game result: {time.monotonic() - started:.1f} s")
    assert result["played"] == result["total"] == 20
    assert result["wins"] + result["draws"] + result["losses"] == 20
    assert result["elo_diff"] is not None and result["los"] is not None
    assert sum(result["pentanomial"]) == 10
    assert any("pentanomial" in line for line in result["lines"])
