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
import json
import logging
import os
import resource
import select
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
TMPFS_INODES = 2048  # files, folders and links in /tmp (each costs kernel memory)
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
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000


class SandboxUnavailable(RuntimeError):
    """No bubblewrap and no explicit trusted-only mode: an untrusted program must not run."""


@dataclass(frozen=True)
class Limits:
    memory_mb: int = MEMORY_MB
    processes: int = PROCESSES
    cpu_seconds: int = CPU_SECONDS
    file_size_mb: int = FILE_SIZE_MB
    tmpfs_mb: int = TMPFS_MB
    tmpfs_inodes: int = TMPFS_INODES
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
    """bwrap is installed and can build a sandbox here (user namespaces allowed); probed once.

    The probe first tries the sandbox with a /tmp bounded in files (a tmpfs the launcher
    mounts in a namespace of its own); where that mount is refused it falls back to bwrap's
    own tmpfs, bounded in bytes only, and says so (describe_enforcement)."""
    global _AVAILABLE, _SCRATCH_BOUNDED
    if _AVAILABLE is None:
        _AVAILABLE = False
        if bwrap_path() is not None:
            for bounded in (True, False):
                _SCRATCH_BOUNDED = bounded
                if _probe():
                    _AVAILABLE = True
                    break
            if _AVAILABLE and not _SCRATCH_BOUNDED:
                log.warning("sandbox /tmp cannot be bounded in files here; bytes only")
    return _AVAILABLE


def _probe() -> bool:
    try:
        box = _launch(None, Limits(), ["/usr/bin/true"], sandboxed=True)
        box.wait(5)
        ok = box.returncode == 0
        box.close()
        return ok
    except (OSError, subprocess.SubprocessError, SandboxUnavailable) as exc:
        log.warning("bubblewrap probe failed: %s", exc)
        return False


def describe_enforcement() -> str:
    """One paragraph for the worker's log at start: which mechanisms are in force."""
    if not sandbox_available():
        if trusted_only():
            return (
                "WARNING: NO SANDBOX. bubblewrap is unusable and ARENA_TRUSTED_BOTS_ONLY=1: "
                "bots run as plain processes with rlimits only. Never run uploaded code here."
            )
        return "no sandbox: bubblewrap is unusable, uploaded bots are refused"
    return f"{enforcement_mode()}: " + "; ".join(_enforcement_parts())


def enforcement_mode() -> str:
    """The containment mode in one phrase: who the worker is and what bounds a bot's tree."""
    kind, _where = cgroups.backend()
    who = "root" if slots.can_switch_uid() else f"unprivileged (uid {os.geteuid()})"
    if kind != "none":
        return f"{who}, {kind}"
    if slots.can_switch_uid():
        return f"{who}, rlimits per sandbox uid"
    if nproc_per_userns():
        return f"{who}, rlimits in each sandbox's user namespace"
    return f"{who}, rlimits only, PROCESSES NOT BOUNDED (Linux < 5.14)"


