"""Sandboxes built ahead of their start (sandbox.prepare), the pause of a whole tree, and a
seat's end."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bots import sandbox
from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import play_match
from bots.sandbox import Limits, cgroups, slots
from tests.support import toygame

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")

SAYS_UP = "import sys\nprint('up', flush=True)\nsys.stdin.readline()\n"


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def held_child(box: sandbox.BotProcess) -> int:
    """The sandbox's first process, once bwrap has cloned it (it then waits on the gate)."""
    deadline = time.monotonic() + 10
    while not (kids := children(box.pid)):
        assert time.monotonic() < deadline, "bwrap never cloned the sandbox"
        time.sleep(0.005)
    return kids[0]


def test_a_prepared_sandbox_runs_nothing_of_the_bot_before_its_release(make_bot):
    bot = make_bot(SAYS_UP)
    box = sandbox.prepare(bot, Limits())
    try:
        assert box.held
        child = held_child(box)
        # Built and waiting: still bwrap's own code, in the group, as the slot's uid.
        assert os.readlink(f"/proc/{child}/exe") == os.path.realpath(sandbox.bwrap_path())
        if box.group is not None:
            assert sorted(box.group.procs()) == sorted([box.pid, child])
            if isinstance(box.group, cgroups.CgroupV1) and cgroups.UNIFIED in box.group.dirs:
                # the freezer's group holds the bot alone: bwrap's monitor stays out of a pause
                freezer = box.group.dirs[cgroups.UNIFIED] / "cgroup.procs"
                assert freezer.read_text().split() == [str(child)]
        if slots.can_switch_uid():
            assert os.stat(f"/proc/{child}").st_uid == box.slot_uid
        os.set_blocking(box.proc.stdout.fileno(), False)
        assert box.proc.stdout.read() is None  # not a byte written: nothing ran
        os.set_blocking(box.proc.stdout.fileno(), True)
        box.release()
        assert not box.held
        assert box.proc.stdout.readline() == b"up\n"
        assert os.readlink(f"/proc/{child}/exe") == os.path.realpath(sandbox.bot_python())
        box.release()  # a second release is a no-op
    finally:
        box.close()


def test_an_unreleased_sandbox_closes_without_a_trace(make_bot):
    bot = make_bot(SAYS_UP)
    box = sandbox.prepare(bot, Limits())
    child = held_child(box)
    uid, staged = box.slot_uid, box.staged
    groups = [Path(p).parent for p in box.group.attach_paths()] if box.group else []
    assert staged is not None and staged.is_dir()
    box.close()
    assert sandbox.wait_gone([box.pid, child])
    assert box.proc.stdout.closed  # its pipes went with it
    assert not staged.exists()
    assert not any(group.exists() for group in groups)
    if uid is not None:
        assert slots.uid_processes(uid) == []
        assert not slots.held(uid)


def test_a_prepared_seat_starts_and_plays(make_bot):
    """ProgramPlayer.prepare, then start: the start-up allowance runs from the release."""
    bot = make_bot(
        """
        import arena_sdk
        arena_sdk.run(lambda observation, legal: legal[0])
        """
    )
    seat = ProgramPlayer(bot, Limits(start_ms=1000))
    seat.prepare()
    seat.prepare()  # idempotent
    assert seat.box is not None and seat.box.held
    time.sleep(1.2)  # longer than the start-up allowance: it must not have been running
    assert seat.start({"game": "toy", "seat": 0, "players": 2}) is None
    answer = seat.act({"x": 1}, [3, 4], {"move_ms": 1000, "bank_ms": 0}, move=1)
    assert answer.fault is None and answer.action == 3
    seat.close()


def test_a_bot_too_large_to_stage_is_faulted_at_its_start(make_bot, monkeypatch):
    """prepare() keeps the refusal for start(), where play_match turns it into the seat's
    fault, as it did before seats were prepared; the other seats play on."""
    monkeypatch.setattr(slots, "MAX_STAGED_BYTES", 1000)
    bot = make_bot("print('hi')\n", data="x" * 5000)
    players = [ProgramPlayer(bot, Limits()), BuiltinPlayer(toygame.GAME, "random", 1)]
    outcome = play_match(game_slug="toy", players=players, options={"rounds": 1}, seed=3)
    fault = outcome.result["seats"][0]["fault"]
    assert fault["kind"] == "crashed" and "could not be started" in fault["reason"]
    assert outcome.result["seats"][1]["fault"] is None


BUSY_TREE = """
import os, sys, threading
def spin():
    while True:
        pass
if os.fork() == 0:
    spin()
threading.Thread(target=spin, daemon=True).start()
print("up", flush=True)
spin()
"""


def test_a_paused_tree_gets_no_cpu(make_bot):
    """A bot spinning in its main thread, a second thread and a forked child: paused, the
    group's CPU time stands still; resumed, it runs again. With the opt-in hybrid v2
    freezer one write freezes the whole group, and the group says it is frozen."""
    if cgroups.backend()[0] == "none":
        pytest.skip("no cgroup: test_fallback covers SIGSTOP")
    box = sandbox.launch(make_bot(BUSY_TREE), Limits(cpu_seconds=30))
    try:
        assert box.proc.stdout.readline() == b"up\n"
        group = box.group
        assert group is not None
        unified = cgroups.UNIFIED in getattr(group, "dirs", {})  # ARENA_CGROUP_HYBRID=1
        assert group.whole_tree_freeze == unified
        box.pause()
        if unified:
            events = group.dirs[cgroups.UNIFIED]
            deadline = time.monotonic() + 5
            while "frozen 1" not in (events / "cgroup.events").read_text():
                assert time.monotonic() < deadline, "the group never froze"
                time.sleep(0.001)
        else:
            time.sleep(0.05)  # SIGSTOP and v1's freezer take effect as the tasks next run
        before = box.cpu_ms()
        time.sleep(0.4)
        paused = box.cpu_ms() - before
        box.resume()
        time.sleep(0.4)
        running = box.cpu_ms() - before - paused
        assert paused <= 5, paused  # three spinning tasks would burn ~800 ms on two cpus
        assert running >= 100, running
    finally:
        box.close()


READS_TO_EOF = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
print("stdin closed", file=sys.stderr, flush=True)
"""


@pytest.mark.serial  # the bot must exit within the 50 ms moment: not beside other tests
def test_a_bot_reading_until_end_of_input_sees_it_once_the_match_ended(make_bot):
    """After "end" the arena closes the bot's stdin before its moment to log and exit, so a
    bot that reads until end of input (and ignores "end") finishes instead of being killed
    at the end of that moment; what it logs then is kept."""
    bot = make_bot(READS_TO_EOF)
    players = [ProgramPlayer(bot, Limits()), BuiltinPlayer(toygame.GAME, "random", 1)]
    outcome = play_match(game_slug="toy", players=players, options={"rounds": 1}, seed=5)
    assert outcome.result["seats"][0]["fault"] is None
    assert "stdin closed" in outcome.logs[0]
    assert players[0].box is not None and players[0].box.returncode == 0  # exited by itself
