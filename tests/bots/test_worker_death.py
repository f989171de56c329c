"""When the worker dies hard (SIGKILL), every process of its sandboxes dies with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots import sandbox
from bots.sandbox import slots

REPO = Path(__file__).resolve().parents[2]
WORKER = """
import sys, time
from pathlib import Path
from bots import sandbox
box = sandbox.launch(Path(sys.argv[1]), sandbox.Limits())
box.proc.stdin.write(b"go\\n")
box.proc.stdin.flush()
print(box.slot.uid, box.proc.stdout.readline().decode().strip(), flush=True)
time.sleep(60)
"""
BOT = """
import os, sys, time
sys.stdin.readline()
if os.fork() == 0:          # a daemon, detached from the bot
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(0.01)
    os._exit(0)
os.wait()
print("daemon up", flush=True)
time.sleep(60)
"""


def test_sandbox_dies_with_the_worker(tmp_path):
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(BOT)
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(bot)], cwd=REPO, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    try:
        uid, status = worker.stdout.readline().split(" ", 1)
        assert status.strip() == "daemon up"
        assert len(slots.uid_processes(int(uid))) >= 3  # monitor, bot, daemon
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        worker.stdout.close()
    deadline = time.monotonic() + 5
    while slots.uid_processes(int(uid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots.uid_processes(int(uid)) == []


DIES_BEFORE_RELEASE = """
import os, signal, sys, time
from pathlib import Path
from bots import sandbox
def die(proc, group, gate, *_rest):
    with open(f"/proc/{proc.pid}/status") as handle:
        uid = next(line.split()[1] for line in handle if line.startswith("Uid:"))
    print(uid, flush=True)
    # Wait until the sandbox is built and its program waits on the gate. (Earlier, bwrap's
    # own child waits for its parent on an eventfd before it arms --die-with-parent: a
    # monitor killed in that instant leaves it asleep there, a bwrap race outside our reach.)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        kids = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        if kids and "pipe" in open(f"/proc/{kids[0]}/wchan").read():
            break
        time.sleep(0.001)
    os.kill(os.getpid(), signal.SIGKILL)
sandbox.jail.attach_and_release = die
sandbox.launch(Path(sys.argv[1]), sandbox.Limits())
"""


def test_worker_dying_before_the_sandbox_is_released(tmp_path):
    """The worker dies between starting bwrap and letting the program run (bwrap then reads
    EOF on its gate): the monitor and the sandbox die with it all the same."""
    if not sandbox.sandbox_available() or sandbox.cgroups.backend()[0] == "none":
        pytest.skip("needs bubblewrap and a cgroup (the gate is only used with one)")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(BOT)
    worker = subprocess.Popen(
        [sys.executable, "-c", DIES_BEFORE_RELEASE, str(bot)], cwd=REPO, stdout=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    uid = int(worker.stdout.readline())
    worker.wait()
    worker.stdout.close()
    assert worker.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while slots.uid_processes(uid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots.uid_processes(uid) == []