def _enforcement_parts() -> list[str]:
    kind, _where = cgroups.backend()
    limits = Limits()
    if kind != "none":
        processes = f"{kind} pids ({limits.processes})"
        memory = f"{kind} memory ({limits.memory_mb} MB for the whole tree)"
    else:
        if slots.can_switch_uid():
            processes = f"RLIMIT_NPROC of the sandbox's own uid ({limits.processes})"
        elif nproc_per_userns():
            processes = f"RLIMIT_NPROC counted in the sandbox's user namespace ({limits.processes})"
        else:
            processes = "NOT BOUNDED (no cgroup, no uid of its own, RLIMIT_NPROC not per namespace)"
        memory = f"RLIMIT_DATA ({limits.memory_mb} MB per process, not per tree)"
    scratch = (
        f"/tmp {limits.tmpfs_mb} MB and {limits.tmpfs_inodes} files"
        if _SCRATCH_BOUNDED
        else f"/tmp {limits.tmpfs_mb} MB, files NOT bounded (tmpfs mount refused here)"
    )
    return [
        f"bubblewrap sandbox ({bwrap_path()}; python {bot_python()}): user/pid/net/ipc/uts "
        "namespaces, read-only system and code, empty environment, no caps",
        f"seccomp {seccomp.describe()}",
        slots.describe(),
        f"processes: {processes}",
        f"memory: {memory}",
        scratch,
        "CPU, file size, open files: rlimits",
        "pause: " + ("cgroup freezer" if kind != "none" else "SIGSTOP"),
    ]


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
    scratch: Path | None = None,
    info_fd: int | None = None,
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
    if scratch is not None:  # the bounded tmpfs the launcher mounted there (see _preexec)
        args += ["--bind", str(scratch), "/tmp"]
    else:  # bwrap's own tmpfs: bytes bounded, files not (bwrap has no nr_inodes option)
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
    if info_fd is not None:  # bwrap writes the sandbox's first pid here
        args += ["--info-fd", str(info_fd)]
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
# Whether /tmp is the launcher's bounded tmpfs (decided by the probe in sandbox_available).
_SCRATCH_BOUNDED = True


def _scratch_dir() -> Path:
    """An empty folder the launcher mounts each sandbox's /tmp on, in a mount namespace of
    that sandbox's own: one folder serves every concurrent sandbox."""
    return slots.private_dir(slots.private_dir(slots.STATE_DIR, 0o711) / "scratch", 0o755)


def nproc_per_userns() -> bool:
    """Linux >= 5.14 counts RLIMIT_NPROC per user namespace (ucounts)."""
    try:
        major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


_GATED = True  # move into the cgroup while bwrap builds the sandbox (False: before exec)


def _staged_sdk() -> Path:
    global _SDK_STAGED
    if _SDK_STAGED is None or not _SDK_STAGED.is_dir():
        _SDK_STAGED = slots.stage(SDK_DIR)
    return _SDK_STAGED


def scratch_options(limits: Limits) -> bytes:
    return f"size={limits.tmpfs_mb << 20},nr_inodes={limits.tmpfs_inodes},mode=1777".encode()


