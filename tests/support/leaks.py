"""What a test left of its sandboxes: the ``no_leaks`` fixture's checks (tests/bots/conftest.py).

Other processes on the machine run sandboxes too: the other test processes of a parallel
pass, and the Celery workers of the worker tests beside it. A worker a test stops leaves its
sandboxes for a moment, their slots no longer held, until they are ended. So a sandbox
process left over counts against this test process only when this process, or a process it
started, launched it. Every sandbox's control group is named after the process that launched
it (``bot-<pid>-<token>``, bots.sandbox.cgroups.group_name), which no sandbox process can
change; without cgroups, bwrap's environment names it (bots.sandbox.orphans.OWNER), on the
process or an ancestor. A process that names no launcher at all counts as left over.
"""

from __future__ import annotations

import os
import re

from bots.sandbox import orphans, slots

_GROUP = re.compile(r"/bot-(\d+)-[0-9a-f]+$")


def slot_processes() -> list[int]:
    """Live processes of a sandbox uid whose slot nobody holds: left behind, by anyone."""
    found = []
    for pid in slots.all_slot_processes():
        try:
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        if not slots.held(uid):
            found.append(pid)
    return found


def thread_children(pid: int, tid: int) -> list[int]:
    """The processes thread ``tid`` of ``pid`` started (none once either is gone)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def own_children() -> list[int]:
    me = os.getpid()
    return [kid for tid in os.listdir(f"/proc/{me}/task") for kid in thread_children(me, int(tid))]


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def launcher_of(pid: int) -> int | None:
    """The pid of the process that launched the sandbox ``pid`` belongs to, or None when
    neither its control group nor bwrap's environment above it names one."""
    try:
        with open(f"/proc/{pid}/cgroup") as handle:
            for line in handle:
                if found := _GROUP.search(line.rstrip()):
                    return int(found.group(1))
    except OSError:
        return None
    walk: int | None = pid
    while walk is not None and walk > 1:
        token = orphans._owner(walk)
        if token is not None:
            try:
                return int(token.split(":")[1])
            except (IndexError, ValueError):
                return None
        walk = _parent(walk)
    return None


def descends_from(pid: int, ancestor: int) -> bool:
    walk: int | None = pid
    while walk is not None and walk > 1:
        if walk == ancestor:
            return True
        walk = _parent(walk)
    return False


def launched_here(pid: int, me: int | None = None) -> bool:
    """Whether the sandbox process ``pid`` is this process's to answer for: launched by it or
    by a live process it started, or by no process anything names."""
    me = os.getpid() if me is None else me
    launcher = launcher_of(pid)
    return launcher is None or descends_from(launcher, me)


def left_here(before: set[int] | None = None) -> list[int]:
    """Sandbox processes left over (slot not held) that this process answers for, but those
    in ``before``."""
    return [p for p in slot_processes() if p not in (before or ()) and launched_here(p)]
