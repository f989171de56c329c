"""A newcomer on the embedded default (SQLite, the filesystem broker, a bare worker that
takes every queue): upload a bot, then play Pairs against it through the API to the end."""

import random

import pytest
from django.db import connection

from tests.support.human_play import play_out
from tests.support.servers import wait_for
from tests.support.user_journey import SDK_BOT, register, upload, version_status

pytestmark = [pytest.mark.embedded]


def test_a_person_plays_pairs_against_an_uploaded_bot_embedded(celery_worker_process):
    assert connection.vendor == "sqlite"
    worker = celery_worker_process
    owner = register("owner")
    bot, version = upload(owner, "sdk_bot", "main.py", SDK_BOT)
    checked = wait_for(lambda: version_status(owner, version), 120, "validation", worker)
    assert checked["status"] == "active", checked
    person = register("person")
    made = person.post("/api/human-games/", {"game": "pairs", "bots": [bot]}, format="json")
    assert made.status_code == 201, made.content
    final = play_out(person, made.json()["id"], random.Random(1), timeout=180)
    assert final["status"] == "finished", final["message"]
    assert [seat["fault"] for seat in final["result"]["seats"]] == [None, None]
    record = person.get(f"/api/matches/{made.json()['match']}/").json()
    assert record["hidden"] is False and record["seed"] is not None
