"""Starting one bot process: bubblewrap's command line and the launcher's side of it.

- :func:`bwrap_argv`: the sandbox bwrap builds (namespaces, read-only system, /tmp, env);
- :func:`preexec`: what the child does between fork and exec (cgroup, rlimits, OOM score,
  the bounded /tmp, its uid, death with the worker);
- :func:`attach_and_release`: moving a gated sandbox into its cgroup, and giving it its
  process limit, before its program may start (:func:`gate_pipe`: the pipe it waits on).

Which of these are in force, and the launch itself, are decided in bots/sandbox/jail.py.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import subprocess
import time
from pathlib import Path

from bots.sandbox import cgroups, languages, slots
from bots.sandbox.limits import Limits

BWRAP_CANDIDATES = ("/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap")
SANDBOX_UID = 1000  # the uid the bot sees inside its user namespace
OOM_SCORE = 1000  # a bot goes first when memory runs out (see preexec)

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000


def bwrap_path() -> str | None:
    return next((p for p in BWRAP_CANDIDATES if os.access(p, os.X_OK)), None)


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


# The host's system binds and the offered languages' binds and variables, worked out once
# per worker process (a glob and a stat per path, on every launch otherwise) for each
# ARENA_LANGUAGES.
_STATIC: dict[tuple[str, str | None], list[str]] = {}


def _cached(part: str, build) -> list[str]:
    key = (part, os.environ.get("ARENA_LANGUAGES"))
    if key not in _STATIC:
        _STATIC[key] = build()
    return list(_STATIC[key])


def _system_binds() -> list[str]:
    return _cached("system", _bind_system)


def _language_binds() -> list[str]:
    def build() -> list[str]:
        out: list[str] = []
        for path in languages.sandbox_binds():  # /etc/alternatives, /etc/java-17-openjdk, ...
            out += ["--ro-bind", path, path]
        return out

    return _cached("binds", build)


def _language_env() -> list[str]:
    def build() -> list[str]:
        out: list[str] = []
        for name, value in languages.sandbox_env().items():
            out += ["--setenv", name, value]
        return out

    return _cached("env", build)


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
    args += _system_binds()
    args += ["--proc", "/proc", "--dir", "/dev"]
    args += ["--dev-bind", "/dev/null", "/dev/null", "--dev-bind", "/dev/zero", "/dev/zero"]
    args += ["--dev-bind", "/dev/urandom", "/dev/urandom"]
    if scratch is not None:  # the bounded tmpfs the launcher mounted there (see preexec)
        args += ["--bind", str(scratch), "/tmp"]
    else:  # bwrap's own tmpfs: bytes bounded, files not (bwrap has no nr_inodes option)
        args += ["--size", str(limits.tmpfs_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
    if bot_dir is not None:
        args += ["--ro-bind", str(bot_dir), "/bot"]
    if sdk_dir is not None:
        args += ["--ro-bind", str(sdk_dir), "/sdk"]
    args += _language_binds()
    args += ["--remount-ro", "/", "--chdir", "/bot" if bot_dir is not None else "/"]
    args += ["--clearenv", "--setenv", "PYTHONPATH", "/sdk", "--setenv", "HOME", "/tmp"]
    args += ["--setenv", "LANG", "C.UTF-8", "--setenv", "PATH", "/usr/bin:/bin"]
    args += _language_env()
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    if block_fd is not None:  # built, but the program waits for a byte here before exec
        args += ["--block-fd", str(block_fd)]
    if info_fd is not None:  # bwrap writes the sandbox's first pid here
        args += ["--info-fd", str(info_fd)]
    return args + ["--"]


def rlimits(limits: Limits, uid_switched: bool, cgroup: bool) -> list[tuple[int, int]]:
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
    if not cgroup:  # RLIMIT_AS would break threads (docs/bots.md); DATA counts real allocations
        out.append((resource.RLIMIT_DATA, limits.memory_mb << 20))
    return out


def hard_limit(which: int, soft: int) -> int:
    """The hard limit beside a soft one: one second more for CPU, so that SIGXCPU at the
    soft limit comes before the SIGKILL at the hard one; the same for the rest."""
    return soft + 1 if which == resource.RLIMIT_CPU else soft


def scratch_mountpoint() -> Path:
    """An empty folder the launcher mounts each sandbox's /tmp on, in a mount namespace of
    that sandbox's own: one folder serves every concurrent sandbox."""
    return slots.private_dir(slots.private_dir(slots.STATE_DIR, 0o711) / "scratch", 0o755)


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


