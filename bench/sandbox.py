"""Sandbox overhead, measured side by side in one run (not a test).

    .venv/bin/python bench/sandbox.py [--starts 40] [--trips 3000]

1. Bot start: ``python3 -I -c pass`` as a plain subprocess vs the same command launched in the
   sandbox (staging, slot uid, cgroup, seccomp, bwrap) until it has exited and been cleaned up:
   cold (``sandbox.launch``; on cgroup v1 also as before, with bwrap's monitor moved into its
   group from outside instead of the launcher joining it), and from a sandbox prepared ahead (``sandbox.prepare``, as the
   runner does for every seat before the first start, and as a worker can for its next match:
   timed from ``release``). Then the parts: what a prepare costs, bwrap alone (and without
   a preexec_fn that switches to the slot uid, so that Python can vfork: what a fork of a
   small process costs; the product vfork-starts its C launcher), the launch without a
   cgroup, one cgroup move; and the start of a two-seat match (two echo bots up to
   "ready") seat by seat as before, prepared first, and prepared first and started together
   (every seat released before the runner waits for any "ready"), as ``play_match`` now does.
2. Move round trip: one JSON line to an echo program and back through pipes, a plain child vs
   the sandboxed child, then a full ProgramPlayer.act alone (CPU reading, fault checks) and
   with two program seats: the runner's lazy pause of the other seat (a CPU reading, see
   bots/sandbox/botprocess.py), and real pauses, where each move stops the other seat and
   wakes this one (SIGSTOP, the freezer only for a bot with other processes; what a seat
   caught computing off its turns gets) and, on a hybrid machine, the opt-in v2 freezer
   (ARENA_CGROUP_HYBRID=1). Variants alternate in blocks,
   so each sees the same machine load, all pinned to one core (children included). Then
   one pause + resume, median and p99, while another process launches sandboxes: why the
   v2 freezer is not the default.
3. Start per language (issue 20; bench/sandbox_languages.py): each example bot of examples/bots/ (built first, as at
   validation, for those with a build step) from launch to its "ready", in the sandbox; and
   the build itself, once.
Aims (issue 18): start <= 1.6x plain, a two-seat move <= 2x a raw pipe; per language: ready
well within the start limit (Limits.start_ms, 5 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox_languages import bench_languages  # noqa: E402 - beside this file

from bots import sandbox  # noqa: E402
from bots.players import ProgramPlayer  # noqa: E402
from bots.sandbox import cgroups, jail, seccomp, slots  # noqa: E402
from bots.wire import Channel  # noqa: E402

ECHO = """
import sys
for line in sys.stdin:
    if line.startswith('{"type":"start"'):
        sys.stdout.write('{"type":"ready"}\\n')
    else:
        sys.stdout.write('{"type":"action","action":0}\\n')
    sys.stdout.flush()
