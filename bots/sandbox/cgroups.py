"""Per-bot control groups: memory, pids, freezer and CPU accounting for one sandbox.

Two backends, chosen once per process by :func:`backend`:

- cgroup v2, in a subtree delegated to the worker: ``ARENA_CGROUP_V2=/sys/fs/cgroup/...``,
  a directory we may write whose ``cgroup.subtree_control`` enables ``memory`` and ``pids``,
  or else the worker's own group when it is delegated (a container's private cgroup
  namespace, systemd's ``Delegate=yes``) and writable (:func:`delegated_v2`);
- cgroup v1, when the v1 ``memory``, ``pids``, ``freezer`` and ``cpuacct`` hierarchies are
  mounted and writable (a root worker in a container, as on the development machines).
  With ``ARENA_CGROUP_HYBRID=1``, where the machine also mounts the unified (v2) hierarchy
  beside them ("hybrid"), each sandbox gets a v2 group too, holding the bot's tree but not
  bwrap's monitor, for its freezer and CPU time only: ``cgroup.freeze`` stops the whole tree
  without waking the monitor (SIGSTOP and SIGCONT each send it a SIGCHLD) and without
  counting the tree's tasks first. Memory and pids stay with the v1 controllers. It is off
  by default: every write to ``cgroup.freeze`` takes the kernel's cgroup_mutex, which any
  sandbox launch on the machine holds while its first cgroup move waits for an RCU grace
  period, so under concurrent launches a pause or resume stalls far longer than a
  SIGSTOP/SIGCONT (figures in bench/README.md).

``Cgroup`` and its two subclasses handle one group's files; the functions after them decide
the backend, create groups and sweep those of dead workers.

Each sandbox gets a fresh group, created under the worker's own group of each hierarchy so
the container's limits still apply above it. The group is removed when the sandbox ends.
On cgroup v1 the launcher joins the group itself before it execs bwrap (``join_paths``);
elsewhere bwrap's monitor is moved in from outside (``attach``).
No Django import: the worker, ``manage.py play`` and the tests share this module.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import signal
import time
from pathlib import Path

from bots.sandbox.slots import owner_gone

# -- one sandbox's group ---------------------------------------------------------------

V1_CONTROLLERS = ("memory", "pids", "freezer", "cpuacct")
UNIFIED = "unified"  # a hybrid machine's v2 group, beside the v1 ones


def group_name() -> str:
    """bot-<worker pid>-<token>: the pid tells sweep_stale whose group it was."""
    return f"bot-{os.getpid()}-{secrets.token_hex(4)}"


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, value: str) -> None:
    # os-level: a text file object costs a stat, an ioctl and two seeks more per write, paid
    # on every sandbox's set-up
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _usage_ns(cpu_stat: bytes) -> int:
    """CPU time from a v2 ``cpu.stat`` (``usage_usec``, its first line)."""
    for line in cpu_stat.splitlines():
        if line.startswith(b"usage_usec "):
            return int(line.split()[1]) * 1000
    return 0


class Cgroup:
    """One sandbox's group. Subclasses know where the files are.

    Files read or written on every move (freezer, CPU usage, process list) stay open and are
    accessed with pread/pwrite at offset 0: an open() per access costs far more than a pread.
    """

    kind = "none"
    _tasks_file: Path  # pids.current
    # Whether BotProcess.pause freezes the group at once (the opt-in hybrid v2 freezer,
    # see the module's docstring) instead of a SIGSTOP of the bot first, with the freezer
    # (a costlier write) only when the bot has other processes.
    whole_tree_freeze = False
    _fds: dict[Path, int]

    def _fd(self, path: Path, flags: int) -> int:
        fds = self.__dict__.setdefault("_fds", {})
        fd = fds.get(path)
        if fd is None:
            fd = fds[path] = os.open(path, flags | os.O_CLOEXEC)
        return fd

    def _get(self, path: Path) -> bytes:
        """A small counter file's contents (a few hundred bytes at most: cpu.stat)."""
        try:
            return os.pread(self._fd(path, os.O_RDONLY), 1024, 0)
        except OSError:
            return b""

    def _put(self, path: Path, value: str) -> None:
        os.pwrite(self._fd(path, os.O_WRONLY), value.encode(), 0)

    def _close_fds(self) -> None:
        self.__dict__.pop("_cpu_fd", None)  # one of _fds
        for fd in self.__dict__.pop("_fds", {}).values():
            os.close(fd)

    def _hold(self, path: Path) -> None:
        """Mark the group in use for as long as this process lives (see sweep_stale)."""
        fcntl.flock(self._fd(path, os.O_RDONLY | os.O_DIRECTORY), fcntl.LOCK_EX)

    def attach_paths(self, monitor: bool = False) -> list[str]:
        """The group's ``cgroup.procs`` files: the launcher writes ``0`` (itself) into them
        before exec, or a move from outside writes a pid; ``monitor``: only those bwrap's
        monitor joins (see ``bot_only``)."""
        raise NotImplementedError

    def join_paths(self) -> list[str] | None:
        """Files a single-threaded launcher writes ``0`` into to join the group itself just
        before it execs bwrap; None where that costs what a move from outside costs.

        Moving a whole process (``cgroup.procs``, or any pid but the writer's own) takes the
        kernel's cgroup_threadgroup_rwsem for writing, which after an idle spell waits for an
        RCU grace period (10-20 ms on a loaded machine). A thread moving itself (``0`` into a
        v1 ``tasks`` file) takes no such lock, and in a process with one thread it moves the
        whole process: everything bwrap then clones is born in the group."""
        return None

    @property
    def bot_only(self) -> bool:
        """Whether part of the group (a hybrid machine's v2 freezer group) is for the bot's
        own tree only, not bwrap's monitor: freezing and thawing the monitor with the bot
        costs two more wake-ups a move, and it never runs bot code."""
        return self.attach_paths(monitor=True) != self.attach_paths()

    def attach(self, pid: int, monitor: bool = False) -> None:
        """Move process ``pid`` (all its threads) into the group, from outside.

        The first move after an idle spell waits for an RCU grace period
        (cgroup_threadgroup_rwsem: milliseconds), so a launch does this while bwrap builds
        the sandbox, and only where the launcher cannot join by itself (``join_paths``)."""
        for path in self.attach_paths(monitor):
            with open(path, "w") as handle:
                handle.write(str(pid))

    def freeze(self) -> None:
        raise NotImplementedError

    def thaw(self) -> None:
        raise NotImplementedError

    def _kill_at_once(self, spare: int | None) -> None:
        """Where the group offers it (cgroup.kill), kill its whole tree in one write."""

    def cpu_ns(self) -> int:
        raise NotImplementedError

    def oom_killed(self) -> bool:
        raise NotImplementedError

    def pids_hit(self) -> bool:
        raise NotImplementedError

    def procs(self) -> list[int]:
        raise NotImplementedError

    def tasks(self) -> int:
        """Threads and processes in the group (pids.current, cheap to re-read)."""
        text = self._get(self._tasks_file)
        return int(text) if text else 0

    def holds_at_most(self, count: int) -> bool:
        """Whether the group holds ``count`` tasks or fewer, from its pids counter: one
        pread, where listing its processes builds a pid list in the kernel. The counter
        takes a task in from the start of its fork until it is reaped, zombies included,
        so what it says is never less than what is there. False when it cannot be read."""
        text = self._get(self._tasks_file)
        return bool(text) and int(text) <= count

    def remove(self) -> None:
        raise NotImplementedError

    def kill_all(self, timeout: float = 3.0, spare: int | None = None) -> bool:
        """SIGKILL every process in the group but ``spare`` (frozen first, so a fork bomb
        cannot race the sweep); True once nothing else is left."""
        if spare is None and self.holds_at_most(0):
            return True
        self._kill_at_once(spare)
        deadline = time.monotonic() + timeout
        pause = 0.0002  # a killed bot is usually gone within a fraction of a millisecond
        while True:
            if not [p for p in self.procs() if p != spare]:
                return True
            self.freeze()
            for pid in self.procs():
                if pid == spare:
                    continue
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.thaw()  # killed tasks only die once thawed
            if time.monotonic() > deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.002)