def _mount_scratch(where: bytes, options: bytes, own_userns: bool) -> None:
    """In a mount namespace of the launcher's own, mount the sandbox's /tmp at ``where``:
    a tmpfs bounded in bytes and in files (bwrap's --tmpfs can only bound bytes). bwrap,
    exec'd next, binds it at /tmp; the tmpfs goes away with the last process of the sandbox.
    A worker that is not root first enters a user namespace of its own (mapping only its own
    uid and gid), where mounting a tmpfs is allowed."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(CLONE_NEWNS | (CLONE_NEWUSER if own_userns else 0)) != 0:
        raise OSError(ctypes.get_errno(), "unshare for the sandbox's /tmp")
    if own_userns:
        for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"),
                           ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    # Private first: the mount must not propagate back to the machine's namespace.
    if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "making the sandbox's mounts private")
    if _libc.mount(b"tmpfs", where, b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        raise OSError(ctypes.get_errno(), "mounting the sandbox's /tmp")


def _preexec(
    attach: list[str],
    rlimits: list[tuple[int, int]],
    uid: int | None,
    parent: int,
    scratch: tuple[bytes, bytes] | None = None,
):
    def run() -> None:  # runs in the child between fork and exec: keep it small
        for path in attach:  # join the cgroup before anything else is forked
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        for which, value in rlimits:
            resource.setrlimit(which, (value, value + 1 if which == resource.RLIMIT_CPU else value))
        # Should the machine or the worker's container run out of memory, the kernel kills
        # a bot first, not the worker (without a memory cgroup, RLIMIT_DATA bounds each
        # process of a bot, not its whole tree).
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
        if scratch is not None:
            _mount_scratch(*scratch, own_userns=os.geteuid() != 0)
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        # After the uid change (which clears it): die with the worker.
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(70)

    return run


def _first_pid(info_fd: int, timeout: float = 5.0) -> int:
    """The sandbox's first process, from the JSON bwrap writes on --info-fd once cloned."""
    data = b""
    deadline = time.monotonic() + timeout
    while b"}" not in data:
        ready, _, _ = select.select([info_fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(info_fd, 4096) if ready else b""
        if not chunk:
            raise OSError("bubblewrap exited or stalled before it cloned the sandbox")
        data += chunk
    return int(json.loads(data)["child-pid"])


def _attach_and_release(
    proc: subprocess.Popen,
    group: cgroups.Cgroup | None,
    gate: int,
    info_fd: int | None = None,
    nproc: int | None = None,
) -> None:
    """Before the program starts: move bwrap's monitor, then the sandbox's first process if
    it was already cloned, into ``group``; give that first process its RLIMIT_NPROC of
    ``nproc``; then let the program start.

    A clone after the monitor's move lands in the group by itself (the move excludes
    concurrent forks), so nothing escapes it. The process limit is set from outside, on the
    sandbox's first process only: since Linux 5.14 RLIMIT_NPROC counts the processes of a
    uid *in a user namespace*, so inside the sandbox it counts the bot's own processes and
    threads, even when every sandbox and the worker share one uid. (Set on bwrap itself, it
    would also count the worker's processes, since a user namespace's creator's limit
    applies to the whole uid outside.) Should the worker die before the release, bwrap
    reads EOF and goes on, but its monitor is killed by PR_SET_PDEATHSIG and the sandbox
    with it (--die-with-parent), long before the program gets past interpreter start-up."""
    try:
        if group is not None:
            group.attach(proc.pid)
            try:
                with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as handle:
                    children = [int(p) for p in handle.read().split()]
            except OSError:
                children = []
            for pid in children:
                group.attach(pid)
        if nproc is not None and info_fd is not None:
            resource.prlimit(_first_pid(info_fd), resource.RLIMIT_NPROC, (nproc, nproc))
        os.write(gate, b"\n")
    except BaseException:
        proc.kill()  # bwrap exits, and with it anything it cloned (--die-with-parent)
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
        raise
    finally:
        os.close(gate)
        if info_fd is not None:
            os.close(info_fd)


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
        # bwrap builds the sandbox, then waits on a pipe before it execs the program;
        # meanwhile we move it into its cgroup (see Cgroup.attach) and, when the bots have
        # no uid of their own, set its process limit (see _attach_and_release). Nothing of
        # the bot runs before the release.
        per_userns_nproc = sandboxed and slot.uid is None and nproc_per_userns()
        gated = sandboxed and ((group is not None and _GATED) or per_userns_nproc)
        gate = os.pipe() if gated else None
        info = os.pipe() if per_userns_nproc else None
        scratch_dir = _scratch_dir() if (sandboxed and _SCRATCH_BOUNDED) else None
        scratch = (bytes(scratch_dir), scratch_options(limits)) if scratch_dir else None
        if sandboxed:
            filter_fd = seccomp.program_fd()
            pass_fds = tuple(
                fd for fd in (filter_fd, gate and gate[0], info and info[1]) if fd is not None
            )
            cmd = bwrap_argv(staged, _staged_sdk(), limits, filter_fd, gate and gate[0],
                             scratch=scratch_dir,
                             info_fd=info and info[1])  # fmt: skip
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
                    slot.uid, os.getpid(), scratch,
                ),
            )  # fmt: skip
        except BaseException:
            for fd in (gate and gate[1], info and info[0]):
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            for fd in pass_fds:
                os.close(fd)
        if gate:
            _attach_and_release(
                proc, group, gate[1], info and info[0],
                # With a pids cgroup too, only a backstop (as in _rlimits): the group refuses.
                (limits.processes * (2 if group else 1)) if per_userns_nproc else None,
            )  # fmt: skip
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
