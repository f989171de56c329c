"""When the worker dies hard (SIGKILL), every process of its sandboxes dies with it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
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
    # Wait until the sandbox is built and its program waits on the gate (the earlier
    # window, bwrap's eventfd, is the test below with STALLS_IN_BWRAP).
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        kids = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        if kids and "pipe" in open(f"/proc/{kids[0]}/wchan").read():
            break
        time.sleep(0.001)
    os.kill(os.getpid(), signal.SIGKILL)
if sys.argv[2] == "prepare":
    sandbox.jail.attach_held = die
    sandbox.prepare(Path(sys.argv[1]), sandbox.Limits())
else:  # a launch whose group is joined from outside while bwrap builds (cgroup v2's way)
    sandbox.jail._SELF_JOIN = False
    sandbox.jail.attach_and_release = die
    sandbox.launch(Path(sys.argv[1]), sandbox.Limits())
"""


@pytest.mark.parametrize("start", ["launch", "prepare"])
def test_worker_dying_before_the_sandbox_is_released(tmp_path, start):
    """The worker dies between starting bwrap and letting the program run: the monitor dies
    with it, the sandbox's first process (its death signal not armed yet) never starts the
    program, and the next start-up ends it."""
    if not sandbox.sandbox_available() or sandbox.cgroups.backend()[0] == "none":
        pytest.skip("needs bubblewrap and a cgroup (the gate is only used with one)")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(BOT)
    worker = subprocess.Popen(
        [sys.executable, "-c", DIES_BEFORE_RELEASE, str(bot), start], cwd=REPO,
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    uid = int(worker.stdout.readline())
    worker.wait()
    worker.stdout.close()
    assert worker.returncode == -signal.SIGKILL
    sandbox.sweep_orphans()
    deadline = time.monotonic() + 5
    while slots.uid_processes(uid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots.uid_processes(uid) == []


# -- orphans: a worker killed while bubblewrap starts a sandbox --------------------------

ORPHAN_UID = 60991  # the unprivileged worker of these tests (test_hostile_unprivileged: 60990)
SLEEPS = "import time\ntime.sleep(3600)\n"  # a program that ignores its closed stdin

# bwrap's monitor clones the sandbox's first process, then writes its --info-fd, then lets
# that process go on (an eventfd). A full pipe as --info-fd holds the monitor in between:
# the window in which a worker's death left the first process asleep for good.
STALLS_IN_BWRAP = r"""
import fcntl, os, signal, subprocess, sys, time
from pathlib import Path
from bots import sandbox

sandbox.sandbox_available()  # the probe starts bwrap with the real Popen
real_popen = subprocess.Popen

def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return handle.read().split()
    except OSError:
        return []

def stalled(cmd, **kwargs):
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ: one page
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        os.set_blocking(write_end, True)  # shared with bwrap: it must wait, not fail
    at = cmd.index("--", cmd.index(sandbox.bwrap_path()))
    cmd = [*cmd[:at], "--info-fd", str(write_end), *cmd[at:]]  # the last --info-fd counts
    kwargs["pass_fds"] = (*kwargs["pass_fds"], write_end)
    proc = real_popen(cmd, **kwargs)
    deadline = time.monotonic() + 10
    while not children(proc.pid) or "pipe" not in open(f"/proc/{proc.pid}/wchan").read():
        assert time.monotonic() < deadline, "bwrap's monitor never stalled"
        time.sleep(0.001)
    print(proc.pid, children(proc.pid)[0], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

subprocess.Popen = stalled
sandbox.launch(Path(sys.argv[1]), sandbox.Limits())
"""

# The worker dies while its sandbox is built and held back (sandbox.prepare).
DIES_HOLDING_A_SANDBOX = r"""
import os, signal, sys, time
from pathlib import Path
from bots import sandbox
box = sandbox.prepare(Path(sys.argv[1]), sandbox.Limits())
deadline = time.monotonic() + 10
while not (kids := open(f"/proc/{box.pid}/task/{box.pid}/children").read().split()):
    assert time.monotonic() < deadline, "bwrap never cloned the sandbox"
    time.sleep(0.001)
print(box.pid, kids[0], flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""

# The next start-up of the same worker.
STARTS_UP = "from bots import sandbox\nprint(sandbox.sweep_orphans(), flush=True)\n"


def run_as_worker(mode: str, script: str, *args: str, state: Path) -> subprocess.Popen:
    """``script`` in a fresh Python process, as root or as the unprivileged ORPHAN_UID."""
    command = [sys.executable, "-c", script, *args]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if mode == "unprivileged":
        uid = str(ORPHAN_UID)
        command = ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--", *command]
        env = {"PYTHONPATH": str(REPO), "ARENA_SANDBOX_DIR": str(state), "HOME": str(state),
               "PATH": "/usr/bin:/bin"}  # fmt: skip
    return subprocess.Popen(command, cwd="/", env=env, stdout=subprocess.PIPE, text=True)


@pytest.fixture(params=["root", "unprivileged"])
def worker_home(request):
    """A bot folder any uid can read and, for the unprivileged worker, a state folder it owns;
    whatever a failing test leaves of its sandboxes is killed afterwards."""
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    mode = request.param
    if mode == "unprivileged":
        if os.geteuid() != 0:
            pytest.skip("needs root, to drop to an unprivileged uid")
        request.getfixturevalue("repo_reachable_by_others")
    home = Path(tempfile.mkdtemp(prefix="arena-orphans-"))
    home.chmod(0o755)
    bot = home / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(SLEEPS)
    state = home / "state"
    state.mkdir()
    os.chown(state, ORPHAN_UID, ORPHAN_UID)
    pids: list[int] = []
    try:
        yield mode, bot, state, pids
    finally:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(home, ignore_errors=True)


def state_of(pid: int) -> str | None:
    """The one-letter state of ``pid`` (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return None


def killed_worker(mode: str, script: str, bot: Path, state: Path, pids: list[int]):
    worker = run_as_worker(mode, script, str(bot), state=state)
    line = worker.stdout.readline()
    worker.wait()
    worker.stdout.close()
    assert line, "the worker said nothing before it died"
    monitor, child = (int(p) for p in line.split())
    pids += [monitor, child]
    assert worker.returncode == -signal.SIGKILL
    assert sandbox.wait_gone([monitor], timeout=5), "bwrap's monitor outlived its worker"
    return monitor, child


def test_a_sandbox_left_asleep_by_a_worker_killed_in_bwraps_start_up_ends_at_the_next_start(
    worker_home,
):
    mode, bot, state, pids = worker_home
    _monitor, child = killed_worker(mode, STALLS_IN_BWRAP, bot, state, pids)
    # Orphaned before its monitor let it go on: it would wait for ever, nothing reclaiming it.
    assert state_of(child) == "S"
    assert os.readlink(f"/proc/{child}/exe") == os.path.realpath(sandbox.bwrap_path())
    start = run_as_worker(mode, STARTS_UP, state=state)
    ended = start.stdout.read()
    assert start.wait() == 0
    start.stdout.close()
    assert int(ended) >= 1
    assert sandbox.wait_gone([child], timeout=5), "the orphaned sandbox outlived the start-up"


def test_a_held_sandbox_whose_worker_is_killed_never_starts_its_program(worker_home):
    """Its program waits on bwrap's --block-fd, which never reads end-of-file: it stays
    bwrap's own code, asleep, until the next start-up ends it."""
    mode, bot, state, pids = worker_home
    _monitor, child = killed_worker(mode, DIES_HOLDING_A_SANDBOX, bot, state, pids)
    assert os.readlink(f"/proc/{child}/exe") == os.path.realpath(sandbox.bwrap_path())
    start = run_as_worker(mode, STARTS_UP, state=state)
    assert int(start.stdout.read()) >= 1
    assert start.wait() == 0
    start.stdout.close()
    assert sandbox.wait_gone([child], timeout=5)


# bwrap's monitor dies under a live worker while the program is held, and the program is
# let go: it runs with nothing above it (its death signal would name the machine's init).
RUNS_WITHOUT_ITS_MONITOR = r"""
import os, signal, sys, time
from pathlib import Path
from bots import sandbox
live = sandbox.launch(Path(sys.argv[1]), sandbox.Limits())
held = sandbox.prepare(Path(sys.argv[1]), sandbox.Limits())
box = sandbox.prepare(Path(sys.argv[1]), sandbox.Limits())
deadline = time.monotonic() + 10
while not (kids := open(f"/proc/{box.pid}/task/{box.pid}/children").read().split()):
    assert time.monotonic() < deadline, "bwrap never cloned the sandbox"
    time.sleep(0.001)
child = int(kids[0])
while "pipe" not in open(f"/proc/{child}/wchan").read():  # at its --block-fd
    assert time.monotonic() < deadline, "the sandbox never waited on its gate"
    time.sleep(0.001)
os.kill(box.pid, signal.SIGKILL)
box.proc.wait()
os.write(box._gate, b"\n")
while os.readlink(f"/proc/{child}/exe") != os.path.realpath(sandbox.bot_python()):
    assert time.monotonic() < deadline, "the program never started"
    time.sleep(0.001)
live_kids = open(f"/proc/{live.pid}/task/{live.pid}/children").read().split()
held_kids = open(f"/proc/{held.pid}/task/{held.pid}/children").read().split()
ended = sandbox.sweep_orphans()
gone = sandbox.wait_gone([child], timeout=5)
untouched = (live.returncode is None and held.returncode is None and len(live_kids) == 1
             and len(held_kids) == 1
             and all(os.path.exists(f"/proc/{p}") for p in live_kids + held_kids))
print(child, ended, gone, untouched, flush=True)
for each in (box, live, held):
    each.close()
"""


def test_a_program_running_without_its_monitor_is_ended_and_live_sandboxes_are_not(
    worker_home,
):
    mode, bot, state, pids = worker_home
    worker = run_as_worker(mode, RUNS_WITHOUT_ITS_MONITOR, str(bot), state=state)
    out = worker.stdout.read()
    assert worker.wait() == 0, out
    worker.stdout.close()
    child, ended, gone, untouched = out.split()
    pids.append(int(child))
    assert int(ended) >= 1
    assert gone == "True", "the program without a monitor was not ended"
    assert untouched == "True", "the sweep touched a live or held sandbox"


@pytest.fixture
def orphaned_sandbox(tmp_path):
    """The first process of a sandbox whose worker (root) was killed in bwrap's start-up."""
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text(SLEEPS)
    pids: list[int] = []
    try:
        _monitor, child = killed_worker("root", STALLS_IN_BWRAP, bot, tmp_path, pids)
        assert state_of(child) == "S"
        yield child
    finally:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_the_periodic_reaper_ends_orphaned_sandboxes(orphaned_sandbox):
    from bots import tasks

    tasks.end_orphaned_sandboxes()
    assert sandbox.wait_gone([orphaned_sandbox], timeout=5)
