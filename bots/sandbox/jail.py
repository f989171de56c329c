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
  and pid 1 of the namespace taking every other process with it); what a worker killed
  while bwrap was still setting the sandbox up leaves is ended by bots/sandbox/orphans.py.

Without bubblewrap, untrusted programs are refused (:class:`SandboxUnavailable`) unless the
operator sets ``ARENA_TRUSTED_BOTS_ONLY=1``; then bots run as plain subprocesses with
rlimits, and a loud warning is logged.

This module decides what is in force (is bubblewrap usable, can /tmp be bounded in files,
which mode the worker runs in) and launches; the command line and the steps around fork and
exec are in bots/sandbox/spawn.py, the bounds themselves in bots/sandbox/limits.py.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path

from bots.sandbox import botprocess, cgroups, launcher, orphans, seccomp, slots
from bots.sandbox.botprocess import BotProcess
from bots.sandbox.limits import Limits
from bots.sandbox.spawn import (
    attach_and_release,
    attach_held,
    bwrap_argv,
    bwrap_path,
    gate_pipe,
    preexec,
    rlimits,
    scratch_mountpoint,
    scratch_options,
)

log = logging.getLogger("arena.sandbox")

SDK_DIR = Path(__file__).resolve().parent.parent / "sdk"  # bots/sdk
PYTHON_CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")


class SandboxUnavailable(RuntimeError):
    """No bubblewrap and no explicit trusted-only mode: an untrusted program must not run."""


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


def entry_argv(staged: Path | None, sandboxed: bool) -> list[str]:
    """How a bot's folder is started: ``python3 main.py`` when it holds one, else its
    executable ``main`` (an ELF binary or a #! script; see bots/sandbox/languages.py)."""
    if staged is None or (staged / "main.py").is_file():
        return [bot_python(), "-s", "-B", "/bot/main.py" if sandboxed else "main.py"]
    return ["/bot/main" if sandboxed else str(staged / "main")]


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


def describe_memory() -> str:
    """Which bound a bot's memory lives under, for the worker's start-up line."""
    kind, _where = cgroups.backend()
    mib = Limits().memory_mb
    if kind != "none":
        return f"{kind} per bot tree, {mib} MiB"
    if os.environ.get("ARENA_NO_CGROUPS") == "1":
        why = "ARENA_NO_CGROUPS=1"
    else:
        why = f"no delegated cgroup v2 ({cgroups.v2_unavailable_reason()})"
    processes = Limits().processes
    return (
        f"per-process rlimit, {mib} MiB each; {why}; a bot's {processes} processes may use "
        f"{processes} times that, the worker's container bounding all bots together"
    )


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
        launcher.describe(),
        "pause: " + _pause_mechanism(kind, _where),
    ]


def _pause_mechanism(kind: str, where: object) -> str:
    if kind == "none":
        return "SIGSTOP of every process of the bot, every turn"
    if kind == "cgroup v1" and cgroups.UNIFIED in where:  # type: ignore[operator]
        real = "cgroup v2 freezer (the bot's whole tree, not bwrap's monitor; hybrid opt-in)"
    else:
        real = f"SIGSTOP, the {kind} freezer when the bot has other processes"
    if botprocess.STRICT_PAUSE:
        return f"{real}, every turn (ARENA_STRICT_PAUSE=1)"
    return (
        f"lazy (its CPU time read each turn), {real} once it computes off its turns or while "
        "another seat's move runs past 5 ms"
    )


_SDK_STAGED: Path | None = None
# Whether /tmp is the launcher's bounded tmpfs (decided by the probe in sandbox_available).
_SCRATCH_BOUNDED = True


def nproc_per_userns() -> bool:
    """Linux >= 5.14 counts RLIMIT_NPROC per user namespace (ucounts)."""
    try:
        major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


# Where a group offers a cheap join (Cgroup.join_paths: cgroup v1), the launcher joins it
# itself before it execs bwrap. Elsewhere bwrap's monitor is moved in from outside while it
# builds the sandbox, which hides part of the move's wait behind that work (_GATED; False:
# the launcher moves itself through cgroup.procs before exec, and waits).
_SELF_JOIN = True
_GATED = True


def _staged_sdk() -> Path:
    global _SDK_STAGED
    if _SDK_STAGED is None or not _SDK_STAGED.is_dir():
        _SDK_STAGED = slots.stage(SDK_DIR)
    return _SDK_STAGED


_WARNED = False


def launch(bot_dir: Path | None, limits: Limits, argv: list[str] | None = None) -> BotProcess:
    """Start the bot in ``bot_dir`` (``main.py`` or ``main``, see ``entry_argv``), or
    ``argv``, in a sandbox; pipes on 0/1/2."""
    return _checked_launch(bot_dir, limits, argv, hold=False)


