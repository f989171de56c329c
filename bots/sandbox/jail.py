"""Runs one bot program under bubblewrap: the OS, not Python, contains it.

What a sandboxed bot gets (see docs/bots.md, "Limits"):

- its own user, pid, net, ipc, uts and cgroup namespaces; no network at all;
- a read-only root built from the host's ``/usr`` (and the ``/bin``, ``/lib*`` links),
  ``/etc/ld.so.cache``, its own code read-only at ``/bot``, the SDK read-only at ``/sdk``,
  ``/dev/null``, ``/dev/zero``, ``/dev/urandom``, its own ``/proc``, and one writable tmpfs
  ``/tmp`` bounded by ``Limits.tmpfs_mb`` (the only writable place);
- an empty environment (bwrap itself is started with none: its pid-1 monitor would keep
  the worker's variables) plus ``PYTHONPATH=/sdk``, ``HOME=/tmp``, ``LANG=C.UTF-8``;
- no capabilities, no_new_privs, a seccomp filter (bots/sandbox/seccomp.py), an unprivileged uid
  per concurrent sandbox (bots/sandbox/slots.py), rlimits, and a cgroup where one is usable
  (bots/sandbox/cgroups.py): memory, pids, freezer (the bot is paused between its turns) and exact
  CPU accounting for all its threads and children;
- stdin/stdout/stderr as its only descriptors. The whole tree dies when the sandbox is
  closed, and when the worker dies (PR_SET_PDEATHSIG on bwrap, --die-with-parent on the bot,
  and pid 1 of the namespace taking every other process with it).

Without bubblewrap, untrusted programs are refused (:class:`SandboxUnavailable`) unless the
operator sets ``ARENA_TRUSTED_BOTS_ONLY=1``; then bots run as plain subprocesses with
rlimits, and a loud warning is logged.
"""

from __future__ import annotations

import ctypes
import logging
import os
import resource
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bots.sandbox import cgroups, seccomp, slots
from bots.sandbox.botprocess import BotProcess

log = logging.getLogger("arena.sandbox")

# Defaults a bot lives under; docs/bots.md repeats them.
MEMORY_MB = 256  # resident memory of the whole tree (cgroup) or data segment (RLIMIT_DATA)
PROCESSES = 32  # tasks: processes and threads together
CPU_SECONDS = 60  # CPU time per match, all threads and children
FILE_SIZE_MB = 8  # largest file it may write
TMPFS_MB = 16  # size of /tmp, its only writable place
LINE_BYTES = 64 * 1024  # longest line it may write on stdout
OUTPUT_MB = 8  # all stdout of one match
OPEN_FILES = 64
START_MS = 5000  # from launch to "ready"

SDK_DIR = Path(__file__).resolve().parent.parent / "sdk"  # bots/sdk
PYTHON_CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")
BWRAP_CANDIDATES = ("/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap")
SANDBOX_UID = 1000  # the uid the bot sees inside its user namespace

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


class SandboxUnavailable(RuntimeError):
    """No bubblewrap and no explicit trusted-only mode: an untrusted program must not run."""


@dataclass(frozen=True)
class Limits:
    memory_mb: int = MEMORY_MB
    processes: int = PROCESSES
    cpu_seconds: int = CPU_SECONDS
    file_size_mb: int = FILE_SIZE_MB
    tmpfs_mb: int = TMPFS_MB
    line_bytes: int = LINE_BYTES
    output_mb: int = OUTPUT_MB
    open_files: int = OPEN_FILES
    start_ms: int = START_MS

    def to_dict(self) -> dict:
        return asdict(self)


def bwrap_path() -> str | None:
    return next((p for p in BWRAP_CANDIDATES if os.access(p, os.X_OK)), None)


def bot_python() -> str:
    """The interpreter bots run with. It must live under /usr, the only system tree exposed:
    pyenv's or a venv's python would need their whole prefix bound into the sandbox."""
    configured = os.environ.get("ARENA_BOT_PYTHON")
    if configured:
        if not configured.startswith("/usr/"):
            raise SandboxUnavailable(f"ARENA_BOT_PYTHON={configured} must be under /usr")
        return configured
    for path in PYTHON_CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    raise SandboxUnavailable(
        "no python3 under /usr (install the system python3 package, e.g. apt-get install python3)"
    )


