"""A launched bot program: pause/resume between turns, CPU time, limit verdicts, kill-all.

Split from bots/sandbox/jail.py, which builds the sandbox and launches it (``sandbox.launch``).
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import weakref
from pathlib import Path

from bots.sandbox import cgroups, slots, spawn

log = logging.getLogger("arena.sandbox")

# Lazy pauses. A seat not on move almost always sleeps in read() on its stdin, so the runner
# does not stop it (SIGSTOP and SIGCONT cost two wake-ups of the bot and two of bwrap's
# monitor, about as much as the move's round trip itself); its cgroup CPU time, read when it
# answered, is read again at every pause the runner asks for and when its turn comes round
# (before it is handed the act). A timer signal or an inotify watch could wake it to compute
# off its turns; two things bound that:
# - another program seat's move (ProgramPlayer.act) that runs past LAZY_GRACE_S stops every
#   lazily paused bot for real (stop_lazy_pauses), and what it used meanwhile counts too;
# - once its CPU time off its turns passes OFF_TURN_BUDGET_NS over the match, it is paused
#   for real on every later turn.
# So a bot computes at most the budget plus one grace per core it keeps busy (or one move of
# a built-in seat, microseconds, not timed) off its turns, then nothing. The off-turn time is
# not a fault (a JVM's JIT and GC threads use some legitimately) and not taken from its time
# bank, which is wall time: it counts in the CPU time of its next move and towards its CPU
# limit. ARENA_STRICT_PAUSE=1 pauses for real on every turn.
LAZY_GRACE_S = 0.005
OFF_TURN_BUDGET_NS = 5_000_000
STRICT_PAUSE = os.environ.get("ARENA_STRICT_PAUSE") == "1"
# Weak: a box dropped without close() (a bug elsewhere) must not be kept alive by this.
_LAZY: weakref.WeakSet[BotProcess] = weakref.WeakSet()


def stop_lazy_pauses() -> None:
    """Stop for real every bot of this process that is only lazily paused."""
    for box in list(_LAZY):
        box.stop_now()


def any_lazy_pause() -> bool:
    return bool(_LAZY)


class BotProcess:
    """One launched program: pipes, pause/resume, CPU time, limit verdicts, kill-all."""

    def __init__(self, proc: subprocess.Popen, slot: slots.Slot, group: cgroups.Cgroup | None,
                 staged: Path | None, sandboxed: bool, gate: int | None = None):  # fmt: skip
        self.proc = proc
        self._gate = gate  # a prepared sandbox's program waits for a byte here (release())
        self.slot = slot
        self.slot_uid = slot.uid  # kept after close, for checks that nothing of it is left
        self.group = group
        self.staged = staged
        self.sandboxed = sandboxed
        self.paused = False
        self._frozen = False
        self._bot: int | None = None if sandboxed else proc.pid
        self._stat_fd: int | None = None
        self._closed = False
        # Whether pause(lazy=True) may skip the stop: it needs the group's CPU time (one pread;
        # without a group it would walk /proc), and ends for good once the bot is caught
        # computing off its turns.
        self.lazy_pauses = group is not None and not STRICT_PAUSE
        self._lazy = False
        self._mark = 0  # group CPU ns at the last reading while lazily paused
        self._seen_ns: int | None = None  # the group's CPU ns at the last cpu_ms() since resume
        self.off_turn_ns = 0  # CPU time seen while lazily paused, over the match

    @property
    def held(self) -> bool:
        """Prepared (``sandbox.prepare``) and not released yet: the program has not started."""
        return self._gate is not None

    def release(self) -> None:
        """Let a prepared sandbox's program start; nothing to do for a launched one."""
        if self._gate is not None and not self._closed:
            gate, self._gate = self._gate, None
            spawn.release(self.proc, gate)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def wait(self, timeout: float) -> int | None:
        """Exit status, or None if still running after ``timeout`` s. Waits on a pidfd:
        Popen.wait(timeout) polls with sleeps growing to 50 ms."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        try:
            fd = os.pidfd_open(self.proc.pid)
        except OSError:  # no pidfd (old kernel): fall back to polling
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        finally:
            os.close(fd)
        return self.proc.wait() if ready else None

    def _tree(self) -> list[int]:
        """The monitor's descendants, from /proc children lists (the no-cgroup fallback)."""
        out, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as handle:
                    kids = [int(p) for p in handle.read().split()]
            except OSError:
                kids = []
            out += kids
            todo += kids
        return out

    def _bot_pid(self) -> int | None:
        """The program itself (pid 1 of its namespace), the monitor's only child."""
        if self._bot is None:
            kids = self._children(self.proc.pid)
            self._bot = kids[0] if len(kids) == 1 else None
        return self._bot

    def _threads(self, pid: int) -> int:
        """Thread count of ``pid`` from a kept /proc/<pid>/stat descriptor (0 if unknown)."""
        try:
            if self._stat_fd is None:
                self._stat_fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            fields = os.pread(self._stat_fd, 1024, 0).rsplit(b")", 1)[1].split()
            return int(fields[17])
        except (OSError, IndexError, ValueError):
            return 0

    @staticmethod
    def _children(pid: int) -> list[int]:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as handle:
                return [int(p) for p in handle.read().split()]
        except OSError:
            return []

    def pause(self, lazy: bool = False) -> None:
        """Stop the bot between its turns so it cannot think on another seat's time.

        SIGSTOP the program, which stops all its threads; a fork racing the signal is
        restarted by the kernel after the stop, so if the group then holds no other process,
        nothing can run; otherwise the freezer (a costlier write) stops the whole tree.
        With the opt-in hybrid v2 freezer (``ARENA_CGROUP_HYBRID=1``, see cgroups.py), one
        write freezes the whole tree at once: every thread and process, and any child forked
        meanwhile (a fork into a freezing group is born frozen).

        ``lazy`` (what the runner asks for, see :data:`OFF_TURN_BUDGET_NS`): no signal, only
        a reading of the group's CPU time; the bot is stopped for real if another seat's move
        outlasts :data:`LAZY_GRACE_S` (:func:`stop_lazy_pauses`), and for the rest of the
        match once its CPU time off its turns passes the budget.
        """
        if self._closed:
            return
        if self.paused:
            if self._lazy:
                self._count_off_turn(stop=True)
            return
        self.paused = True
        if lazy and self.lazy_pauses:
            self._lazy = True
            # The reading the runner took when the bot answered, if any: it can only be lower
            # than one taken now, so what the bot does from then on counts as off its turn.
            seen, self._seen_ns = self._seen_ns, None
            self._mark = seen if seen is not None else self.group.cpu_ns()  # type: ignore[union-attr]
            _LAZY.add(self)
            return
        self._stop()

    def _count_off_turn(self, stop: bool) -> None:
        """Add the CPU time the lazily paused bot used since the last reading to its off-turn
        total; past the budget, pause it for real from now on (``stop``: at once)."""
        now = self.group.cpu_ns()  # type: ignore[union-attr]
        self.off_turn_ns += now - self._mark
        self._mark = now
        if self.off_turn_ns > OFF_TURN_BUDGET_NS and self.lazy_pauses:
            self.lazy_pauses = False
            log.info("bot %s used %.1f ms of CPU off its turns: paused strictly from now on",
                     self.pid, self.off_turn_ns / 1e6)  # fmt: skip
            if stop:
                self.stop_now()

    def stop_now(self) -> None:
        """Turn a lazy pause into a real one (another seat's move is taking long). What it
        computed meanwhile counts towards its off-turn budget, so a bot spinning in every
        grace is soon paused for real on every turn."""
        if self._lazy and not self._closed:
            self._count_off_turn(stop=False)
            self._lazy = False
            _LAZY.discard(self)
            self._stop()

    def _stop(self) -> None:
        if self.group is not None and self.group.whole_tree_freeze:
            self.group.freeze()
            self._frozen = True
            return
        bot = self._bot_pid()
        if self.group is not None:
            if bot is not None:
                _signal(bot, signal.SIGSTOP)
                monitor = 1 if self.sandboxed else 0
                tasks = self.group.tasks()
                # A single-threaded bot (most Python bots) needs no thread count from /proc.
                if tasks <= 1 + monitor or tasks <= self._threads(bot) + monitor:
                    return  # nothing in the group but the (stopping) bot and bwrap's monitor
            self.group.freeze()
            self._frozen = True
        else:
            for pid in self._tree():
                _signal(pid, signal.SIGSTOP)

    @property
    def stopped(self) -> bool:
        """Paused for real (signal or freezer), not lazily."""
        return self.paused and not self._lazy

    def resume(self) -> None:
        """Let the bot run again. A lazily paused bot was never stopped: its CPU time off
        its turn is counted here, so call this before handing it the message it wakes to."""
        self._seen_ns = None
        if not self.paused or self._closed:
            return
        self.paused = False
        if self._lazy:
            self._lazy = False
            _LAZY.discard(self)
            self._count_off_turn(stop=False)
            return
        if self.group is not None:
            if self._frozen:
                self.group.thaw()
                self._frozen = False
            if self._bot is not None:
                _signal(self._bot, signal.SIGCONT)
        else:
            for pid in self._tree():
                _signal(pid, signal.SIGCONT)

    def cpu_ms(self) -> int | None:
        """CPU time of every thread and process of the bot so far."""
        if self.group is not None:
            self._seen_ns = self.group.cpu_ns()
            return self._seen_ns // 1_000_000
        ticks = 0
        for pid in [self.proc.pid, *self._tree()]:
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                ticks += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
            except (OSError, IndexError, ValueError):
                continue
        return ticks * 1000 // os.sysconf("SC_CLK_TCK")

    def closed_stdio(self) -> str | None:
        """Which pipe ("stdin" or "stdout") the running bot has closed, if any. It shows as a
        timeout (bwrap's monitor holds the other copy); /proc/<pid>/fd is the kernel's view."""
        bot = self._bot_pid()
        if bot is None or self.proc.poll() is not None:
            return None
        for fd, name in ((1, "stdout"), (0, "stdin")):
            if not os.path.lexists(f"/proc/{bot}/fd/{fd}"):
                return name
        return None

    def limit_hit(self, stderr_tail: str = "") -> str | None:
        """Which limit killed or choked the bot, if any: "memory", "processes" or "cpu".

        The cgroup's counters say so exactly; without a cgroup, the rlimits' usual effects
        on a Python bot (MemoryError, EAGAIN from fork, no new thread) in its stderr."""
        rc = self.proc.poll()
        if rc is not None and rc in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            return "cpu"
        if self.group is not None:
            if self.group.oom_killed():
                return "memory"
            if self.group.pids_hit():
                return "processes"
            return None
        # A fork bomb's children go on writing half tracebacks after the bot itself died,
        # so the telling line can be anywhere in what was kept. A bot faking it gains
        # nothing: every fault ranks last.
        if "MemoryError" in stderr_tail:
            return "memory"
        if (
            "Resource temporarily unavailable" in stderr_tail
            or "can't start new thread" in stderr_tail
        ):
            return "processes"
        return None

    def kill(self) -> None:
        """Kill the bot's whole tree now, bwrap's monitor left to reap it and exit by itself;
        ``close`` does the rest later (reap, cgroup, slot, staged copy). For a finished match
        whose teardown waits for a moment the worker would sit idle (bots/held_sandboxes.py): nothing
        of the bot runs meanwhile. Usually one read of the group's process list (the bot has
        exited after "end")."""
        if self._closed:
            return
        _LAZY.discard(self)
        if self.group is not None:
            # bwrap's monitor (or an unsandboxed bot) is in the group, and counted until we
            # reap it: a count no higher than that leaves nothing else to kill.
            if not self.group.holds_at_most(1 if self.proc.returncode is None else 0):
                self.group.kill_all(spare=self.proc.pid)
        else:
            for pid in self._tree():
                _signal(pid, signal.SIGKILL)  # pid 1 of the namespace takes the rest with it

    def close(self) -> None:
        """Kill the whole tree, reap it, check nothing of the slot is left, free the slot.

        The bot goes first and bwrap's monitor reaps it and exits by itself; killing the
        monitor first would hand the bot's zombie to the machine's init.
        """
        if self._closed:
            return
        self.kill()
        self._closed = True
        monitor = self.proc.pid
        if self.wait(2) is None:
            _signal(monitor, signal.SIGKILL)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                log.error("sandbox monitor %s did not die", monitor)
        if self._gate is not None:  # never released: closed only once nothing waits on it
            os.close(self._gate)
            self._gate = None
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        if self._stat_fd is not None:
            os.close(self._stat_fd)
            self._stat_fd = None
        clean = True
        if self.group is not None:  # the group holds every process of the slot: authoritative
            clean = self.group.kill_all()
            self.group.remove()
        elif self.slot.uid is not None and slots.uid_processes(self.slot.uid):
            clean = slots.kill_uid(self.slot.uid)
        if clean:
            self.slot.release()
        else:
            log.error("processes of sandbox uid %s survived; its slot stays locked", self.slot.uid)
        if self.staged is not None:
            slots.unstage(self.staged)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