"""
START_AIM, MOVE_AIM = 1.6, 2.0


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def verdict(ratio: float, aim: float) -> str:
    return f"x{ratio:.2f}   (aim <= {aim}x: {'met' if ratio <= aim else 'NOT met'})"


def bench_start(count: int) -> dict[str, float]:
    python = sandbox.bot_python()
    samples: dict[str, list[float]] = {
        k: []
        for k in (
            "plain",
            "cold",
            "cold_outside",
            "prepared",
            "prepare",
            "bare",
            "bare_vfork",
            "no_group",
        )
    }
    backend = cgroups.backend()
    argv = [python, "-I", "-c", "pass"]

    def as_slot() -> None:
        os.setgroups([])
        os.setresgid(slots.SLOT_UID_BASE, slots.SLOT_UID_BASE, slots.SLOT_UID_BASE)
        os.setresuid(slots.SLOT_UID_BASE, slots.SLOT_UID_BASE, slots.SLOT_UID_BASE)

    def timed(key: str, run) -> None:
        began = time.perf_counter()
        run()
        samples[key].append(time.perf_counter() - began)

    def cold() -> None:
        box = sandbox.launch(None, sandbox.Limits(), argv=argv)
        box.wait(10)
        box.close()

    def bare(vfork: bool = False) -> None:
        fd = seccomp.program_fd()
        cmd = jail.bwrap_argv(None, jail._staged_sdk(), sandbox.Limits(), fd)
        subprocess.run(
            cmd + argv, env={}, pass_fds=(fd,) if fd is not None else (),
            preexec_fn=as_slot if slots.can_switch_uid() and not vfork else None,
        )  # fmt: skip
        if fd is not None:
            os.close(fd)

    def cold_outside() -> None:  # the group joined from outside, as before (cgroup v2's way)
        jail._SELF_JOIN = False
        try:
            cold()
        finally:
            jail._SELF_JOIN = True

    for _ in range(count):  # interleaved, so every variant sees the same machine load
        timed("plain", lambda: subprocess.run(argv, check=True))
        timed("cold", cold)
        timed("cold_outside", cold_outside)
        began = time.perf_counter()
        box = sandbox.prepare(None, sandbox.Limits(), argv=argv)
        samples["prepare"].append(time.perf_counter() - began)
        time.sleep(0.02)  # a match plays meanwhile; bwrap finishes building the sandbox

        def prepared(box=box) -> None:
            box.release()
            box.wait(10)
            box.close()

        timed("prepared", prepared)
        timed("bare", bare)
        timed("bare_vfork", lambda: bare(vfork=True))
        cgroups._BACKEND = ("none", None)  # the whole launch, rlimits standing in
        try:
            timed("no_group", cold)
        finally:
            cgroups._BACKEND = backend
    return {k: median_ms(v) for k, v in samples.items()}


def bench_match_start(folder: Path, count: int) -> tuple[float, float, float]:
    """Two echo seats up to "ready": one after the other from scratch (as before issue 18),
    prepared both first and then started one after the other, and prepared first and
    started together (both released before waiting for either "ready", as play_match now
    does). Median ms of each."""
    samples: dict[str, list[float]] = {"before": [], "prepared": [], "together": []}
    for _ in range(count):
        for variant, times in samples.items():
            seats = [ProgramPlayer(folder, sandbox.Limits(), label=f"s{i}") for i in range(2)]
            began = time.perf_counter()
            if variant != "before":
                for seat in seats:
                    seat.prepare()
            if variant == "together":
                for seat in seats:
                    seat.begin_start({"game": "bench"})
                assert all(seat.finish_start() is None for seat in seats)
            else:
                for seat in seats:
                    assert seat.start({"game": "bench"}) is None
            times.append(time.perf_counter() - began)
            for seat in seats:
                seat.close()
    return (
        median_ms(samples["before"]),
        median_ms(samples["prepared"]),
        median_ms(samples["together"]),
    )


def bench_end(folder: Path, count: int) -> float:
    """Median ms of a seat's end + close (the echo bot reads until end of input and ignores
    "end"): its moment to log and exit, the kill, the cleanup."""
    samples = []
    for _ in range(count):
        seat = ProgramPlayer(folder, sandbox.Limits(), label="echo")
        seat.start({"game": "bench"})
        seat.act(MESSAGE["observation"], MESSAGE["legal"], CLOCK, move=1)
        began = time.perf_counter()
        seat.end({"seats": []})
        seat.close()
        samples.append(time.perf_counter() - began)
    return median_ms(samples)


def bench_cgroup_move(count: int) -> tuple[float, float, float | None] | None:
    """Moving a process into a fresh group: the first move after an idle spell (the lock's
    RCU grace period), one right after it, and a one-thread process joining by itself
    after an idle spell, as the launcher does where the group offers it (cgroup v1's
    ``tasks``; None elsewhere), timed inside that process."""
    if cgroups.backend()[0] == "none":
        return None
    first, warm, joins = [], [], []
    for _ in range(count):
        time.sleep(0.1)  # let the lock go idle, as between two bot starts in real use
        group = cgroups.create(64 << 20, 8)
        sleepers = [subprocess.Popen(["sleep", "5"]) for _ in range(2)]
        try:
            for sleeper, samples in zip(sleepers, (first, warm), strict=True):
                began = time.perf_counter()
                group.attach(sleeper.pid)
                samples.append(time.perf_counter() - began)
        finally:
            for sleeper in sleepers:
                sleeper.kill()
                sleeper.wait()
            group.kill_all()
            group.remove()
        time.sleep(0.1)
        group = cgroups.create(64 << 20, 8)
        paths = group.join_paths()
        if paths is not None:
            timing = ("import os, sys, time\nbegan = time.perf_counter()\n"
                      "for path in sys.argv[1:]:\n    fd = os.open(path, os.O_WRONLY)\n"
                      "    os.write(fd, b'0')\n    os.close(fd)\n"
                      "print(time.perf_counter() - began)")  # fmt: skip
            out = subprocess.run([sys.executable, "-c", timing, *paths], capture_output=True)
            joins.append(float(out.stdout))
        group.kill_all()
        group.remove()
    return median_ms(first), median_ms(warm), median_ms(joins) if joins else None


def hybrid_players(folder: Path) -> list[ProgramPlayer]:
    """Two started echo seats paused by the opt-in hybrid v2 freezer, where the machine
    offers one (cgroup v1 with the unified hierarchy mounted beside it); else []."""
    kind, where = backend = cgroups.backend()
    if kind != "cgroup v1" or cgroups.UNIFIED in where:  # type: ignore[operator]
        return []
    previous = os.environ.get("ARENA_CGROUP_HYBRID")
    os.environ["ARENA_CGROUP_HYBRID"] = "1"
    try:
        bases = cgroups._v1_bases()
        if bases is None or cgroups.UNIFIED not in bases:
            return []
        cgroups._BACKEND = (kind, bases)
        seats = [ProgramPlayer(folder, sandbox.Limits(), label=f"v2-{i}") for i in range(2)]
        for seat in seats:
            seat.start({"game": "bench"})
        return seats
    finally:
        cgroups._BACKEND = backend
        if previous is None:
            del os.environ["ARENA_CGROUP_HYBRID"]
        else:
            os.environ["ARENA_CGROUP_HYBRID"] = previous


LAUNCHER = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from bots import sandbox
sandbox.sandbox_available()
while True:
    box = sandbox.launch(None, sandbox.Limits(), argv=["/usr/bin/true"])
    box.wait(5)
    box.close()
    time.sleep(0.03)
"""


