"""Where no cgroup is usable: rlimits, SIGSTOP pauses and /proc CPU readings stand in."""

from __future__ import annotations

import pytest

from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import Clock, play_match
from bots.sandbox import Limits, cgroups
from tests.bots.test_hostile import HOSTILE
from tests.support import toygame

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")


@pytest.fixture(autouse=True)
def no_cgroups(monkeypatch):
    monkeypatch.setattr(cgroups, "_BACKEND", ("none", None))


def play(name, tmp_path, neighbour_sleep=0.0):
    bot = tmp_path / name
    bot.mkdir()
    (bot / "main.py").write_text((HOSTILE / f"{name}.py").read_text())
    other = tmp_path / "other"
    other.mkdir()
    (other / "main.py").write_text(
        "import arena_sdk, time\n"
        f"arena_sdk.run(lambda o, legal: time.sleep({neighbour_sleep}) or legal[0])\n"
    )
    players = [ProgramPlayer(bot, Limits()), BuiltinPlayer(toygame.GAME, "random", 1),
               ProgramPlayer(other, Limits())]  # fmt: skip
    return play_match(
        game_slug="toy", players=players, options={"rounds": 3}, seed=1,
        clock=Clock(move_ms=1000, bank_ms=500),
    )  # fmt: skip


@pytest.mark.parametrize(
    "name, kind",
    [("memory_bomb", "memory"), ("fork_bomb", "processes"), ("thread_bomb", "processes"),
     ("daemon", None)],
)  # fmt: skip
def test_rlimits_stand_in(name, kind, tmp_path):
    outcome = play(name, tmp_path)
    fault = outcome.result["seats"][0]["fault"]
    assert (fault and fault["kind"]) == kind, fault
    assert outcome.result["seats"][2]["fault"] is None


def test_sigstop_pauses_a_child_too(tmp_path):
    outcome = play("think_in_child", tmp_path, neighbour_sleep=0.15)
    assert outcome.result["seats"][0]["fault"] is None
    cpu = [m["cpu_ms"]["0"] for m in outcome.moves if "0" in m["cpu_ms"]]
    assert all(isinstance(c, int) for c in cpu)
    assert sum(cpu) < 150
