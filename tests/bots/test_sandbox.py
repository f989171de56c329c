"""What a sandboxed program sees and may do; the no-bubblewrap rules."""

from __future__ import annotations

import errno
import json
import logging
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
from bots.players import ProgramPlayer
from bots.sandbox import (
    Limits,
    SandboxUnavailable,
    cgroups,
    jail,
    languages,
    launcher,
    orphans,
    seccomp,
    slots,
)

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")
REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, os, socket, sys
facts = {"env": dict(os.environ), "uid": os.getuid(), "pid": os.getpid(),
         "fds": sorted(os.listdir("/proc/self/fd")), "root": sorted(os.listdir("/")),
         "pids": sorted(p for p in os.listdir("/proc") if p.isdigit()),
         "environ1": open("/proc/1/environ", "rb").read().decode(),
         "oom_score_adj": open("/proc/self/oom_score_adj").read().strip(),
         "limits": {l[:26].strip(): l[26:].split()[:2] for l in open("/proc/self/limits")},
         "status": {l.split(":")[0]: l.split(":", 1)[1].strip()
                    for l in open("/proc/self/status") if ":" in l}}
def attempt(name, fn):
    try:
        fn(); facts[name] = "ok"
    except Exception as exc:
        facts[name] = type(exc).__name__
attempt("write_bot", lambda: open("/bot/x", "w"))
attempt("write_usr", lambda: open("/usr/x", "w"))
attempt("write_root", lambda: open("/x", "w"))
attempt("write_tmp", lambda: open("/tmp/x", "w").write("hi"))
attempt("fill_tmp", lambda: open("/tmp/big", "wb").write(b"\0" * (64 << 20)))
attempt("inet", lambda: socket.create_connection(("1.1.1.1", 53), timeout=1))
attempt("unix", lambda: socket.socket(socket.AF_UNIX).close())
attempt("home", lambda: os.listdir("/root"))
attempt("sdk", lambda: __import__("arena_sdk"))
print(json.dumps(facts), flush=True)
"""


def run_probe(tmp_path, limits=None, source=PROBE, prepared=False) -> dict:
    """The probe's report; ``prepared``: built ahead with sandbox.prepare, then released."""
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "main.py").write_text(source)
    start = sandbox.prepare if prepared else sandbox.launch
    box = start(folder, limits or Limits(tmpfs_mb=8, file_size_mb=32))
    try:
        assert box.held == prepared
        box.release()
        out, err = box.proc.communicate(timeout=20)
    finally:
        box.close()
    assert out, err.decode()
    return json.loads(out)


@pytest.mark.parametrize("prepared", [False, True], ids=["launched", "prepared"])
@pytest.mark.parametrize("steps", ["", "python"], ids=["C-launcher", "preexec"])
def test_containment(tmp_path, monkeypatch, prepared, steps):
    """The same sandbox whichever way the steps between fork and exec run: the C launcher
    after a vfork (the default), or the Python preexec after a fork (without a compiler)."""
    monkeypatch.setenv("ARENA_CANARY_SECRET", "do-not-leak")
    monkeypatch.setenv("ARENA_SANDBOX_LAUNCHER", steps)
    assert (launcher.path() is None) == (steps == "python")
    facts = run_probe(tmp_path, prepared=prepared)
    # The languages' own variables (NODE_PATH, JAVA_TOOL_OPTIONS) and nothing of the worker.
    offered = languages.sandbox_env()
    allowed = {"PYTHONPATH", "HOME", "LANG", "PATH", "PWD", "LC_CTYPE", *offered}
    assert set(facts["env"]) <= allowed
    # pid 1 is the bot itself, and its initial environment is the sandbox's, nothing else
    environ1 = dict(v.split("=", 1) for v in facts["environ1"].split("\0") if v)
    assert environ1 == {"PYTHONPATH": "/sdk", "HOME": "/tmp", "LANG": "C.UTF-8",
                        "PATH": "/usr/bin:/bin", "PWD": "/bot", **offered}  # fmt: skip
    assert facts["pid"] == 1 and facts["pids"] == ["1"]
    assert facts["uid"] == sandbox.SANDBOX_UID
    assert facts["fds"] == ["0", "1", "2", "3"]  # 3 = the listdir itself
    assert facts["status"]["NoNewPrivs"] == "1"
    assert facts["oom_score_adj"] == "1000"  # out of memory, the kernel takes a bot first
    limits = facts["limits"]
    assert limits["Max cpu time"] == ["60", "61"]  # SIGXCPU first, SIGKILL a second later
    assert limits["Max open files"] == ["64", "64"]
    assert limits["Max file size"] == [str(32 << 20)] * 2
    assert limits["Max core file size"] == limits["Max locked memory"] == ["0", "0"]
    assert facts["status"]["Seccomp"] == "2"
    for caps in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert facts["status"][caps] == "0000000000000000", caps
    assert facts["root"] == sorted(["bin", "bot", "dev", "etc", "lib", "lib64", "proc", "sbin",
                                    "sdk", "tmp", "usr"])  # fmt: skip
    assert facts["write_bot"] == facts["write_usr"] == facts["write_root"] == "OSError"
    assert facts["write_tmp"] == "ok"
    assert facts["fill_tmp"] == "OSError"  # the tmpfs is 8 MB
    assert facts["inet"] == "OSError" and facts["unix"] == "ok"
    assert facts["home"] == "FileNotFoundError"
    assert facts["sdk"] == "ok"