def bench_pause_under_launches(folder: Path) -> dict[str, tuple[float, float]]:
    """Median and p99 us of one pause + resume of a seat while another process launches a
    sandbox every ~30 ms (as concurrent workers, or a prepare for the next match, do): the
    default SIGSTOP path against the opt-in v2 freezer, whose writes wait for the kernel's
    cgroup_mutex that a launch holds across an RCU grace period."""
    seats = {"SIGSTOP": ProgramPlayer(folder, sandbox.Limits(), label="stop")}
    hybrid = hybrid_players(folder)
    if hybrid:
        seats["v2 freezer"] = hybrid[0]
        hybrid[1].close()
    seats["SIGSTOP"].start({"game": "bench"})
    root = str(Path(__file__).resolve().parents[1])
    launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, root])
    out = {}
    try:
        time.sleep(1)
        for name, seat in seats.items():
            samples = []
            stop = time.monotonic() + 3
            while time.monotonic() < stop:
                began = time.perf_counter()
                seat.box.pause()  # type: ignore[union-attr]  # a real pause, not the lazy one
                seat.box.resume()  # type: ignore[union-attr]
                samples.append(time.perf_counter() - began)
                time.sleep(0.0005)
            samples.sort()
            out[name] = (samples[len(samples) // 2] * 1e6, samples[int(len(samples) * 0.99)] * 1e6)
    finally:
        launcher.kill()
        launcher.wait()
        for seat in seats.values():
            seat.close()
    return out


MESSAGE = {"type": "act", "observation": {"hand": [1, 2, 3]}, "legal": [0, 1, 2]}
CLOCK = {"move_ms": 1000, "bank_ms": 0}


def trip(channel: Channel) -> float:
    began = time.perf_counter()
    channel.send(MESSAGE, time.monotonic() + 5)
    channel.recv(time.monotonic() + 5)
    return time.perf_counter() - began


def bench_round_trip(folder: Path, count: int) -> dict[str, float]:
    """Median us of each variant; they alternate in blocks of 25 moves."""
    python = sandbox.bot_python()
    proc = subprocess.Popen([python, "-I", str(folder / "main.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)  # fmt: skip
    plain = Channel(proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno(),
                    1 << 20, 1 << 40)  # fmt: skip
    box = sandbox.launch(folder, sandbox.Limits())
    boxed = Channel(box.proc.stdin.fileno(), box.proc.stdout.fileno(),
                    box.proc.stderr.fileno(), 1 << 20, 1 << 40)  # fmt: skip
    # A real seat: ProgramPlayer.act (CPU reading, fault checks). Alone, a bot is never
    # paused; with two program seats, each move pauses the other one and wakes this one.
    alone = ProgramPlayer(folder, sandbox.Limits(), label="echo")
    pair = [ProgramPlayer(folder, sandbox.Limits(), label=f"echo{i}") for i in range(2)]
    strict_pair = [ProgramPlayer(folder, sandbox.Limits(), label=f"strict{i}") for i in range(2)]
    # The opt-in pause (ARENA_CGROUP_HYBRID=1): cgroup v2's freezer beside the v1 groups.
    hybrid_pair = hybrid_players(folder)
    for seat in (alone, *pair, *strict_pair):
        seat.start({"game": "bench"})

    def two_seats(seats: list[ProgramPlayer], i: int, strict: bool = False) -> float:
        me, other = seats[i % 2], seats[1 - i % 2]
        began = time.perf_counter()
        if strict:  # a real pause, as for a bot caught computing off its turns
            other.box.pause()  # type: ignore[union-attr]
        else:
            other.pause()  # the runner's: lazy (bots/sandbox/botprocess.py)
        me.act(MESSAGE["observation"], MESSAGE["legal"], CLOCK, move=1)
        return time.perf_counter() - began

    def one_seat(_i: int) -> float:
        began = time.perf_counter()
        alone.act(MESSAGE["observation"], MESSAGE["legal"], CLOCK, move=1)
        return time.perf_counter() - began

    variants = {
        "plain": lambda _i: trip(plain),
        "sandbox": lambda _i: trip(boxed),
        "act alone": one_seat,
        "act two seats": lambda i: two_seats(pair, i),
        "act two seats, strict": lambda i: two_seats(strict_pair, i, strict=True),
    }
    if hybrid_pair:
        variants["act two seats, v2 freezer"] = lambda i: two_seats(hybrid_pair, i, strict=True)
    samples: dict[str, list[float]] = {k: [] for k in variants}
    block = 25
    for _ in range(4):  # warm up
        for run in variants.values():
            for i in range(block):
                run(i)
    for _ in range(max(1, count // block)):
        for name, run in variants.items():
            samples[name] += [run(i) for i in range(block)]
    proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        stream.close()
    box.close()
    lazy = all(seat.box.lazy_pauses for seat in pair)  # type: ignore[union-attr]
    for seat in (alone, *pair, *strict_pair, *hybrid_pair):
        seat.close()
    out = {k: median_ms(v) * 1000 for k, v in samples.items()}
    out["lazy kept"] = float(lazy)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--trips", type=int, default=3000)
    parser.add_argument("--language-starts", type=int, default=10)
    args = parser.parse_args()
    if not sandbox.sandbox_available():
        sys.exit("bubblewrap is not usable here: nothing to measure")
    print(sandbox.describe_enforcement())
    print(f"machine: {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    start = bench_start(args.starts)
    plain = start["plain"]
    print(f"start       plain {plain:8.2f} ms   sandbox, cold      {start['cold']:8.2f} ms   "
          + verdict(start["cold"] / plain, START_AIM))  # fmt: skip
    if cgroups.backend()[0] == "cgroup v1":
        outside = start["cold_outside"]
        print(f"  cold, bwrap's monitor moved into the group from outside (as before; cgroup v2 "
              f"still does) {outside:8.2f} ms   x{outside / plain:.2f}")  # fmt: skip
    print(f"            plain {plain:8.2f} ms   sandbox, prepared  {start['prepared']:8.2f} ms   "
          + verdict(start["prepared"] / plain, START_AIM)
          + "  (from release; prepared ahead)")  # fmt: skip
    print(f"  the prepare itself (staging, uid, cgroup and its move, bwrap)  "
          f"{start['prepare']:8.2f} ms")  # fmt: skip
    print(f"  bwrap alone (namespaces, mounts, seccomp, slot uid)           "
          f"{start['bare']:8.2f} ms   x{start['bare'] / plain:.2f}")  # fmt: skip
    print(f"    the same without preexec_fn, so vfork (NOT a safe launch: no slot uid) "
          f"{start['bare_vfork']:8.2f} ms   x{start['bare_vfork'] / plain:.2f}  (what Python's "
          "fork for a preexec_fn costs)")  # fmt: skip
    print(f"  the whole cold launch without a cgroup (rlimits only)         "
          f"{start['no_group']:8.2f} ms   x{start['no_group'] / plain:.2f}")  # fmt: skip
    moves = bench_cgroup_move(10)
    if moves is not None:
        print(f"  {cgroups.backend()[0]} move of a process from outside: first after 100 ms "
              f"idle {moves[0]:6.2f} ms, the next {moves[1]:6.2f} ms")  # fmt: skip
        if moves[2] is not None:
            print(f"    a one-thread process joining by itself (tasks), first after 100 ms idle "
                  f"{moves[2]:6.2f} ms (what the launcher does)")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "main.py").write_text(ECHO)
        before, prepared, together = bench_match_start(folder, max(3, args.starts // 4))
        print(f"two-seat match start-up (echo bots to ready): one after the other {before:7.1f}"
              f" ms, prepared first {prepared:7.1f} ms   x{prepared / before:.2f}, prepared and"
              f" started together {together:7.1f} ms   x{together / before:.2f}")  # fmt: skip
        ended = bench_end(folder, max(3, args.starts // 4))
        print(f"a seat's end and close (a bot reading until end of input) {ended:7.1f} ms")
        # Both sides on one core: on an idle two-core machine a plain child that sleeps on
        # the other core pays a cross-core wake-up per line (65 us against 12 us pinned),
        # which made the raw pipe look slower than the sandbox and every ratio flatter.
        cores = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(cores)})
        try:
            trips = bench_round_trip(folder, args.trips)
        finally:
            os.sched_setaffinity(0, cores)
    raw = trips["plain"]
    print(f"round trip  plain {raw:8.1f} us   sandbox {trips['sandbox']:8.1f} us   "
          f"x{trips['sandbox'] / raw:.2f}")  # fmt: skip
    print(f"  ProgramPlayer.act, one program seat          {trips['act alone']:8.1f} us   "
          f"x{trips['act alone'] / raw:.2f}")  # fmt: skip
    kept = "kept all along" if trips["lazy kept"] else "NOT kept: a seat was caught"
    print(f"  ProgramPlayer.act, two seats (lazy pause)    {trips['act two seats']:8.1f} us   "
          + verdict(trips["act two seats"] / raw, MOVE_AIM) + f"  lazy pauses {kept}")  # fmt: skip
    strict = trips["act two seats, strict"]
    print(f"    the same with real pauses (SIGSTOP + SIGCONT; a seat caught thinking off its "
          f"turns, ARENA_STRICT_PAUSE=1) {strict:8.1f} us   x{strict / raw:.2f}")  # fmt: skip
    hybrid = trips.get("act two seats, v2 freezer")
    if hybrid is not None:
        print(f"    real pauses by the opt-in v2 freezer (ARENA_CGROUP_HYBRID=1) {hybrid:8.1f} us   "
              f"x{hybrid / raw:.2f}")  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "main.py").write_text(ECHO)
            for name, (median, p99) in bench_pause_under_launches(folder).items():
                print(f"  pause + resume while another process launches sandboxes, {name:<10} "
                      f"median {median:7.1f} us, p99 {p99:8.1f} us")  # fmt: skip
    limit = sandbox.Limits().start_ms
    if args.language_starts <= 0:
        return
    for language, built, ready in bench_languages(args.language_starts):
        build = f"build {built:5.1f} s" if built else "no build   "
        print(f"start to ready  {language:<10} {ready:8.1f} ms   {build}   (aim: well under "
              f"the {limit} ms start limit)")  # fmt: skip


if __name__ == "__main__":
    main()
