"""The hostile bots of test_hostile.py again, from a worker that is not root.

Production runs the worker as an unprivileged user: no uid per sandbox, no cgroup. Each case
runs the same match in a child process that drops to UNPRIVILEGED_UID first. Chosen for that
mode: the limits that no longer come from a cgroup or a uid of its own (processes, threads,
memory, CPU, files and bytes in /tmp), and the attacks that matter once the bot's uid
outside is the worker's own (signals, ptrace, files, /proc, daemons).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bots.sandbox import Limits, slots

# Fixtures are found by their name in this module: canary, and the module's autouse check.
from tests.bots.test_hostile import (  # noqa: F401
    CASES,
    REPO,
    canary,
    nothing_of_a_sandbox_uid_in_shared_places,
)

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")

UNPRIVILEGED_UID = 60990
UNPRIVILEGED_CASES = [
    "fork_bomb", "thread_bomb", "memory_bomb", "cpu_hog", "fill_tmp", "inode_flood",
    "big_file", "daemon", "zombies_and_limits", "ptrace_and_signals", "read_worker_files",
    "proc_snoop", "write_everywhere",
]  # fmt: skip
# The worker's own uid-wide process limit: only a safety net for this machine.
UNPRIVILEGED_NPROC = 200

UNPRIVILEGED_MATCH = r"""
import json, os, sys, threading, time
from pathlib import Path
from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import play_match
from bots.sandbox import Limits, jail
from games import registry
from tests.support import toygame
from tests.bots.test_hostile import CASES, neighbour, stage, worker_state

registry._load()["toy"] = toygame.GAME
name, folder, canary = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
kind, fragment, clock, limits = CASES[name]
bot, other = stage(name, folder, canary), neighbour(folder, 0)
me, peak, done = os.getpid(), 0, threading.Event()

def tasks():
    # Threads of every process below the worker: the sandboxes' monitors, the neighbour
    # and the hostile bot's whole tree (orphans go to the bot, pid 1 of its namespace).
    total, todo = 0, [me]
    while todo:
        pid = todo.pop()
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        total += 0 if pid == me else len(threads)
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as handle:
                    todo += [int(p) for p in handle.read().split()]
            except OSError:
                pass
    return total

def sample():
    global peak
    while not done.is_set():
        peak = max(peak, tasks())
        time.sleep(0.01)

before = worker_state()
sampler = threading.Thread(target=sample)
sampler.start()
players = [ProgramPlayer(bot, limits or Limits(), label="hostile"),
           BuiltinPlayer(toygame.GAME, "random", 1), ProgramPlayer(other, Limits())]
outcome = play_match(game_slug="toy", players=players, options={"rounds": 3}, seed=9, clock=clock)
done.set()
sampler.join()
print(json.dumps({"mode": jail.enforcement_mode(), "seats": outcome.result["seats"],
                  "details": outcome.fault_details,
                  "moves": [m["actions"] for m in outcome.moves], "peak_tasks": peak,
                  "worker_unchanged": worker_state() == before, "left": tasks()}))
"""


def worker_nproc() -> None:
    resource.setrlimit(resource.RLIMIT_NPROC, (UNPRIVILEGED_NPROC, UNPRIVILEGED_NPROC))


@pytest.fixture
def unprivileged_home(repo_reachable_by_others):
    """A folder the unprivileged worker owns: its bots and its ARENA_SANDBOX_DIR."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to drop to an unprivileged uid")
    folder = Path(tempfile.mkdtemp(prefix="arena-unprivileged-"))
    os.chown(folder, UNPRIVILEGED_UID, UNPRIVILEGED_UID)
    try:
        yield folder
        assert sandbox_wait_gone(UNPRIVILEGED_UID), "processes of the unprivileged worker left"
        for place in (Path("/tmp"), Path("/dev/shm"), Path("/var/tmp")):
            owned = [p for p in os.listdir(place) if not p.startswith("arena-unprivileged-")
                     and os.lstat(place / p).st_uid == UNPRIVILEGED_UID]  # fmt: skip
            assert not owned, f"the unprivileged worker's bots wrote in {place}: {owned}"
    finally:
        shutil.rmtree(folder)


def sandbox_wait_gone(uid: int) -> bool:
    from bots.sandbox import wait_gone

    return wait_gone(slots.uid_processes(uid), timeout=5)


@pytest.mark.parametrize("name", UNPRIVILEGED_CASES)
def test_hostile_bot_unprivileged(name, canary, unprivileged_home):  # noqa: F811
    """Item 21: the same verdicts, and the bot's tree never grows past the process limit,
    when the worker is not root (rlimits counted in each sandbox's user namespace)."""
    kind, fragment, _clock, _limits = CASES[name]
    uid = str(UNPRIVILEGED_UID)
    run = subprocess.run(
        ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--",
         sys.executable, "-c", UNPRIVILEGED_MATCH, name, str(unprivileged_home), str(canary)],
        cwd="/", capture_output=True, text=True, timeout=120, preexec_fn=worker_nproc,
        env={"PYTHONPATH": str(REPO), "ARENA_SANDBOX_DIR": str(unprivileged_home / "state"),
             "HOME": str(unprivileged_home), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["mode"].startswith("unprivileged"), result["mode"]
    fault = result["seats"][0]["fault"]
    if kind is None:
        assert fault is None, fault
    else:
        assert fault is not None and fault["kind"] == kind, fault
        said = f"{fault['reason']}\n{result['details'][0]}"
        assert fragment in said, said
    assert result["seats"][1]["fault"] is None and result["seats"][2]["fault"] is None
    assert len(result["moves"]) == 9
    # The bot's tasks, plus the two sandbox monitors and the neighbour bot.
    assert result["peak_tasks"] <= Limits().processes + 3, result["peak_tasks"]
    assert result["worker_unchanged"]
    assert result["left"] == 0