def trusted_only() -> bool:
    """The operator's explicit trusted-bots-only mode, read as arena/settings.py reads it."""
    value = os.environ.get("ARENA_TRUSTED_BOTS_ONLY", "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


_AVAILABLE: bool | None = None


def sandbox_available() -> bool:
    """bwrap is installed and can build a sandbox here (user namespaces allowed); probed once."""
    global _AVAILABLE
    if _AVAILABLE is None:
        _AVAILABLE = False
        if bwrap_path() is not None:
            try:
                box = _launch(None, Limits(), ["/usr/bin/true"], sandboxed=True)
                box.wait(5)
                _AVAILABLE = box.returncode == 0
                box.close()
            except (OSError, subprocess.SubprocessError, SandboxUnavailable) as exc:
                log.warning("bubblewrap probe failed: %s", exc)
    return _AVAILABLE


def describe_enforcement() -> str:
    """One paragraph for the worker's log at start: which mechanisms are in force."""
    if not sandbox_available():
        if trusted_only():
            return (
                "WARNING: NO SANDBOX. bubblewrap is unusable and ARENA_TRUSTED_BOTS_ONLY=1: "
                "bots run as plain processes with rlimits only. Never run uploaded code here."
            )
        return "no sandbox: bubblewrap is unusable, uploaded bots are refused"
    kind, _where = cgroups.backend()
    limits = (
        f"{kind} (memory, pids, freezer, cpu accounting) plus rlimits (CPU, file size, open files)"
        if kind != "none"
        else "rlimits only (RLIMIT_DATA for memory, RLIMIT_NPROC per uid, SIGSTOP to pause)"
    )
    return (
        f"bubblewrap sandbox ({bwrap_path()}; python {bot_python()}): user/pid/net/ipc/uts "
        f"namespaces, read-only system and code, bounded tmpfs, empty environment, no caps, "
        f"seccomp {seccomp.describe()}; {slots.describe()}; limits by {limits}"
    )


def _bind_system() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():  # merged /usr: keep the same link inside
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


def bwrap_argv(
    bot_dir: Path | None,
    sdk_dir: Path | None,
    limits: Limits,
    seccomp_fd: int | None,
    block_fd: int | None = None,
) -> list[str]:
    args = [
        bwrap_path() or "bwrap",
        "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--disable-userns",
        "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "bot",
        "--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL",
    ]  # fmt: skip
    args += _bind_system()
    args += ["--proc", "/proc", "--dir", "/dev"]
    args += ["--dev-bind", "/dev/null", "/dev/null", "--dev-bind", "/dev/zero", "/dev/zero"]
    args += ["--dev-bind", "/dev/urandom", "/dev/urandom"]
    args += ["--size", str(limits.tmpfs_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
    if bot_dir is not None:
        args += ["--ro-bind", str(bot_dir), "/bot"]
    if sdk_dir is not None:
        args += ["--ro-bind", str(sdk_dir), "/sdk"]
    args += ["--remount-ro", "/", "--chdir", "/bot" if bot_dir is not None else "/"]
    args += ["--clearenv", "--setenv", "PYTHONPATH", "/sdk", "--setenv", "HOME", "/tmp"]
    args += ["--setenv", "LANG", "C.UTF-8", "--setenv", "PATH", "/usr/bin:/bin"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    if block_fd is not None:  # built, but the program waits for a byte here before exec
        args += ["--block-fd", str(block_fd)]
    return args + ["--"]


def _rlimits(limits: Limits, uid_switched: bool, cgroup: bool) -> list[tuple[int, int]]:
    out = [
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_FSIZE, limits.file_size_mb << 20),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_MEMLOCK, 0),
    ]
    if uid_switched:  # per-uid count: only meaningful with a uid of its own (+ bwrap's monitor)
        # With a pids cgroup, RLIMIT_NPROC is only a backstop: set above pids.max so the
        # cgroup, whose counter tells us the limit was hit, is the one that refuses.
        out.append(
            (resource.RLIMIT_NPROC, limits.processes * 2 if cgroup else limits.processes + 2)
        )
    if not cgroup:  # RLIMIT_AS would break threads (DESIGN.md); DATA counts real allocations
        out.append((resource.RLIMIT_DATA, limits.memory_mb << 20))
    return out


_SDK_STAGED: Path | None = None
_GATED = True  # move into the cgroup while bwrap builds the sandbox (False: before exec)


def _staged_sdk() -> Path:
    global _SDK_STAGED
    if _SDK_STAGED is None or not _SDK_STAGED.is_dir():
        _SDK_STAGED = slots.stage(SDK_DIR)
    return _SDK_STAGED


def _preexec(attach: list[str], rlimits: list[tuple[int, int]], uid: int | None, parent: int):
    def run() -> None:  # runs in the child between fork and exec: keep it small
        for path in attach:  # join the cgroup before anything else is forked
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        for which, value in rlimits:
            resource.setrlimit(which, (value, value + 1 if which == resource.RLIMIT_CPU else value))
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        # After the uid change (which clears it): die with the worker.
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(70)

    return run


def _attach_and_release(proc: subprocess.Popen, group: cgroups.Cgroup, gate: int) -> None:
    """Move bwrap's monitor, then the sandbox's first process if it was already cloned,
    into ``group``, then let the program start. A clone after the monitor's move lands in the
    group by itself (the move excludes concurrent forks), so nothing escapes it. Should the
    worker die before the release, bwrap reads EOF and goes on, but its monitor is killed by
    PR_SET_PDEATHSIG and the sandbox with it (--die-with-parent), long before the program
    gets past interpreter start-up."""
    try:
        group.attach(proc.pid)
        try:
            with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as handle:
                children = [int(p) for p in handle.read().split()]
        except OSError:
            children = []
        for pid in children:
            group.attach(pid)
        os.write(gate, b"\n")
    except BaseException:
        proc.kill()  # bwrap exits, and with it anything it cloned (--die-with-parent)
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
        raise
    finally:
        os.close(gate)


_WARNED = False


def launch(bot_dir: Path | None, limits: Limits, argv: list[str] | None = None) -> BotProcess:
    """Start ``python3 main.py`` from ``bot_dir`` (or ``argv``) in a sandbox; pipes on 0/1/2."""
    global _WARNED
    sandboxed = sandbox_available()
    if not sandboxed and not trusted_only():
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not usable on this machine, so uploaded bots cannot run "
            "safely; install bubblewrap, or set ARENA_TRUSTED_BOTS_ONLY=1 if every bot is trusted"
        )
    if not sandboxed and not _WARNED:
        _WARNED = True
        log.warning("RUNNING BOTS WITHOUT A SANDBOX (ARENA_TRUSTED_BOTS_ONLY=1)")
    return _launch(bot_dir, limits, argv, sandboxed)


def _launch(
    bot_dir: Path | None, limits: Limits, argv: list[str] | None, sandboxed: bool
) -> BotProcess:
    staged = slots.stage(bot_dir) if bot_dir is not None else None
    slot = slots.acquire()
    group = None
    try:
        group = cgroups.create(limits.memory_mb << 20, limits.processes + 1)  # + the monitor
        program = argv or [bot_python(), "-s", "-B", "/bot/main.py" if sandboxed else "main.py"]
        pass_fds: tuple[int, ...] = ()
        # Sandboxed with a cgroup: bwrap builds the sandbox, then waits on a pipe before it
        # execs the program; meanwhile we move it into the group (see Cgroup.attach). Nothing
        # of the bot runs before the release, and the group then holds everything it starts.
        gate = os.pipe() if (sandboxed and group is not None and _GATED) else None
        if sandboxed:
            filter_fd = seccomp.program_fd()
            pass_fds = tuple(fd for fd in (filter_fd, gate and gate[0]) if fd is not None)
            cmd = bwrap_argv(staged, _staged_sdk(), limits, filter_fd, gate and gate[0])
            cmd += program
            env: dict[str, str] = {}
        else:
            cmd = program
            env = {"PYTHONPATH": str(_staged_sdk()), "HOME": "/tmp", "LANG": "C.UTF-8"}
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, close_fds=True, pass_fds=pass_fds, env=env,
                cwd=str(staged) if (staged is not None and not sandboxed) else "/",
                start_new_session=True,
                preexec_fn=_preexec(
                    group.attach_paths() if (group and not gate) else [],
                    _rlimits(limits, slot.uid is not None, group is not None),
                    slot.uid, os.getpid(),
                ),
            )  # fmt: skip
        except BaseException:
            if gate:
                os.close(gate[1])
            raise
        finally:
            for fd in pass_fds:
                os.close(fd)
        if gate:
            _attach_and_release(proc, group, gate[1])
    except BaseException:
        if group is not None:
            group.kill_all()
            group.remove()
        slot.release()
        if staged is not None:
            slots.unstage(staged)
        raise
    return BotProcess(proc, slot, group, staged, sandboxed)


def wait_gone(pids: list[int], timeout: float = 2.0) -> bool:
    """True once none of ``pids`` exists (tests use it to prove nothing leaked)."""
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{p}").exists() for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