SYSCALLS = r"""
import ctypes, json, os, socket
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    ctypes.set_errno(0)
    result = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
    if result == 0 and nr == 56:
        os._exit(0)  # the child of a clone that should have been refused
    return 0 if result >= 0 else ctypes.get_errno()
out = {name: call(nr, 0, 0, 0, 0, 0) for name, nr in DENIED.items()}
out["clone_newuser"] = call(56, 0x10000000 | 17, 0, 0, 0, 0)
out["clone_newnet"] = call(56, 0x40000000 | 17, 0, 0, 0, 0)
out["clone_newns"] = call(56, 0x00020000 | 17, 0, 0, 0, 0)
out["clone3"] = call(435, 0, 0)
out["x32_getpid"] = call(0x40000000 | 39)
def sock(family, kind, pair=False):
    try:
        (socket.socketpair if pair else socket.socket)(family, kind)
        return 0
    except OSError as exc:
        return exc.errno
out["inet"] = sock(socket.AF_INET, socket.SOCK_STREAM)
out["inet6"] = sock(socket.AF_INET6, socket.SOCK_DGRAM)
out["netlink"] = sock(socket.AF_NETLINK, socket.SOCK_RAW)
out["packet"] = sock(socket.AF_PACKET, socket.SOCK_RAW)
out["inet_pair"] = sock(socket.AF_INET, socket.SOCK_STREAM, pair=True)
out["unix"] = sock(socket.AF_UNIX, socket.SOCK_STREAM)
out["unix_pair"] = sock(socket.AF_UNIX, socket.SOCK_STREAM, pair=True)
out["fork_ok"] = 0 if os.waitpid(os.fork() or os._exit(0), 0) else 1
print(json.dumps(out), flush=True)
"""


@pytest.mark.skipif(not seccomp.supported(), reason="no seccomp filter for this machine")
def test_seccomp_refuses_each_listed_syscall(tmp_path):
    """Every syscall of the deny list fails with EPERM (with zero arguments several of them
    would succeed or fail differently without the filter: ptrace, unshare, userfaultfd ...)."""
    source = SYSCALLS.replace("DENIED", repr(seccomp.DENIED_X86_64))
    out = run_probe(tmp_path, source=source)
    for name in seccomp.DENIED_X86_64:
        assert out[name] == errno.EPERM, (name, out[name])
    assert out["clone_newuser"] == out["clone_newnet"] == out["clone_newns"] == errno.EPERM
    assert out["clone3"] == errno.ENOSYS  # libc falls back to clone, whose flags are checked
    assert out["x32_getpid"] == errno.EPERM
    for name in ("inet", "inet6", "netlink", "packet", "inet_pair"):
        assert out[name] == errno.EAFNOSUPPORT, (name, out[name])
    assert out["unix"] == out["unix_pair"] == out["fork_ok"] == 0


def test_one_unprivileged_uid_per_sandbox_and_the_group_holds_everything(tmp_path):
    """Concurrent sandboxes run as different non-root uids of the slot range, seen from the
    host; the bwrap monitor has none of the worker's environment; the cgroup holds every
    process."""
    folder = tmp_path / "sleeper"
    folder.mkdir()
    (folder / "main.py").write_text("import sys\nprint('up', flush=True)\nsys.stdin.readline()\n")
    boxes = [sandbox.launch(folder, Limits()) for _ in range(2)]
    try:
        for box in boxes:
            assert box.proc.stdout.readline() == b"up\n"
        uids = [box.slot_uid for box in boxes]
        if not slots.can_switch_uid():
            pytest.skip("not root: every sandbox runs as the worker's uid")
        assert len(set(uids)) == 2
        for box, uid in zip(boxes, uids, strict=True):
            assert slots.SLOT_UID_BASE <= uid < slots.SLOT_UID_BASE + slots.SLOT_COUNT
            pids = slots.uid_processes(uid)
            assert box.pid in pids and len(pids) == 2  # bwrap's monitor and the bot
            for pid in pids:
                with open(f"/proc/{pid}/status") as handle:
                    ids = [line.split()[1:] for line in handle if line.startswith(("Uid", "Gid"))]
                assert ids == [[str(uid)] * 4] * 2
            # bwrap itself runs with nothing of the worker's environment, only the name of
            # the worker process that launched it (bots/sandbox/orphans.py); the bot not even
            # with that.
            with open(f"/proc/{box.pid}/environ", "rb") as handle:
                assert handle.read() == f"{orphans.OWNER}={orphans.owner_token()}\0".encode()
            for pid in pids:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    assert (pid == box.pid) == (orphans.OWNER.encode() in handle.read())
            if box.group is not None:
                assert sorted(box.group.procs()) == sorted(pids)
    finally:
        for box in boxes:
            box.close()
    for uid in uids:
        assert slots.uid_processes(uid) == []