class CgroupV1(Cgroup):
    kind = "cgroup v1"

    def __init__(self, bases: dict[str, Path], memory_bytes: int, max_pids: int):
        name = group_name()
        # "unified": the v2 group of a hybrid machine (freezer and CPU time), when there is one.
        self.dirs = {c: bases[c] / name for c in (*V1_CONTROLLERS, UNIFIED) if c in bases}
        self.whole_tree_freeze = UNIFIED in self.dirs
        for path in self.dirs.values():
            path.mkdir()
        self._hold(self.dirs["pids"])
        mem = self.dirs["memory"]
        _write(mem / "memory.limit_in_bytes", str(memory_bytes))
        if (mem / "memory.memsw.limit_in_bytes").exists():
            try:  # no swap on these machines; where there is, forbid it too
                _write(mem / "memory.memsw.limit_in_bytes", str(memory_bytes))
            except OSError:
                pass
        _write(self.dirs["pids"] / "pids.max", str(max_pids))
        # Paths of the files read or written on every move, built once (a Path join per
        # access cost more than the pread itself).
        hybrid = self.dirs.get(UNIFIED)
        self._freeze_file = (
            hybrid / "cgroup.freeze" if hybrid else self.dirs["freezer"] / "freezer.state"
        )
        self._cpu_file = hybrid / "cpu.stat" if hybrid else self.dirs["cpuacct"] / "cpuacct.usage"
        self._tasks_file = self.dirs["pids"] / "pids.current"

    def attach_paths(self, monitor: bool = False) -> list[str]:
        return [
            str(path / "cgroup.procs")
            for controller, path in self.dirs.items()
            if not (monitor and controller == UNIFIED)
        ]

    def join_paths(self) -> list[str] | None:
        if UNIFIED in self.dirs:  # bwrap's monitor stays out of it: moved from outside
            return None
        return [str(path / "tasks") for path in self.dirs.values()]

    def _kill_at_once(self, spare: int | None) -> None:
        if spare is None and UNIFIED in self.dirs:
            try:
                _write(self.dirs[UNIFIED] / "cgroup.kill", "1")
            except OSError:  # no cgroup.kill before Linux 5.14: the sweep below does it
                pass

    def freeze(self) -> None:
        self._put(self._freeze_file, "1" if self.whole_tree_freeze else "FROZEN")

    def thaw(self) -> None:
        self._put(self._freeze_file, "0" if self.whole_tree_freeze else "THAWED")

    def cpu_ns(self) -> int:
        fd = self.__dict__.get("_cpu_fd")  # read on every move: no _get's lookups
        try:
            if fd is None:
                fd = self._cpu_fd = self._fd(self._cpu_file, os.O_RDONLY)
            text = os.pread(fd, 1024, 0)
        except OSError:
            text = b""
        if self.whole_tree_freeze:
            return _usage_ns(text)
        return int(text) if text else 0  # int() ignores the newline

    def oom_killed(self) -> bool:
        for line in _read(self.dirs["memory"] / "memory.oom_control").splitlines():
            if line.startswith("oom_kill ") and int(line.split()[1]) > 0:
                return True
        text = _read(self.dirs["memory"] / "memory.failcnt").strip()
        return bool(text) and int(text) > 0 and self._near_limit()

    def _near_limit(self) -> bool:
        usage = _read(self.dirs["memory"] / "memory.max_usage_in_bytes").strip()
        limit = _read(self.dirs["memory"] / "memory.limit_in_bytes").strip()
        return bool(usage and limit) and int(usage) >= int(limit) * 0.95

    def pids_hit(self) -> bool:
        for line in _read(self.dirs["pids"] / "pids.events").splitlines():
            if line.startswith("max ") and int(line.split()[1]) > 0:
                return True
        return False

    def procs(self) -> list[int]:
        # A fresh open each time: pread on a kept cgroup.procs descriptor returns stale lists.
        return [int(p) for p in _read(self.dirs["pids"] / "cgroup.procs").split()]

    def remove(self) -> None:
        self._close_fds()
        for path in self.dirs.values():
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.002)  # tasks still exiting