def prepare(bot_dir: Path | None, limits: Limits, argv: list[str] | None = None) -> BotProcess:
    """Everything ``launch`` does but start the program: the bot's files staged, its uid
    and cgroup taken, bubblewrap's sandbox built and moved into the group. The program
    waits on bwrap's ``--block-fd`` until ``BotProcess.release()``; until then nothing of
    the bot has run. ``close()`` without a release kills the waiting sandbox.

    Only where bots are sandboxed: without bubblewrap (trusted-bots-only mode) this is
    ``launch`` itself, so call it only where the program may start at once.

    Call it from the thread that will play the match: bwrap dies with the thread that
    started it (PR_SET_PDEATHSIG), so a prepared sandbox never outlives its worker."""
    return _checked_launch(bot_dir, limits, argv, hold=True)


def _checked_launch(
    bot_dir: Path | None, limits: Limits, argv: list[str] | None, hold: bool
) -> BotProcess:
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
    return _launch(bot_dir, limits, argv, sandboxed, hold=hold)


def _launch(
    bot_dir: Path | None,
    limits: Limits,
    argv: list[str] | None,
    sandboxed: bool,
    hold: bool = False,
) -> BotProcess:
    staged = slots.stage(bot_dir) if bot_dir is not None else None
    slot = slots.acquire()
    group = None
    try:
        group = cgroups.create(limits.memory_mb << 20, limits.processes + 1)  # + the monitor
        program = argv or entry_argv(staged, sandboxed)
        pass_fds: tuple[int, ...] = ()
        # The launcher joins the group itself where that is cheap (Cgroup.join_paths).
        # Otherwise, and whenever the bots have no uid of their own or the sandbox is
        # prepared ahead, bwrap builds the sandbox, then waits on a pipe before it execs the
        # program; meanwhile we move it into its cgroup (see Cgroup.attach) and set its
        # process limit (see attach_and_release). Nothing of the bot runs before the release.
        per_userns_nproc = sandboxed and slot.uid is None and nproc_per_userns()
        join = group.join_paths() if (group is not None and _SELF_JOIN) else None
        gated = sandboxed and (
            hold or (group is not None and join is None and _GATED) or per_userns_nproc
        )
        gate = gate_pipe() if gated else None
        bot_only = gated and group is not None and group.bot_only  # see attach_held
        info = os.pipe() if (per_userns_nproc or bot_only) else None
        scratch_dir = scratch_mountpoint() if (sandboxed and _SCRATCH_BOUNDED) else None
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
            # bwrap's own environment, never the bot's (--clearenv): which worker process
            # launched it, should that process die before the sandbox is under way.
            env: dict[str, str] = {orphans.OWNER: orphans.owner_token()}
        else:
            cmd = program
            sdk = str(_staged_sdk())
            env = {"PYTHONPATH": sdk, "NODE_PATH": sdk, "HOME": "/tmp", "LANG": "C.UTF-8"}
            env["PATH"] = "/usr/bin:/bin"
        steps = (
            join or (group.attach_paths() if (group and not gate) else []),
            rlimits(limits, slot.uid is not None, group is not None),
            slot.uid, os.getpid(), scratch,
        )  # fmt: skip
        # The same steps, either in a preexec after a fork of this process, or in the C
        # launcher after a vfork (bots/sandbox/launcher.py): then they run after its exec,
        # and its report pipe tells when they are done, or why they failed.
        if slots.dead_owner_seen():  # a worker process died here since the last look
            orphans.sweep()
        program_launcher = launcher.path()
        report = os.pipe() if program_launcher else None
        if report:
            cmd = launcher.argv(program_launcher, report[1], *steps) + cmd
            pass_fds += (report[1],)
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, close_fds=True, pass_fds=pass_fds, env=env,
                cwd=str(staged) if (staged is not None and not sandboxed) else "/",
                start_new_session=True,
                preexec_fn=None if report else preexec(*steps),
            )  # fmt: skip
        except BaseException:
            _close(gate and gate[1], info and info[0], report and report[0])
            raise
        finally:
            for fd in pass_fds:
                os.close(fd)
        if report:
            try:
                launcher.check_report(proc, report[0])
            except BaseException:
                _close(gate and gate[1], info and info[0])
                raise
        held = None
        outside = None if join else group  # joined already: nothing to move from outside
        if gate:
            # With a pids cgroup too, only a backstop (as in rlimits): the group refuses.
            nproc = (limits.processes * (2 if group else 1)) if per_userns_nproc else None
            if hold:  # released later by BotProcess.release()
                attach_held(proc, outside, gate[1], info and info[0], nproc)
                held = gate[1]
            else:
                attach_and_release(proc, outside, gate[1], info and info[0], nproc)
    except BaseException:
        if group is not None:
            group.kill_all()
            group.remove()
        slot.release()
        if staged is not None:
            slots.unstage(staged)
        raise
    return BotProcess(proc, slot, group, staged, sandboxed, gate=held)


def _close(*fds: int | None) -> None:
    """Our ends of a failed launch's pipes (None: a pipe this launch did not make)."""
    for fd in fds:
        if fd is not None:
            os.close(fd)


def wait_gone(pids: list[int], timeout: float = 2.0) -> bool:
    """True once none of ``pids`` exists (tests use it to prove nothing leaked)."""
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{p}").exists() for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
