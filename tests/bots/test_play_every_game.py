"""Every registered game is playable with ``manage.py play``: a sandboxed SDK bot against
the built-in heuristic (and random seats where the game needs more players)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from games import registry

SDK_BOT = Path(__file__).resolve().parents[2] / "examples" / "bots" / "sdk_bot.py"
pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.mark.parametrize("slug", registry.slugs())
def test_play_command_runs_every_game(slug):
    game = registry.get(slug)
    players = game.player_counts()[0]
    bots = [str(SDK_BOT), "heuristic"] + ["random"] * (players - 2)
    out = io.StringIO()
    call_command("play", slug, *bots, "--seed", "5", "--json", stdout=out)
    record = json.loads(out.getvalue())
    assert record["game"] == slug and record["version"] == game.version
    seats = record["result"]["seats"]
    assert len(seats) == players
    assert [seat["fault"] for seat in seats] == [None] * players
    assert {seat["rank"] for seat in seats} <= set(range(1, players + 1))
    assert record["moves"], "a match with no moves"