class CgroupV2(Cgroup):
    kind = "cgroup v2"

    def __init__(self, base: Path, memory_bytes: int, max_pids: int):
        self.dir = base / group_name()
        self.dir.mkdir()
        self._hold(self.dir)
        _write(self.dir / "memory.max", str(memory_bytes))
        if (self.dir / "memory.swap.max").exists():
            _write(self.dir / "memory.swap.max", "0")
        _write(self.dir / "pids.max", str(max_pids))
        self._freeze_file = self.dir / "cgroup.freeze"  # built once: see CgroupV1
        self._cpu_file = self.dir / "cpu.stat"
        self._tasks_file = self.dir / "pids.current"

    def attach_paths(self, monitor: bool = False) -> list[str]:
        return [str(self.dir / "cgroup.procs")]

    def freeze(self) -> None:
        self._put(self._freeze_file, "1")

    def thaw(self) -> None:
        self._put(self._freeze_file, "0")

    def cpu_ns(self) -> int:
        return _usage_ns(self._get(self._cpu_file))

    def _event(self, filename: str, key: str) -> int:
        for line in _read(self.dir / filename).splitlines():
            if line.startswith(key + " "):
                return int(line.split()[1])
        return 0

    def oom_killed(self) -> bool:
        return (
            self._event("memory.events", "oom_kill") > 0 or self._event("memory.events", "max") > 0
        )

    def pids_hit(self) -> bool:
        return self._event("pids.events", "max") > 0

    def procs(self) -> list[int]:
        return [int(p) for p in _read(self.dir / "cgroup.procs").split()]

    def _kill_at_once(self, spare: int | None) -> None:
        if spare is None and (self.dir / "cgroup.kill").exists():
            _write(self.dir / "cgroup.kill", "1")

    def remove(self) -> None:
        self._close_fds()
        for _ in range(50):
            try:
                self.dir.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.002)


