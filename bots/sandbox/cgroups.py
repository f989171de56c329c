"""Per-bot control groups: memory, pids, freezer and CPU accounting for one sandbox.

Two backends, chosen once per process by :func:`backend`:

- cgroup v2, when the operator delegates a subtree (``ARENA_CGROUP_V2=/sys/fs/cgroup/...``,
  a directory we may write whose ``cgroup.subtree_control`` enables ``memory`` and ``pids``);
- cgroup v1, when the v1 ``memory``, ``pids``, ``freezer`` and ``cpuacct`` hierarchies are
  mounted and writable (a root worker in a container, as on the development machines).
  With ``ARENA_CGROUP_HYBRID=1``, where the machine also mounts the unified (v2) hierarchy
  beside them ("hybrid"), each sandbox gets a v2 group too, holding the bot's tree but not
  bwrap's monitor, for its freezer and CPU time only: ``cgroup.freeze`` stops the whole tree
  without waking the monitor (SIGSTOP and SIGCONT each send it a SIGCHLD) and without
  counting the tree's tasks first. Memory and pids stay with the v1 controllers. It is off
  by default: every write to ``cgroup.freeze`` takes the kernel's cgroup_mutex, which any
  sandbox launch on the machine holds while its first cgroup move waits for an RCU grace
  period, so under concurrent launches a pause or resume stalls for up to ~10-20 ms (p99
  11 ms measured, against 0.6 ms for SIGSTOP/SIGCONT; see bench/README.md).

The group's own files are handled in bots/sandbox/control_group.py (re-exported here); this
module decides the backend, creates groups and sweeps those of dead workers.

Each sandbox gets a fresh group, created under the worker's own group of each hierarchy so
the container's limits still apply above it. The group is removed when the sandbox ends.
No Django import: the worker, ``manage.py play`` and the tests share this module.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import signal
import time
from pathlib import Path

from bots.sandbox.control_group import (  # noqa: F401 (re-exported: the names users know)
    UNIFIED,
    V1_CONTROLLERS,
    Cgroup,
    CgroupV1,
    CgroupV2,
    _read,
    _write,
)
from bots.sandbox.slots import owner_gone

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


def _v2_base() -> Path | None:
    configured = os.environ.get("ARENA_CGROUP_V2")
    if not configured:
        return None
    base = Path(configured)
    enabled = _read(base / "cgroup.subtree_control").split()
    if "memory" in enabled and "pids" in enabled and os.access(base, os.W_OK):
        return base
    return None


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


# How long a sweep waits for a stale group's killed tasks to exit (they die in ms when idle;
# a loaded machine tearing down a bot's namespaces has taken over 100 ms).
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
            fd = os.open(lock_base / name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
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
    return removed + _sweep_orphans(bases, lock_base)


def _sweep_orphans(bases: list[Path], lock_base: Path) -> int:
    """Groups of a dead maker left in another hierarchy without their lock directory (an
    older release removed the pids group even when the memory group was still busy): nothing
    can hold them, so their maker being gone is enough. A live maker's group may be half
    made (its pids directory comes after the memory one): left alone."""
    removed = 0
    for base in bases:
        if base == lock_base:
            continue
        try:
            names = [e.name for e in os.scandir(base) if e.name.startswith("bot-")]
        except OSError:
            continue
        for name in names:
            if not (lock_base / name).exists() and owner_gone(name):
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