def test_describe_enforcement():
    text = sandbox.describe_enforcement()
    assert "bubblewrap" in text and "seccomp on" in text
    assert text.startswith(sandbox.enforcement_mode() + ": ")
    assert f"/tmp {Limits().tmpfs_mb} MB and {Limits().tmpfs_inodes} files" in text


ANNOUNCE = """
import logging, sys
import django
django.setup()
logging.basicConfig(stream=sys.stdout, level=logging.INFO)
from arena.celery import announce_sandbox
announce_sandbox()
"""


@pytest.mark.parametrize("steps", ["", "python"], ids=["C-launcher", "preexec"])
def test_an_unprivileged_worker_says_which_mode_is_in_force(repo_reachable_by_others, steps):
    """The worker's start-up line (arena.celery.announce_sandbox, run on worker_ready),
    from a process of an unprivileged user as in the Docker image: bots are bounded by
    rlimits in their own user namespaces, and it says so. Its sandbox probe (a /tmp
    mounted in a user namespace of the launcher's own) passes either way a sandbox can
    be started."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to drop to an unprivileged uid")
    uid = "60990"
    home = Path(tempfile.mkdtemp(prefix="arena-unprivileged-"))
    os.chown(home, int(uid), int(uid))
    env = {**os.environ, "HOME": str(home), "ARENA_SANDBOX_DIR": str(home / "state"),
           "SECRET_KEY": "unprivileged-test", "DJANGO_SETTINGS_MODULE": "arena.settings",
           "ARENA_SANDBOX_LAUNCHER": steps,
           # Its metrics' files where that user may write (as a container's own volume).
           "PROMETHEUS_MULTIPROC_DIR": str(home / "metrics")}  # fmt: skip
    try:
        run = subprocess.run(
            ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--",
             sys.executable, "-c", ANNOUNCE],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    finally:
        shutil.rmtree(home)
    assert run.returncode == 0, run.stderr[-3000:]
    said = run.stdout + run.stderr
    assert (
        f"sandbox mode: unprivileged (uid {uid}), rlimits in each sandbox's user namespace" in said
    )
    assert "processes: RLIMIT_NPROC counted in the sandbox's user namespace (32)" in said
    assert "/tmp 16 MB and 2048 files" in said  # the probe's bounded /tmp worked
    launch = "fork with a Python preexec" if steps else f"the C launcher ({home}/state/launcher/"
    assert launch in said
    # Which memory bound is in force, and why not the whole tree's.
    assert "memory: per-process rlimit, 256 MiB each; no delegated cgroup v2 (" in said, said


def test_a_root_worker_says_its_cgroup_bounds_each_bots_whole_tree():
    if cgroups.backend()[0] != "cgroup v1":
        pytest.skip("the development machines' cgroup v1")
    env = {**os.environ, "SECRET_KEY": "root-test", "DJANGO_SETTINGS_MODULE": "arena.settings"}
    run = subprocess.run(
        [sys.executable, "-c", ANNOUNCE], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "memory: cgroup v1 per bot tree, 256 MiB" in run.stdout + run.stderr


def test_refuses_without_bubblewrap(monkeypatch, tmp_path):
    monkeypatch.setattr(jail, "_AVAILABLE", False)
    monkeypatch.delenv("ARENA_TRUSTED_BOTS_ONLY", raising=False)
    with pytest.raises(SandboxUnavailable, match="ARENA_TRUSTED_BOTS_ONLY=1"):
        sandbox.launch(tmp_path, Limits())
    assert "uploaded bots are refused" in sandbox.describe_enforcement()


def test_trusted_only_mode_runs_plain(monkeypatch, make_bot, caplog):
    monkeypatch.setattr(jail, "_AVAILABLE", False)
    monkeypatch.setattr(jail, "_WARNED", False)
    monkeypatch.setenv("ARENA_TRUSTED_BOTS_ONLY", "1")
    bot = make_bot("import arena_sdk\narena_sdk.run(lambda observation, legal: legal[0])\n")
    from bots.players import BuiltinPlayer
    from bots.runner import play_match
    from tests.support import toygame

    with caplog.at_level(logging.WARNING, logger="arena.sandbox"):
        outcome = play_match(
            game_slug="toy", players=[ProgramPlayer(bot), BuiltinPlayer(toygame.GAME, "random", 1)],
            options={}, seed=1,
        )  # fmt: skip
    assert outcome.result["seats"][0]["fault"] is None
    assert "WITHOUT A SANDBOX" in caplog.text
    assert "NO SANDBOX" in sandbox.describe_enforcement()


THREADS = """
import json, threading
started, stop = 0, threading.Event()
try:
    while started < 100:
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
except RuntimeError:
    pass