# -- discovery ---------------------------------------------------------------------------


def _v1_bases() -> dict[str, Path] | None:
    """``<mount>/<our group>/arena`` for each v1 controller we need, created if missing."""
    mounts: dict[str, Path] = {}
    for line in _read(Path("/proc/self/mounts")).splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in V1_CONTROLLERS:
                    mounts[option] = Path(fields[1])
    own: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                own[controller] = parts[2]
    bases = {}
    for controller in V1_CONTROLLERS:
        if controller not in mounts:
            return None
        mount = mounts[controller]
        nested = mount / own.get(controller, "/").lstrip("/")
        base = (nested if nested.is_dir() else mount) / "arena"
        try:
            base.mkdir(exist_ok=True)
        except OSError:
            return None
        bases[controller] = base
    unified = _unified_base(own.get("", "/"))
    if unified is not None:
        bases[UNIFIED] = unified
    return bases


def _unified_base(own: str) -> Path | None:
    """``<cgroup2 mount>/<our group>/arena`` on a hybrid machine with ``ARENA_CGROUP_HYBRID=1``,
    when a group made there has ``cgroup.freeze`` and we may move processes into it; else
    None (SIGSTOP and the v1 freezer serve)."""
    if os.environ.get("ARENA_CGROUP_HYBRID", "0") != "1":
        return None
    mount = next(
        (Path(f[1]) for line in _read(Path("/proc/self/mounts")).splitlines()
         if len(f := line.split()) >= 3 and f[2] == "cgroup2"),
        None,
    )  # fmt: skip
    if mount is None:
        return None
    nested = mount / own.lstrip("/")
    base = (nested if nested.is_dir() else mount) / "arena"
    probe = base / f"probe-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        base.mkdir(exist_ok=True)
        probe.mkdir()
    except OSError:
        return None
    try:
        usable = (probe / "cgroup.freeze").exists() and os.access(probe / "cgroup.procs", os.W_OK)
    finally:
        probe.rmdir()
    return base if usable else None


# What a bot's cgroup v2 group needs enabled by its parent.
V2_CONTROLLERS = ("memory", "pids")
# The leaf a delegated group's own processes move into (see delegated_v2).
WORKER_LEAF = "arena-worker"
_V2_REASON = "not looked for"


def v2_unavailable_reason() -> str:
    """Why no delegated cgroup v2 subtree is used (after :func:`delegated_v2` said None)."""
    return _V2_REASON


def _v2_base() -> Path | None:
    configured = os.environ.get("ARENA_CGROUP_V2")
    if not configured:
        return delegated_v2()
    base = Path(configured)
    if _enabled(base) and os.access(base, os.W_OK):
        return base
    _no_v2(f"ARENA_CGROUP_V2={configured} is not a writable group enabling memory and pids")
    return None


def _no_v2(reason: str) -> None:
    global _V2_REASON
    _V2_REASON = reason


def _enabled(group: Path) -> bool:
    return set(V2_CONTROLLERS) <= set(_read(group / "cgroup.subtree_control").split())


