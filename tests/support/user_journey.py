"""The whole user journey through the API, shared by the Redis/PostgreSQL and embedded tests,
and its API calls (register, upload a version) other tests make too."""

from __future__ import annotations

import zipfile

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from tests.support.archives import make_zip
from tests.support.servers import wait_for
from tournaments.models import Match
from tournaments.services import recompute_ratings

SDK_BOT = b"""from arena_sdk import run


def act(observation, legal):
    return legal[-1] if len(legal) > 1 and observation.get("seat", 0) % 2 else legal[0]


run(act)
"""

RAW_BOT = b"""import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    elif message["type"] == "end":
        break
"""

CHEATER_BOT = b"""from arena_sdk import run

run(lambda observation, legal: {"take": "everything"})
"""


def register(username: str) -> APIClient:
    client = APIClient()
    response = client.post(
        "/api/auth/register/",
        {"username": username, "password": "a long password 42"},
        format="json",
    )
    assert response.status_code == 201, response.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


def post_version(client: APIClient, bot_id: int, filename: str, content: bytes):
    """The API's answer to ``content`` uploaded as a new version of bot ``bot_id``."""
    upload = SimpleUploadedFile(filename, content)
    return client.post(f"/api/bots/{bot_id}/versions/", {"file": upload}, format="multipart")


def upload(client: APIClient, name: str, filename: str, data: bytes) -> tuple[int, int]:
    response = client.post("/api/bots/", {"name": name, "game": "pairs"}, format="json")
    assert response.status_code == 201, response.content
    bot_id = response.json()["id"]
    response = post_version(client, bot_id, filename, data)
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "pending"
    return bot_id, response.json()["id"]


def version_status(client: APIClient, version_id: int) -> dict | None:
    body = client.get(f"/api/versions/{version_id}/").json()
    return body if body["status"] in ("active", "invalid") else None


def run_user_journey(worker) -> None:
    alice, bob = register("alice"), register("bob")
    sdk_bot, sdk_version = upload(alice, "alice-sdk", "alice.py", SDK_BOT)
    raw_bot, raw_version = upload(
        bob, "bob-raw", "bot.zip", make_zip({"main.py": RAW_BOT}, compression=zipfile.ZIP_STORED)
    )
    third_bot, third_version = upload(bob, "bob-copy", "copy.py", SDK_BOT)
    cheat_bot, cheat_version = upload(alice, "alice-cheat", "cheat.py", CHEATER_BOT)

    for client, version in [(alice, sdk_version), (bob, raw_version), (bob, third_version)]:
        verdict = wait_for(
            lambda c=client, v=version: version_status(c, v), 90, f"version {version}", worker
        )
        assert verdict["status"] == "active", verdict
    verdict = wait_for(lambda: version_status(alice, cheat_version), 90, "the cheater", worker)
    assert verdict["status"] == "invalid"
    assert "legal" in verdict["reason"], verdict["reason"]

    # An invalid bot cannot enter; the three valid ones can.
    response = alice.post(
        "/api/tournaments/",
        {"name": "refused", "game": "pairs", "bots": [sdk_bot, cheat_bot]},
        format="json",
    )
    assert response.status_code == 400 and "no active version" in str(response.json())

    response = alice.post(
        "/api/tournaments/",
        {
            "name": "integration cup",
            "game": "pairs",
            "bots": [sdk_bot, raw_bot, third_bot],
            "players_per_match": 2,
            "games_per_pairing": 2,
            "rotate_seats": True,
            "move_ms": 2000,
            "bank_ms": 20000,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    tournament_id = response.json()["id"]

    def finished():
        body = alice.get(f"/api/tournaments/{tournament_id}/").json()
        return body if body["status"] == "finished" else None

    body = wait_for(finished, 240, "the tournament to finish", worker, interval=0.25)
    assert body["progress"]["total"] == 6 and body["progress"]["finished"] == 6
    standings = body["standings"]
    assert {row["bot"] for row in standings} == {"alice-sdk", "bob-raw", "bob-copy"}
    assert all(row["played"] == 4 for row in standings)
    # One point shared per 2-player match.
    assert sum(row["points"] for row in standings) == 6
    assert all(row["faults"] == 0 for row in standings)

    matches = alice.get(f"/api/tournaments/{tournament_id}/matches/").json()["results"]
    assert len(matches) == 6
    match = alice.get(f"/api/matches/{matches[0]['id']}/").json()
    assert match["status"] == "finished" and match["moves"]
    assert sorted(seat["rank"] for seat in match["seats"]) in ([1, 2], [1, 1])
    replay = alice.get(f"/api/matches/{match['id']}/replay/?seat=0").json()
    assert replay["events"]

    # Elo: on the API, on the page, and equal to a recomputation from scratch.
    board = alice.get("/api/leaderboards/pairs/").json()["ratings"]
    rated = {row["bot"]: row for row in board if row["matches"]}
    assert set(rated) == {"alice-sdk", "bob-raw", "bob-copy"}
    assert all(row["matches"] == 4 for row in rated.values())
    # Live Elo is zero-sum; a fit (if one ran already) is anchored at the live average.
    assert round(sum(row["live_elo"] for row in rated.values())) == 3 * settings.ARENA_ELO_START
    assert round(sum(row["elo"] for row in rated.values())) == 3 * settings.ARENA_ELO_START
    assert all(row["elo_low"] < row["elo"] < row["elo_high"] for row in rated.values())
    live = {
        version: row["live_elo"]
        for version, row in zip(
            [sdk_version, raw_version, third_version],
            [rated["alice-sdk"], rated["bob-raw"], rated["bob-copy"]],
        )
    }
    recomputed = recompute_ratings(pool="pairs:2")
    for version, elo in live.items():
        assert abs(recomputed[version] - elo) < 0.051
    page = Client().get("/games/pairs/").content.decode()
    for name in rated:
        assert name in page
    assert Match.objects.filter(tournament_id=tournament_id, rated_seq__isnull=True).count() == 0