def preexec(
    attach: list[str],
    rlimits: list[tuple[int, int]],
    uid: int | None,
    parent: int,
    scratch: tuple[bytes, bytes] | None = None,
):
    def run() -> None:  # runs in the child between fork and exec: keep it small
        for path in attach:  # join the cgroup before anything else is forked
            with open(path, "w") as handle:
                handle.write("0")  # this process (one thread after fork): see Cgroup.join_paths
        # Should the machine or the worker's container run out of memory, the kernel kills
        # a bot first, not the worker (without a memory cgroup, RLIMIT_DATA bounds each
        # process of a bot, not its whole tree).
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(OOM_SCORE))
        if scratch is not None:
            _mount_scratch(*scratch, own_userns=os.geteuid() != 0)
        # Only now, every file opened: until exec this child holds all the worker's
        # descriptors (a worker holding spare and retired sandboxes has more than a bot's
        # open-files limit), so an open after the limit could fail with EMFILE.
        for which, value in rlimits:
            resource.setrlimit(which, (value, hard_limit(which, value)))
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


def attach_and_release(
    proc: subprocess.Popen,
    group: cgroups.Cgroup | None,
    gate: int,
    info_fd: int | None = None,
    nproc: int | None = None,
) -> None:
    """:func:`attach_held`, then let the program start at once."""
    attach_held(proc, group, gate, info_fd, nproc)
    release(proc, gate)


def release(proc: subprocess.Popen, gate: int) -> None:
    """Let a held sandbox's program start (one byte on bwrap's ``--block-fd``). Should bwrap
    be gone (EPIPE), it is reaped and the error raised: the host's failure, not the bot's."""
    try:
        os.write(gate, b"\n")
    except BaseException:
        abort(proc)
        raise
    finally:
        os.close(gate)


def gate_pipe() -> tuple[int, int]:
    """The pipe a gated sandbox's program waits on, bwrap's ``--block-fd``: (bwrap's end,
    the worker's end, which :func:`release` writes one byte to).

    bwrap's end is opened read-write, so its read never sees end-of-file: should the worker
    die before the release, the program never starts. The sandbox's first process arms its
    own death signal only after that read, so a program let go by end-of-file would run
    with nothing above it; held, it sleeps as bwrap's own code until a sweep ends it
    (bots/sandbox/orphans.py). A write still fails (EPIPE) once bwrap is gone altogether."""
    read_end, write_end = os.pipe()
    try:
        both = os.open(f"/proc/self/fd/{read_end}", os.O_RDWR | os.O_CLOEXEC)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return both, write_end


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def abort(proc: subprocess.Popen) -> None:
    """Kill and reap a launch that went wrong, and close its pipes.

    bwrap's monitor is stopped first, so that it clones nothing more, and the sandbox it
    cloned is killed before it: that process arms its own death signal only at the end of
    its set-up, and would outlive a monitor killed earlier."""
    try:
        os.kill(proc.pid, signal.SIGSTOP)  # our child, not reaped yet: the pid is still its
    except ProcessLookupError:
        pass
    for pid in children(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        stream.close()


def attach_held(
    proc: subprocess.Popen,
    group: cgroups.Cgroup | None,
    gate: int,
    info_fd: int | None = None,
    nproc: int | None = None,
) -> None:
    """Before the program starts: move bwrap's monitor, then the sandbox's first process if
    it was already cloned, into ``group``; give that first process its RLIMIT_NPROC of
    ``nproc``. The program starts only once released (:func:`release`).

    A clone after the monitor's move lands in the group by itself (the move excludes
    concurrent forks), so nothing escapes it. A group whose freezer the monitor stays out of
    (``Cgroup.bot_only``: a hybrid machine's v2 group, so that a pause freezes and thaws the
    bot alone, not bwrap's monitor too) gets the first process by the pid bwrap reports on
    ``info_fd``, which it then needs: the program waits on the gate, so nothing of it runs,
    let alone forks, before it is in. The process limit is set from outside, on the
    sandbox's first process only: since Linux 5.14 RLIMIT_NPROC counts the processes of a
    uid *in a user namespace*, so inside the sandbox it counts the bot's own processes and
    threads, even when every sandbox and the worker share one uid. (Set on bwrap itself, it
    would also count the worker's processes, since a user namespace's creator's limit
    applies to the whole uid outside.) Should the worker die before the release, its
    monitor dies with it (PR_SET_PDEATHSIG) and the program never starts (see :func:`gate_pipe`).

    ``gate`` stays open (the caller releases it, see :func:`release`) unless this fails:
    then bwrap is killed and the gate closed."""
    try:
        first = None
        if group is not None:
            group.attach(proc.pid, monitor=True)
            if info_fd is not None:
                first = _first_pid(info_fd)
            try:
                with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as handle:
                    children = [int(p) for p in handle.read().split()]
            except OSError:
                children = []
            for pid in {*children, *([first] if first is not None else [])}:
                group.attach(pid)
        elif info_fd is not None:
            first = _first_pid(info_fd)
        if nproc is not None and first is not None:
            resource.prlimit(first, resource.RLIMIT_NPROC, (nproc, nproc))
    except BaseException:
        abort(proc)
        os.close(gate)
        raise
    finally:
        if info_fd is not None:
            os.close(info_fd)
