"""The launcher joins a cgroup v1 sandbox group itself, one thread writing ``0`` into each
controller's ``tasks`` file before it execs bwrap (Cgroup.join_paths): every process of the
sandbox is then born in the group, in every controller, with no move from outside."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bots import sandbox
from bots.sandbox import Limits, cgroups, jail
from tests.support.leaks import thread_children

pytestmark = pytest.mark.usefixtures("no_leaks")

FORKS = """
import os, sys
if os.fork() == 0:
    sys.stdin.readline()
    os._exit(0)
print("up", flush=True)
sys.stdin.readline()
"""


def v1_group_joined_by_the_launcher() -> None:
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    kind, where = cgroups.backend()
    if kind != "cgroup v1" or cgroups.UNIFIED in where:  # type: ignore[operator]
        pytest.skip("only a plain cgroup v1 group is joined by the launcher itself")


def descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        current = todo.pop()
        out.add(current)
        todo += thread_children(current, current)
    return out


def members(group: cgroups.Cgroup) -> list[set[int]]:
    """The processes of each controller's group (memory, pids, freezer, cpuacct)."""
    return [{int(p) for p in Path(path).read_text().split()} for path in group.attach_paths()]


@pytest.mark.parametrize("start", ["launch", "prepare"])
def test_the_whole_sandbox_is_in_every_controller_of_its_group(make_bot, start):
    v1_group_joined_by_the_launcher()
    bot = make_bot(FORKS)
    box = (sandbox.launch if start == "launch" else sandbox.prepare)(bot, Limits())
    try:
        assert box.group is not None and box.group.join_paths() is not None
        box.release()
        assert box.proc.stdout.readline() == b"up\n"
        tree = descendants(box.pid)  # bwrap's monitor, the bot, the bot's child
        assert len(tree) == 3
        assert len(box.group.attach_paths()) == len(cgroups.V1_CONTROLLERS)
        for found in members(box.group):
            assert found == tree
        assert box.group.tasks() == 3  # pids.current: each counted, one thread each
    finally:
        box.close()


def test_the_launcher_joins_before_bwrap_runs(make_bot, monkeypatch):
    """Nothing is moved from outside (no gate either, for a launch by a worker that gives each
    sandbox its own uid): the monitor is in the group from its exec on."""
    v1_group_joined_by_the_launcher()
    moved: list[int] = []
    monkeypatch.setattr(
        cgroups.CgroupV1, "attach", lambda self, pid, monitor=False: moved.append(pid)
    )
    box = sandbox.launch(make_bot(FORKS), Limits())
    try:
        assert box.proc.stdout.readline() == b"up\n"
        assert moved == []
        assert all(box.pid in found for found in members(box.group))
    finally:
        box.close()


def test_a_group_moved_from_outside_holds_the_same_tree(make_bot, monkeypatch):
    """The other way (cgroup v2's, and a hybrid machine's): bwrap's monitor moved in while it
    builds the sandbox. Same members."""
    v1_group_joined_by_the_launcher()
    monkeypatch.setattr(jail, "_SELF_JOIN", False)
    box = sandbox.launch(make_bot(FORKS), Limits())
    try:
        assert box.proc.stdout.readline() == b"up\n"
        deadline = time.monotonic() + 5
        while len(descendants(box.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        for found in members(box.group):  # type: ignore[arg-type]
            assert found == descendants(box.pid)
    finally:
        box.close()
