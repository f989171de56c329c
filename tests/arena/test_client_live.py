"""The `arena` command against a live server without a worker: a tournament's status as a
table and as JSON, a match's record saved and logs read (only one's own seats), and the
scopes of the token it is given refusing what they do not cover, with exit code 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from arena.integrations import services
from tests.support import builders
from tests.support.servers import ROOT


def arena(*args: str):
    return subprocess.run(
        [sys.executable, "-m", "arena_client", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT / "client"), "ARENA_CONFIG": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def finished_cup(transactional_db):
    alice, bob = builders.user(name="alice"), builders.user(name="bob")
    bots = [
        builders.bot_with_version(name="ace", owner=alice)[0],
        builders.bot_with_version(name="bee", owner=bob)[0],
    ]
    tournament = builders.started_tournament(organiser=alice, bots=bots, name="spring cup")
    builders.play_queued(tournament_id=tournament.pk)
    return alice, bots, tournament


def test_status_logs_and_record_on_a_live_server(live_server, finished_cup, tmp_path):
    alice, bots, tournament = finished_cup
    _, key = services.create_token(user=alice, name="ci", scopes=["read"])
    url = live_server.url
    done = arena("--url", url, "--token", key, "status", "tournament", str(tournament.pk))
    assert done.returncode == 0, done.stderr
    assert f"tournament {tournament.pk} spring cup (finished)" in done.stdout
    lines = done.stdout.splitlines()
    assert "matches played: 2/2" in lines
    header = lines.index("PLACE  BOT  POINTS")
    assert [line.split()[:2] for line in lines[header + 1 :]] == [["1", "ace"], ["2", "bee"]]
    as_json = json.loads(
        arena("--url", url, "status", "tournament", str(tournament.pk), "--json").stdout
    )
    assert as_json["status"] == "finished"

    match = tournament.matches.order_by("pk").first()
    saved = tmp_path / "m.json"
    done = arena("--url", url, "record", str(match.pk), "-o", str(saved), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"match": match.pk, "file": str(saved)}
    assert json.loads(saved.read_text())["seed"] == match.seed

    logs = json.loads(arena("--url", url, "--token", key, "logs", str(match.pk), "--json").stdout)
    mine = [s.seat for s in match.seats.all() if s.version.bot.owner_id == alice.pk]
    assert list(logs["logs"]) == [str(s) for s in mine]
    theirs = next(s.seat for s in match.seats.all() if s.seat not in mine)
    done = arena("--url", url, "--token", key, "logs", str(match.pk), "--seat", str(theirs))
    assert done.returncode == 3 and "403" in done.stderr
    done = arena("--url", url, "logs", str(match.pk))  # anonymous: no seat is theirs
    assert done.returncode == 3


def test_a_token_s_scopes_refuse_through_the_client(live_server, finished_cup, tmp_path):
    alice, bots, _ = finished_cup
    _, key = services.create_token(user=alice, name="reader", scopes=["read"])
    source = tmp_path / "bot.py"
    source.write_text("print('hi')\n")
    done = arena(
        "--url", live_server.url, "--token", key, "upload", str(bots[0].pk), str(source), "--json"
    )
    assert done.returncode == 3
    error = json.loads(done.stdout)
    assert error["data"]["status"] == 403 and "'upload'" in error["error"]
    assert bots[0].versions.count() == 1
    done = arena(
        "--url", live_server.url, "--token", key, "challenge", str(bots[0].pk), str(bots[1].pk)
    )
    assert done.returncode == 3 and "'challenge'" in done.stderr