def _own_v2_group() -> tuple[str, Path] | None:
    """(this process's cgroup v2 path, the folder of that group), from /proc/self/cgroup and
    the cgroup2 mount whose root holds it; None (reason kept) when there is none."""
    own = next(
        (line[3:] for line in _read(Path("/proc/self/cgroup")).splitlines()
         if line.startswith("0::")),
        None,
    )  # fmt: skip
    if own is None:
        _no_v2("this process is in no cgroup v2 hierarchy")
        return None
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        fields = line.split()
        try:
            fstype = fields[fields.index("-") + 1]
        except (ValueError, IndexError):
            continue
        root, mountpoint = fields[3], fields[4]
        if fstype != "cgroup2" or not (root == "/" or own == root or own.startswith(root + "/")):
            continue
        below = own[len(root) :] if root != "/" else own
        return own, Path(mountpoint) / below.lstrip("/")
    _no_v2(f"the cgroup v2 hierarchy holding this process's group ({own}) is not mounted here")
    return None


def _delegated(own: str, group: Path) -> bool:
    """Given to us to manage: the root of a cgroup namespace of our own (a container's), or
    a group systemd delegated (Delegate=yes: it marks the group with an extended attribute)."""
    if own == "/":
        return True
    for name in ("trusted.delegate", "user.delegate"):
        try:
            if os.getxattr(group, name) == b"1":
                return True
        except OSError:
            continue
    return False


def delegated_v2() -> Path | None:
    """This process's own cgroup v2 group, when it is delegated to us and writable and its
    parent offers the memory and pids controllers: prepared so that each bot can have a
    group of its own below it (the group it returns), bounding the bot's whole tree. None
    otherwise, the reason kept for :func:`v2_unavailable_reason`.

    cgroup v2 enables a controller for a group's children only while the group itself holds
    no process, so the preparation moves every process of the group (the worker, and in a
    container its init) into a leaf, WORKER_LEAF, then enables the controllers. A process
    found in that leaf (a pool process, a later command) uses its parent."""
    found = _own_v2_group()
    if found is None:
        return None
    own, group = found
    if group.name == WORKER_LEAF and _enabled(group.parent):
        return group.parent
    offered = _read(group / "cgroup.controllers").split()
    missing = [c for c in V2_CONTROLLERS if c not in offered]
    if missing:
        names = " and ".join(missing)
        _no_v2(
            f"{names} not available in cgroup v2 here ({group}/cgroup.controllers: "
            f"{' '.join(offered) or 'none'}; cgroup v1 may hold them)"
        )
        return None
    if not (group / "cgroup.type").exists():
        _no_v2("this process is in the root group of the cgroup v2 hierarchy: nothing delegated")
        return None
    if not _delegated(own, group):
        _no_v2(
            f"its cgroup v2 group {group} is not delegated (not the root of a cgroup namespace "
            "of its own, no systemd Delegate=)"
        )
        return None
    files = (group, group / "cgroup.procs", group / "cgroup.subtree_control")
    if not all(os.access(path, os.W_OK) for path in files):
        _no_v2(
            f"its cgroup v2 group {group} is not writable by uid {os.geteuid()} (Docker, for "
            "one, mounts a container's cgroup tree read-only)"
        )
        return None
    if _enabled(group) and not _read(group / "cgroup.procs").split():
        return group  # prepared already (by an earlier worker process, or the operator)
    try:
        _move_into_leaf(group)
        _write(group / "cgroup.subtree_control", " ".join(f"+{c}" for c in V2_CONTROLLERS))
    except OSError as exc:
        _no_v2(f"its cgroup v2 group {group} could not be prepared: {exc}")
        return None
    return group


def _move_into_leaf(group: Path) -> None:
    """Move every process of ``group`` into its WORKER_LEAF (processes forked meanwhile are
    caught by the next round)."""
    leaf = group / WORKER_LEAF
    leaf.mkdir(exist_ok=True)
    for _ in range(20):
        pids = _read(group / "cgroup.procs").split()
        if not pids:
            return
        for pid in pids:
            try:
                _write(leaf / "cgroup.procs", pid)
            except ProcessLookupError:
                pass  # exited meanwhile
    raise OSError(f"processes kept appearing in {group}")


_BACKEND: tuple[str, object] | None = None


