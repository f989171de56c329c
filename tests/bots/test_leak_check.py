"""The leak check (tests/support/leaks.py) still catches what this process leaves, and only that."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots import sandbox
from bots.sandbox import slots
from tests.support import leaks

pytestmark = pytest.mark.usefixtures("no_leaks")

REPO = Path(__file__).resolve().parents[2]
SLEEPER = "import time\ntime.sleep(60)\n"

# Launches a sandbox, says its pid and the slot's uid, and closes the sandbox at the end of
# its input. "detached": from a grandchild whose parent has exited, so no longer a process
# of the test's.
LAUNCHER = """
import os, sys
from bots import sandbox
if sys.argv[2] == "detached" and os.fork():
    os._exit(0)
box = sandbox.launch(sys.argv[1], sandbox.Limits())
print(os.getpid(), box.slot_uid, flush=True)
sys.stdin.read()
box.close()
"""


def _uid_gone(uid: int) -> bool:
    slots.kill_uid(uid)
    return sandbox.wait_gone(slots.uid_processes(uid), timeout=5)


def test_a_sandbox_this_process_leaves_is_its_leak(make_bot):
    if not slots.can_switch_uid():
        pytest.skip("needs root: the sandboxes run under slot uids")
    box = sandbox.launch(make_bot(SLEEPER), sandbox.Limits())
    try:
        tree = slots.uid_processes(box.slot_uid)
        assert tree, "the sandbox runs"
        assert all(leaks.launcher_of(p) == os.getpid() for p in tree)
        assert not set(tree) & set(leaks.left_here()), "a held slot's processes are not left"
        box.slot.release()  # its processes go on without their slot: left behind
        assert set(tree) <= set(leaks.left_here())
    finally:
        box.close()
    assert _uid_gone(box.slot_uid)


@pytest.mark.parametrize("how", ["child", "detached"])
def test_another_process_answers_for_its_own(make_bot, how):
    """A sandbox a process of this test's launched is this test's to answer for while that
    process lives; one launched by a process outside it (another test process's worker) is
    not. (Whether a slot is held is the other half of the check: see the test above.)"""
    if not slots.can_switch_uid():
        pytest.skip("needs root: the sandboxes run under slot uids")
    bot = make_bot(SLEEPER)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(bot), how],
        cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        launcher, uid = (int(word) for word in proc.stdout.readline().split())
        tree = slots.uid_processes(uid)
        assert tree, "the sandbox runs"
        assert all(leaks.launcher_of(p) == launcher for p in tree)
        assert all(leaks.launched_here(p) == (how == "child") for p in tree)
    finally:
        proc.stdin.close()  # the launcher closes its sandbox
        proc.wait(10)
        proc.stdout.close()
    assert sandbox.wait_gone([launcher], timeout=10) and _uid_gone(uid)