stop.set()
print(json.dumps({"tasks": started + 1}), flush=True)
"""


def test_processes_limit_is_exact(tmp_path):
    """Limits.processes counts the bot's own tasks (bwrap's monitor is not charged to it).
    Without a cgroup, RLIMIT_NPROC (per uid, counted across namespaces) is within 2."""
    tasks = run_probe(tmp_path, Limits(processes=8), source=THREADS)["tasks"]
    if cgroups.backend()[0] != "none":
        assert tasks == 8
    else:
        assert 8 <= tasks <= 10


# A worker's pool as Celery's prefork runs it: the parent probes the sandbox at start (which
# stages the SDK), then forks children that run bots, reaps a child that dies and forks a
# replacement from the same state.
POOL = r"""
import os, sys, time
from pathlib import Path
from bots import sandbox
assert sandbox.sandbox_available()
bot = Path(sys.argv[1])

def child(hold):
    box = sandbox.launch(bot, sandbox.Limits())
    groups = [p.rsplit("/", 1)[0] for p in box.group.attach_paths()] if box.group else ["-"]
    print(os.getpid(), box.staged, ",".join(groups), sandbox.jail._SDK_STAGED, flush=True)
    if hold:
        time.sleep(60)
    box.close()
    os._exit(0)

for command in sys.stdin:
    while True:  # reap children that died
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    pid = os.fork()
    if pid == 0:
        child(hold=command.strip() == "hold")
    if command.strip() != "hold":
        os.waitpid(pid, 0)
        print("done", flush=True)
"""


def dead(pid: int) -> bool:
    """Gone or a zombie (its descriptors, and so its locks, are closed either way)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_killed_pool_childs_staging_is_swept_by_the_next_child(tmp_path):
    """Item 18: a pool child killed mid-match leaves its staged copy of the bot (and its
    cgroup); the next child the pool forks sweeps them, not only the next worker start."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text("import time\ntime.sleep(60)\n")
    # Its own staging area: any process staging a bot sweeps the shared one, and one that
    # ran between the kill and the next child would sweep the folder before the pool could.
    # In /tmp, not tmp_path: the sandbox's uids must reach it. Its slot locks are there
    # too, where other test processes' leak checks do not look: so its uids are its own,
    # past the range those checks scan.
    state = Path(tempfile.mkdtemp(prefix="arena-sandbox-test-"))
    env = {**os.environ, "PYTHONPATH": str(REPO), "ARENA_SANDBOX_DIR": str(state),
           "ARENA_SLOT_UID_BASE": str(slots.SLOT_UID_BASE + slots.SLOT_COUNT + 100),
           "ARENA_SLOT_COUNT": "16"}  # fmt: skip
    pool = subprocess.Popen(
        [sys.executable, "-c", POOL, str(bot)], cwd=REPO, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        pool.stdin.write("hold\n")
        pool.stdin.flush()
        child, staged, group, sdk = pool.stdout.readline().split()
        staged = Path(staged)
        groups = [] if group == "-" else [Path(g) for g in group.split(",")]
        assert staged.is_dir()
        os.kill(int(child), signal.SIGKILL)  # mid-match
        deadline = time.monotonic() + 5
        while not dead(int(child)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert staged.is_dir(), "the kill itself removed nothing"
        pool.stdin.write("run\n")  # the replacement child plays the next match
        pool.stdin.flush()
        second = pool.stdout.readline().split()
        assert pool.stdout.readline().strip() == "done"
        assert second[0] != child
        assert not staged.exists(), f"{staged} of killed child {child} was not swept"
        for group in groups:
            assert not group.exists(), f"cgroup {group} of killed child {child} was left"
        assert Path(sdk).is_dir() and second[3] == sdk, "the live pool's SDK copy must stay"
    finally:
        pool.stdin.close()
        pool.wait(10)
        pool.stdout.close()
        slots._remove_tree(state)
