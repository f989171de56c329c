"""Sandbox overhead, measured side by side in one run (not a test).

    .venv/bin/python bench/sandbox.py [--starts 40] [--trips 3000]

1. Bot start: ``python3 -I -c pass`` as a plain subprocess vs the same command launched in the
   sandbox (staging, slot uid, cgroup, seccomp, bwrap) until it has exited and been cleaned up;
   then the parts: bwrap alone, the launch without a cgroup, and one cgroup move.
2. Move round trip: one JSON line to an echo program and back through pipes, a plain child vs
   the sandboxed child, then a full ProgramPlayer.act (adds pause/resume between turns and the
   per-move CPU reading).
3. Start per language (issue 20): each example bot of examples/bots/ (built first, as at
   validation, for those with a build step) from launch to its "ready", in the sandbox; and
   the build itself, once.
Aims (issue 3): start <= 1.6x, round trip <= 2x; per language: ready well within the start
limit (Limits.start_ms, 5 s).
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

from bots import sandbox  # noqa: E402
from bots.players import ProgramPlayer, resolve_player  # noqa: E402
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


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_start(count: int) -> tuple[float, float, float, float]:
    python = sandbox.bot_python()
    plain, boxed, bare, no_group = [], [], [], []
    backend = cgroups.backend()

    def as_slot() -> None:
        os.setgroups([])
        os.setresgid(slots.SLOT_UID_BASE, slots.SLOT_UID_BASE, slots.SLOT_UID_BASE)
        os.setresuid(slots.SLOT_UID_BASE, slots.SLOT_UID_BASE, slots.SLOT_UID_BASE)

    for _ in range(count):  # interleaved, so both see the same machine load
        began = time.perf_counter()
        subprocess.run([python, "-I", "-c", "pass"], check=True)
        plain.append(time.perf_counter() - began)
        began = time.perf_counter()
        box = sandbox.launch(None, sandbox.Limits(), argv=[python, "-I", "-c", "pass"])
        box.wait(10)
        box.close()
        boxed.append(time.perf_counter() - began)
        began = time.perf_counter()
        fd = seccomp.program_fd()
        argv = jail.bwrap_argv(None, jail._staged_sdk(), sandbox.Limits(), fd)
        subprocess.run(
            argv + [python, "-I", "-c", "pass"], env={}, pass_fds=(fd,) if fd is not None else (),
            preexec_fn=as_slot if slots.can_switch_uid() else None,
        )  # fmt: skip
        if fd is not None:
            os.close(fd)
        bare.append(time.perf_counter() - began)
        cgroups._BACKEND = ("none", None)  # the whole launch, rlimits standing in
        try:
            began = time.perf_counter()
            box = sandbox.launch(None, sandbox.Limits(), argv=[python, "-I", "-c", "pass"])
            box.wait(10)
            box.close()
            no_group.append(time.perf_counter() - began)
        finally:
            cgroups._BACKEND = backend
    return median_ms(plain), median_ms(boxed), median_ms(bare), median_ms(no_group)


def bench_cgroup_move(count: int) -> tuple[float, float] | None:
    """Moving a process into a fresh group: the first move after an idle spell (the lock's
    RCU grace period, on cgroup v1) and one right after it."""
    if cgroups.backend()[0] == "none":
        return None
    first, warm = [], []
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
    return median_ms(first), median_ms(warm)


def trips(channel: Channel, count: int) -> list[float]:
    message = {"type": "act", "observation": {"hand": [1, 2, 3]}, "legal": [0, 1, 2]}
    out = []
    for _ in range(count):
        began = time.perf_counter()
        channel.send(message, time.monotonic() + 5)
        channel.recv(time.monotonic() + 5)
        out.append(time.perf_counter() - began)
    return out


def bench_round_trip(folder: Path, count: int) -> tuple[float, float, float, float]:
    python = sandbox.bot_python()
    proc = subprocess.Popen([python, "-I", str(folder / "main.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)  # fmt: skip
    plain_channel = Channel(proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno(),
                            1 << 20, 1 << 40)  # fmt: skip
    box = sandbox.launch(folder, sandbox.Limits())
    boxed_channel = Channel(box.proc.stdin.fileno(), box.proc.stdout.fileno(),
                            box.proc.stderr.fileno(), 1 << 20, 1 << 40)  # fmt: skip
    trips(plain_channel, 100), trips(boxed_channel, 100)  # warm up
    plain = trips(plain_channel, count)
    boxed = trips(boxed_channel, count)
    proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        stream.close()
    box.close()

    # A real seat: ProgramPlayer.act (CPU reading, fault checks). Alone, a bot is never
    # paused; with two program seats, each move pauses the other one and wakes this one.
    one = ProgramPlayer(folder, sandbox.Limits(), label="echo")
    two = ProgramPlayer(folder, sandbox.Limits(), label="echo2")
    one.start({"game": "bench"})
    two.start({"game": "bench"})
    alone, paired = [], []
    clock = {"move_ms": 1000, "bank_ms": 0}
    for _ in range(count):
        began = time.perf_counter()
        one.act({"hand": [1, 2, 3]}, [0, 1, 2], clock)
        alone.append(time.perf_counter() - began)
    for i in range(count):
        me, other = (one, two) if i % 2 else (two, one)
        began = time.perf_counter()
        other.pause()
        me.act({"hand": [1, 2, 3]}, [0, 1, 2], clock)
        paired.append(time.perf_counter() - began)
    one.close()
    two.close()
    return median_ms(plain), median_ms(boxed), median_ms(alone), median_ms(paired)


LANGUAGE_EXAMPLES = {"python": "pairs_cautious.py", "c": "c_pairs", "cpp": "cpp_pairs",
                     "javascript": "js_pairs", "java": "java_pairs"}  # fmt: skip


def bench_languages(count: int) -> list[tuple[str, float, float]]:
    """(language, build seconds or 0, median ms from launch to "ready") per example bot."""
    from games import registry

    examples = Path(__file__).resolve().parents[1] / "examples" / "bots"
    game = registry.get("pairs")
    out = []
    for language, name in LANGUAGE_EXAMPLES.items():
        began = time.perf_counter()
        player = resolve_player(str(examples / name), game=game, seat=0, seed=1)
        built = time.perf_counter() - began if (examples / name / "build.sh").exists() else 0.0
        folder = player.bot_dir
        samples = []
        for _ in range(count):
            seat = ProgramPlayer(folder, sandbox.Limits(), label=language)
            began = time.perf_counter()
            fault = seat.start({"game": "pairs", "seat": 0, "players": 2})
            samples.append(time.perf_counter() - began)
            seat.close()
            if fault is not None:
                sys.exit(f"{language}: {fault.reason}")
        player.close()  # removes the built tree
        out.append((language, built, median_ms(samples)))
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
    plain, boxed, bare, no_group = bench_start(args.starts)
    print(f"start       plain {plain:8.2f} ms   sandbox {boxed:8.2f} ms   x{boxed / plain:.2f}"
          "   (aim <= 1.6x)")  # fmt: skip
    print(f"  bwrap alone (namespaces, mounts, seccomp, slot uid)  {bare:8.2f} ms   "
          f"x{bare / plain:.2f}")  # fmt: skip
    print(f"  the whole launch without a cgroup (rlimits only)     {no_group:8.2f} ms   "
          f"x{no_group / plain:.2f}")  # fmt: skip
    moves = bench_cgroup_move(10)
    if moves is not None:
        print(f"  {cgroups.backend()[0]} move of a process: first after 100 ms idle "
              f"{moves[0]:6.2f} ms, the next {moves[1]:6.2f} ms (bwrap builds the sandbox "
              "meanwhile)")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "main.py").write_text(ECHO)
        plain, boxed, alone, paired = bench_round_trip(folder, args.trips)
    print(f"round trip  plain {plain * 1000:8.1f} us   sandbox {boxed * 1000:8.1f} us   "
          f"x{boxed / plain:.2f}   (aim <= 2x)")  # fmt: skip
    print(f"  ProgramPlayer.act, one program seat          {alone * 1000:8.1f} us   "
          f"x{alone / plain:.2f}")  # fmt: skip
    print(f"  ProgramPlayer.act, two seats (pause + wake)  {paired * 1000:8.1f} us   "
          f"x{paired / plain:.2f}")  # fmt: skip
    limit = sandbox.Limits().start_ms
    for language, built, ready in bench_languages(args.language_starts):
        build = f"build {built:5.1f} s" if built else "no build   "
        print(f"start to ready  {language:<10} {ready:8.1f} ms   {build}   (aim: well under "
              f"the {limit} ms start limit)")  # fmt: skip


if __name__ == "__main__":
    main()
