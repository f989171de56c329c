"""Ending what a worker that died hard left of its sandboxes, in either mode.

bwrap's monitor dies with the worker (PR_SET_PDEATHSIG, set by the launcher), but the
sandbox's first process, which the monitor clones, arms its own death signal only at the
end of its set-up. A worker killed before then leaves that process behind, reparented to
the machine's init:

- asleep for good before its set-up, waiting for the dead monitor to tell it to go on (an
  eventfd bwrap never writes), or at bwrap's ``--block-fd`` (spawn.gate_pipe, which never reads
  end-of-file). It is still bwrap's own code, and its environment still holds :data:`OWNER`,
  naming the worker process that launched it;
- or, when the monitor died in the few instructions between that gate and the death signal,
  running the bot's program with nothing above it: pid 1 of its own pid namespace, under
  the hard rlimits every sandbox gets (no core files, no locked memory), whose parent is not
  a bwrap monitor.

A root worker's sandboxes run as slot uids (bots/sandbox/slots.py), so whatever runs as
a slot uid that no sandbox holds is left over too. :func:`sweep` ends all of these. The
worker runs it at start-up, the reaper periodically, and a launch that finds the staging
folder of a worker process that died (bots/sandbox/jail.py).
"""

from __future__ import annotations

import logging
import os
import signal

from bots.sandbox import slots

log = logging.getLogger("arena.sandbox")

# In bwrap's environment (never the bot's: bwrap clears it before the program starts):
# "<pid namespace>:<pid>:<start time>" of the worker process that launched the sandbox.
OWNER = "ARENA_SANDBOX_OWNER"

_TOKENS: dict[int, str] = {}  # by pid: a forked pool process has its own


def _stat(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _comm(pid: int | str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/comm", "rb") as handle:
            return handle.read().strip()
    except OSError:
        return None


def _pid_namespace() -> int:
    return os.stat("/proc/self/ns/pid").st_ino


START_TIME = 19  # /proc/<pid>/stat's 22nd field, counted after the command name


def owner_token() -> str:
    """What :data:`OWNER` holds for a sandbox this process launches."""
    pid = os.getpid()
    if pid not in _TOKENS:
        fields = _stat(pid)
        started = fields[START_TIME].decode() if fields else "0"
        _TOKENS[pid] = f"{_pid_namespace()}:{pid}:{started}"
    return _TOKENS[pid]


def owner_gone(token: str) -> bool:
    """Whether the worker process ``token`` names has exited. An owner in another pid
    namespace cannot be judged from here: never gone."""
    try:
        namespace, pid, started = (int(part) for part in token.split(":"))
    except ValueError:
        return False
    if namespace != _pid_namespace():
        return False
    fields = _stat(pid)
    return fields is None or fields[0] == b"Z" or int(fields[START_TIME]) != started


def _owner(pid: int | str) -> str | None:
    """The :data:`OWNER` in ``pid``'s environment, if it is ours to read."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return None
    prefix = OWNER.encode() + b"="
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].decode(errors="replace")
    return None


def _ns_depth(pid: int | str) -> tuple[int, int] | None:
    """(how many pid namespaces ``pid`` is in, its pid in the innermost), from NSpid."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"NSpid:"):
                    pids = line.split()[1:]
                    return len(pids), int(pids[-1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _sandbox_rlimits(pid: int | str) -> bool:
    """Hard limits of 0 for core files and locked memory: every sandbox gets them
    (spawn.rlimits), and no process can raise a hard limit again."""
    try:
        with open(f"/proc/{pid}/limits") as handle:
            text = handle.read()
    except OSError:
        return False
    hard = {}
    for line in text.splitlines():
        for name in ("Max core file size", "Max locked memory"):
            if line.startswith(name):
                hard[name] = line[len(name) :].split()[1]
    return hard == {"Max core file size": "0", "Max locked memory": "0"}


def _ours(uid: int) -> bool:
    """Whether a process of ``uid`` may be one of this worker's sandboxes."""
    if slots.can_switch_uid():
        return slots.SLOT_UID_BASE <= uid < slots.SLOT_UID_BASE + slots.SLOT_COUNT
    return uid == os.geteuid()


def _orphaned(pid: str, depth: int) -> bool:
    """Whether ``pid`` is what a dead worker left of one of its sandboxes."""
    fields = _stat(pid)
    if fields is None or fields[0] == b"Z":
        return False
    if _comm(pid) == b"bwrap":
        token = _owner(pid)
        if token is not None:
            return owner_gone(token)
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return False
    if not _ours(uid):
        return False
    where = _ns_depth(pid)
    if where is None or where != (depth + 1, 1):
        return False  # not the first process of a pid namespace just below ours
    return _comm(int(fields[1])) != b"bwrap" and _sandbox_rlimits(pid)


def _kill(pid: str, depth: int) -> bool:
    """SIGKILL ``pid`` through a pidfd, after checking again that it is the same orphan (a
    pid can be reused between the scan and the kill)."""
    try:
        fd = os.pidfd_open(int(pid))
    except OSError:
        return False
    try:
        if not _orphaned(pid, depth):
            return False
        signal.pidfd_send_signal(fd, signal.SIGKILL)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def sweep() -> int:
    """End every process a dead worker left of its sandboxes (see the module's docstring),
    and free the slot uids nobody holds; how many processes were ended.

    One pass over /proc: the status of each process is read only for bwrap's processes and
    for first processes of a namespace below ours run by a sandbox's uid."""
    depth_self = _ns_depth("self")
    depth = depth_self[0] if depth_self else 1
    me = str(os.getpid())
    ended = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != me and _orphaned(pid, depth) and _kill(pid, depth):
            ended += 1
    ended += slots.reclaim_unheld()
    if ended:
        log.warning(
            "ended %d process(es) of sandboxes whose worker process died while starting them",
            ended,
        )
    return ended