def backend() -> tuple[str, object]:
    """("cgroup v2", base) or ("cgroup v1", bases) or ("none", None); probed once."""
    global _BACKEND
    if _BACKEND is None:
        if os.environ.get("ARENA_NO_CGROUPS") == "1":
            _BACKEND = ("none", None)
        elif (v2 := _v2_base()) is not None:
            _BACKEND = ("cgroup v2", v2)
        elif (v1 := _probe_v1()) is not None:
            _BACKEND = ("cgroup v1", v1)
        else:
            _BACKEND = ("none", None)
    return _BACKEND


def _probe_v1() -> dict[str, Path] | None:
    bases = _v1_bases()
    if bases is None:
        return None
    try:
        group = CgroupV1(bases, 64 << 20, 8)
    except OSError:
        return None
    group.remove()
    return bases


# How long a sweep waits for a stale group's killed tasks to exit (quick when idle, far
# longer on a loaded machine tearing down a bot's namespaces).
STALE_EXIT_SECONDS = 3.0


def sweep_stale() -> int:
    """Remove the groups of sandboxes whose worker process died hard (a pool child killed
    mid-match); returns how many. A live group is held with an flock on its (pids) directory
    by the process that made it; a group nobody holds whose maker (bot-<pid>-<token>) is gone
    is stale. Its processes died with their worker (PR_SET_PDEATHSIG); a survivor is killed
    first. Runs at every group creation: a listing per hierarchy and an open and a failing
    flock per other live sandbox."""
    kind, where = backend()
    if kind == "cgroup v2":
        lock_base, bases = where, [where]
    elif kind == "cgroup v1":
        lock_base, bases = where["pids"], list(where.values())  # type: ignore[index,union-attr]
    else:
        return 0
    try:
        names = [e.name for e in os.scandir(lock_base) if e.name.startswith("bot-")]
    except OSError:
        return 0
    removed = 0
    for name in names:
        try:
            fd = os.open(f"{lock_base}/{name}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if owner_gone(name):
                removed += _remove_stale(name, bases, lock_base)
        except BlockingIOError:
            pass  # in use
        finally:
            os.close(fd)
    return removed + _sweep_orphans(bases, lock_base, set(names))


def _sweep_orphans(bases: list[Path], lock_base: Path, locked: set[str]) -> int:
    """Groups of a dead maker left in another hierarchy without their lock directory (an
    older release removed the pids group even when the memory group was still busy): nothing
    can hold them, so their maker being gone is enough. A live maker's group may be half
    made (its pids directory comes after the memory one): left alone. ``locked``: the names
    sweep_stale just listed in ``lock_base`` (each had its lock directory then)."""
    removed = 0
    for base in bases:
        if base == lock_base:
            continue
        try:
            names = [e.name for e in os.scandir(base) if e.name.startswith("bot-")]
        except OSError:
            continue
        for name in names:
            if name in locked or os.path.exists(f"{lock_base}/{name}"):
                continue
            if owner_gone(name):
                removed += _remove_stale(name, [base], lock_base)
    return removed


def _remove_stale(name: str, bases: list[Path], lock_base: Path) -> int:
    """Kill what is left in group ``name`` of each hierarchy, wait for it to exit, remove the
    groups; how many were removed. The lock directory goes last, and only once every other
    is gone: while one is still busy, the next sweep must find the group again."""
    groups = sorted((base / name for base in bases), key=lambda g: g.parent == lock_base)
    deadline = time.monotonic() + STALE_EXIT_SECONDS
    pause = 0.0005
    while pids := {p for group in groups for p in _read(group / "cgroup.procs").split()}:
        for group in groups:  # a frozen task (v1) only dies of SIGKILL once thawed
            for freeze, thawed in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                try:
                    _write(group / freeze, thawed)
                except OSError:
                    pass
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        if time.monotonic() > deadline:
            return 0
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    removed = 0
    for group in groups:
        while True:
            try:
                group.rmdir()
                removed += 1
                break
            except FileNotFoundError:
                break
            except OSError:  # its last tasks are still being released
                if time.monotonic() > deadline:
                    return removed
                time.sleep(0.002)
    return removed


def create(memory_bytes: int, max_pids: int) -> Cgroup | None:
    """A fresh group for one sandbox, or None when no cgroup backend is usable."""
    kind, where = backend()
    if kind != "none":
        sweep_stale()
    if kind == "cgroup v2":
        return CgroupV2(where, memory_bytes, max_pids)  # type: ignore[arg-type]
    if kind == "cgroup v1":
        return CgroupV1(where, memory_bytes, max_pids)  # type: ignore[arg-type]
    return None
