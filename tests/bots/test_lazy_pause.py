"""Lazy pauses (bots/sandbox/botprocess.py): a seat not on move is stopped for real only when
another seat's move runs long or once it has computed off its turns; a well-behaved bot is
never signalled."""

from __future__ import annotations

import time

import pytest

from bots import sandbox
from bots.players import ProgramPlayer
from bots.runner import Clock, play_match
from bots.sandbox import Limits, botprocess, cgroups

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")

# Answers "up", then spins in a second thread while its main thread sleeps in read().
SPINS_OFF_TURN = """
import sys, threading
def spin():
    while True:
        pass
threading.Thread(target=spin, daemon=True).start()
print('up', flush=True)
sys.stdin.readline()
"""


def answering(on_act: str = "", before: str = "") -> str:
    """A bot that answers every act with its first legal action, doing ``on_act`` first."""
    return f"""
import json, sys, threading, time
{before}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready"}}), flush=True)
    elif message["type"] == "act":
        {on_act or "pass"}
        print(json.dumps({{"type": "action", "action": message["legal"][0]}}), flush=True)
"""


ECHO = answering()
SLOW = answering(on_act="time.sleep(0.06)")
THINKER = answering(
    before="def spin():\n    while True:\n        pass\n"
    "threading.Thread(target=spin, daemon=True).start()"
)


@pytest.fixture(autouse=True)
def needs_cgroups():
    if cgroups.backend()[0] == "none":
        pytest.skip("no cgroup: pauses are always real (test_fallback)")


def cpu_still(box: sandbox.BotProcess) -> int:
    """CPU ms the bot burns over 0.3 s (after its stop has had time to land)."""
    time.sleep(0.05)
    before = box.cpu_ms()
    time.sleep(0.3)
    return box.cpu_ms() - before


def spinning_box(make_bot) -> sandbox.BotProcess:
    box = sandbox.launch(make_bot(SPINS_OFF_TURN), Limits(cpu_seconds=30))
    assert box.proc.stdout.readline() == b"up\n"
    return box


def test_a_bot_caught_computing_off_its_turn_is_paused_for_real_from_then_on(make_bot):
    box = spinning_box(make_bot)
    try:
        box.pause(lazy=True)
        assert box.paused and not box.stopped  # lazy: nothing sent to it yet
        # It spins meanwhile, until past the budget: CPU time, not a fixed wait (on a loaded
        # machine a fixed wait can give it less CPU than the budget).
        spent_from = box.cpu_ms()
        deadline = time.monotonic() + 10
        while box.cpu_ms() - spent_from <= 2 * botprocess.OFF_TURN_BUDGET_NS // 1_000_000:
            assert time.monotonic() < deadline, "the spinning bot got no CPU"
            time.sleep(0.01)
        box.pause(lazy=True)  # the runner's next pause reads its CPU time
        assert box.stopped and not box.lazy_pauses
        assert box.off_turn_ns > botprocess.OFF_TURN_BUDGET_NS
        assert cpu_still(box) <= 5
        box.resume()
        box.pause(lazy=True)  # every later pause is a real one
        assert box.stopped
        assert cpu_still(box) <= 5
    finally:
        box.close()


def test_a_long_move_elsewhere_stops_lazily_paused_bots_and_counts_what_they_used(make_bot):
    box = spinning_box(make_bot)
    try:
        box.pause(lazy=True)
        time.sleep(0.02)
        botprocess.stop_lazy_pauses()  # what a seat's act does past the grace
        assert box.stopped
        assert box.off_turn_ns > 0  # what it burnt before the stop counts towards the budget
        assert cpu_still(box) <= 5
        box.resume()
        assert not box.paused
    finally:
        box.close()


def test_the_off_turn_time_is_counted_before_the_bot_wakes_to_its_move(make_bot):
    """resume() of a lazily paused bot reads its CPU time and lets it go on: no signal."""
    box = spinning_box(make_bot)
    try:
        box.pause(lazy=True)
        time.sleep(0.05)
        box.resume()
        assert not box.paused and box.off_turn_ns > botprocess.OFF_TURN_BUDGET_NS
        assert not box.lazy_pauses  # caught: its next pause will be a real one
        box.pause(lazy=True)
        assert box.stopped
    finally:
        box.close()


def play_three(make_bot) -> tuple[ProgramPlayer, ProgramPlayer, int, int]:
    """A bot spinning in a thread all match, an echo bot, and one thinking 60 ms a move:
    (thinker, sleeper, the thinker's CPU ms, the slow seat's wall ms)."""
    thinker = ProgramPlayer(make_bot(THINKER, name="thinker"), Limits(cpu_seconds=30))
    sleeper = ProgramPlayer(make_bot(ECHO, name="sleeper"), Limits())
    slow = ProgramPlayer(make_bot(SLOW, name="slow"), Limits())
    outcome = play_match(
        game_slug="toy", players=[thinker, sleeper, slow], options={"rounds": 6}, seed=3,
        clock=Clock(move_ms=2000, bank_ms=0),
    )  # fmt: skip
    assert all(seat["fault"] is None for seat in outcome.result["seats"])
    assert thinker.box is not None and sleeper.box is not None
    slow_ms = sum(m["ms"].get("2") or 0 for m in outcome.moves)
    thinker_cpu = sum(m["cpu_ms"].get("0") or 0 for m in outcome.moves)
    assert slow_ms >= 300  # spinning all along, the thinker would burn at least as much
    return thinker, sleeper, thinker_cpu, slow_ms


def test_in_a_match_a_thinker_in_the_background_is_caught_and_a_sleeper_is_not(make_bot):
    """The thinker is paused for real once caught; the echo bot, which sleeps in read()
    between its moves, keeps its lazy pauses all match."""
    thinker, sleeper, thinker_cpu, slow_ms = play_three(make_bot)
    assert not thinker.box.lazy_pauses  # type: ignore[union-attr]
    assert sleeper.box.lazy_pauses, sleeper.box.off_turn_ns  # type: ignore[union-attr]
    assert thinker_cpu < 150, (thinker_cpu, slow_ms)


def test_a_long_move_stops_a_thinker_the_budget_has_not_caught(make_bot, monkeypatch):
    """With a budget it never reaches, the thinker still gets only the grace of each of the
    slow seat's moves (5 ms a core), not the 60 ms the slow seat thinks."""
    monkeypatch.setattr(botprocess, "OFF_TURN_BUDGET_NS", 10**12)
    stops = []
    real_stop = botprocess.stop_lazy_pauses
    monkeypatch.setattr(botprocess, "stop_lazy_pauses", lambda: stops.append(1) or real_stop())
    thinker, _, thinker_cpu, slow_ms = play_three(make_bot)
    assert thinker.box.lazy_pauses  # type: ignore[union-attr]
    assert len(stops) >= 6  # once in each of the slow seat's moves
    assert thinker_cpu < 150, (thinker_cpu, slow_ms)


def test_strict_pauses_can_be_forced(make_bot, monkeypatch):
    monkeypatch.setattr(botprocess, "STRICT_PAUSE", True)
    box = sandbox.launch(make_bot(ECHO), Limits())
    try:
        box.pause(lazy=True)
        assert box.stopped
    finally:
        box.close()
