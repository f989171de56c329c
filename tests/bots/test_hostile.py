"""Hostile bots (tests/bots/hostile/*.py) through the real runner in the real sandbox.

Each plays a real match: [hostile, built-in random, a well-behaved program neighbour].
Asserted every time: the verdict; the other seats finish the match unfaulted; no process of
any sandbox uid is left, no child and no descriptor of the worker (the ``no_leaks``
fixture); nothing outside the sandbox changed (a canary directory, the repository, /tmp).
Spy bots exit with "ESCAPED: ..." if they ever manage their attack, which turns into a
crash fault: those cases expect no fault at all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bots import cgroups, slots
from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import Clock, play_match
from bots.sandbox import Limits
from tests.bots import toygame

HOSTILE = Path(__file__).resolve().parent / "hostile"
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")

FAST = Clock(move_ms=1000, bank_ms=500)
SHORT = Clock(move_ms=300, bank_ms=200)

# name -> (fault kind or None, fragment of the reason, clock, limits)
CASES = {
    "fork_bomb": ("processes", "processes/threads", FAST, None),
    "thread_bomb": ("processes", "processes/threads", FAST, None),
    "memory_bomb": ("memory", "memory limit of 256 MB", FAST, None),
    "memory_creep": ("memory", "memory limit of 256 MB", FAST, None),
    "fill_tmp": (None, "", FAST, None),
    "write_everywhere": (None, "", FAST, None),
    "big_file": ("crashed", "File too large", FAST, None),  # Python ignores SIGXFSZ
    "busy_loop": ("timeout", "timed out on move 2 after 500 ms", SHORT, None),
    "sleep_forever": ("timeout", "timed out on move 1 after 500 ms", SHORT, None),
    "output_flood": ("output", "flooded stdout", FAST, None),
    "endless_line": ("output", "line longer than 65536 bytes", FAST, None),
    "invalid_utf8": ("protocol", "not valid UTF-8", FAST, None),
    "daemon": (None, "", FAST, None),
    "net_internet": (None, "", FAST, None),
    "net_redis": (None, "", FAST, None),
    "net_postgres": (None, "", FAST, None),
    "net_loopback": (None, "", FAST, None),
    "raw_sockets": (None, "", FAST, None),
    "dns": (None, "", FAST, None),
    "read_worker_files": (None, "", FAST, None),
    "read_environment": (None, "", FAST, None),
    "read_other_bots": (None, "", FAST, None),
    "proc_snoop": (None, "", FAST, None),
    "symlink_tricks": (None, "", FAST, None),
    "ptrace_and_signals": (None, "", FAST, None),
    "forbidden_syscalls": (None, "", FAST, None),
    "setuid_binaries": (None, "", FAST, None),
    "zombies_and_limits": (None, "", FAST, None),
    "crash_segfault": ("crashed", "signal SIGSEGV on move 2", FAST, None),
    # pid 1 of a namespace ignores its own SIGABRT: glibc's abort() then faults (SIGSEGV)
    "crash_abort": ("crashed", "crashed with signal SIG", FAST, None),
    "recursion": ("crashed", "RecursionError", FAST, None),
    "exit_zero_midway": ("crashed", "exit code 0 on move 1", FAST, None),
    "close_stdout": ("crashed", "closed its stdout on move 1", SHORT, None),
    "close_stdin": ("crashed", "closed its stdin on move 2", SHORT, None),
    "reply_early": ("protocol", "nobody asked for", FAST, None),
    "reply_twice": ("protocol", "nobody asked for", FAST, None),
    "stderr_flood": (None, "", FAST, None),
    "cpu_hog": ("cpu", "CPU limit of 1 s", FAST, Limits(cpu_seconds=1)),
}
BACKGROUND = ["think_in_background", "think_in_child"]

NEIGHBOUR = """# NEIGHBOUR_SECRET_TOKEN: another bot's code, which no bot may read
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type":"ready"}', flush=True)
    elif message["type"] == "act":
        time.sleep(SLEEP)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
"""


@pytest.fixture
def canary(tmp_path_factory, monkeypatch):
    """A world-readable secret outside the sandbox and a worker environment to protect."""
    folder = tmp_path_factory.mktemp("canary")
    os.chmod(folder, 0o755)
    (folder / "secret.txt").write_text("canary secret")
    os.chmod(folder / "secret.txt", 0o644)
    monkeypatch.setenv("ARENA_CANARY_SECRET", "do-not-leak")
    yield folder
    assert sorted(os.listdir(folder)) == ["secret.txt"]
    assert (folder / "secret.txt").read_text() == "canary secret"
    for path in (REPO / "pwned", Path("/pwned"), Path("/tmp/pwned"), Path("/tmp/result.json")):
        assert not path.exists(), f"{path} was written from inside the sandbox"


def stage(name: str, folder: Path, canary_dir: Path) -> Path:
    source = (HOSTILE / f"{name}.py").read_text()
    source = source.replace("__REPO__", str(REPO)).replace("__CANARY_DIR__", str(canary_dir))
    source = source.replace("__WORKER_PID__", str(os.getpid()))
    bot = folder / name
    bot.mkdir()
    (bot / "main.py").write_text(source)
    return bot


def neighbour(folder: Path, sleep: float) -> Path:
    bot = folder / f"neighbour-{sleep}"
    bot.mkdir()
    (bot / "main.py").write_text(NEIGHBOUR.replace("SLEEP", repr(sleep)))
    return bot


def play(bot: Path, other: Path, clock: Clock, limits: Limits | None, rounds: int = 3):
    players = [
        ProgramPlayer(bot, limits or Limits(), label="hostile"),
        BuiltinPlayer(toygame.GAME, "random", 1),
        ProgramPlayer(other, Limits(), label="neighbour"),
    ]
    return play_match(
        game_slug="toy", players=players, options={"rounds": rounds}, seed=9, clock=clock
    )


def check_others(outcome, rounds: int = 3) -> None:
    seats = outcome.result["seats"]
    assert seats[1]["fault"] is None and seats[2]["fault"] is None, seats
    assert len(outcome.moves) == 3 * rounds
    assert all(m["actions"]["2"] == 0 for m in outcome.moves if "2" in m["actions"])


def test_the_suite_is_complete():
    files = {p.stem for p in HOSTILE.glob("*.py")}
    assert files == set(CASES) | set(BACKGROUND)
    assert len(files) >= 25


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_bot(name, tmp_path, canary):
    kind, fragment, clock, limits = CASES[name]
    outcome = play(stage(name, tmp_path, canary), neighbour(tmp_path, 0), clock, limits)
    fault = outcome.result["seats"][0]["fault"]
    if kind is None:
        assert fault is None, fault
    else:
        assert fault is not None and fault["kind"] == kind, fault
        assert fragment in fault["reason"], fault["reason"]
        assert outcome.result["seats"][0]["rank"] == 3
    check_others(outcome)


@pytest.mark.parametrize("name", BACKGROUND)
def test_no_thinking_on_another_seats_time(name, tmp_path, canary):
    """The neighbour thinks 150 ms per move; a bot computing in the background meanwhile
    would gather ~450 ms of CPU. Paused, it gathers almost none."""
    outcome = play(stage(name, tmp_path, canary), neighbour(tmp_path, 0.15), FAST, None)
    assert outcome.result["seats"][0]["fault"] is None
    check_others(outcome)
    hostile_cpu = sum(m["cpu_ms"].get("0") or 0 for m in outcome.moves)
    neighbour_wall = sum(m["ms"].get("2") or 0 for m in outcome.moves)
    assert neighbour_wall >= 400
    assert hostile_cpu < 150, (hostile_cpu, neighbour_wall)


def test_two_hundred_matches_leave_nothing_behind(tmp_path):
    stage_dir = slots.STATE_DIR / "stage"
    staged_before = set(os.listdir(stage_dir))
    kind, where = cgroups.backend()
    groups_before = set(os.listdir(where["pids"])) if kind == "cgroup v1" else set()
    fds_before = len(os.listdir("/proc/self/fd"))
    bot = tmp_path / "raw"
    bot.mkdir()
    (bot / "main.py").write_text((EXAMPLES / "raw_bot.py").read_text())
    for i in range(200):
        players = [ProgramPlayer(bot, Limits()), BuiltinPlayer(toygame.GAME, "random", i)]
        outcome = play_match(game_slug="toy", players=players, options={"rounds": 1}, seed=i)
        assert outcome.result["seats"][0]["fault"] is None, (i, outcome.result)
    assert len(os.listdir("/proc/self/fd")) == fds_before
    assert set(os.listdir(stage_dir)) == staged_before
    if kind == "cgroup v1":
        leftovers = {g for g in os.listdir(where["pids"]) if g.startswith("bot-")}
        assert leftovers <= groups_before
    assert slots.all_slot_processes() == []
