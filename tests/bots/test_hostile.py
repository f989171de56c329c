"""Hostile bots (tests/bots/hostile/*.py) through the real runner in the real sandbox.

Each plays a real match: [hostile, built-in random, a well-behaved program neighbour].
Asserted every time: the verdict; the other seats finish the match unfaulted; the worker is
unaffected (its uid, rlimits, signal dispositions, tracer, cwd and environment are as before,
and the next match plays normally); no process of the hostile bot's slot uid is left the
moment the match returns, its cgroup is gone, and no process of any sandbox uid, no child
and no descriptor of the worker is left (the ``no_leaks`` fixture); nothing outside the
sandbox changed (a canary directory, the bot folders, no file anywhere in the shared
temporary places owned by a sandbox uid, no "pwned" at the places a bot names).
Spy bots exit with "ESCAPED: ..." if they ever manage their attack, which turns into a
crash fault: those cases expect no fault at all.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import Clock, play_match
from bots.sandbox import Limits, cgroups, slots
from tests.support import toygame

HOSTILE = Path(__file__).resolve().parent / "hostile"
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")

FAST = Clock(move_ms=1000, bank_ms=500)
SHORT = Clock(move_ms=300, bank_ms=200)
# Generous, where the wall clock must not decide before the CPU limit does (a busy machine).
SLOW = Clock(move_ms=5000, bank_ms=1000)

# name -> (fault kind or None, fragment of the reason or of what the bot wrote (the fault's
# detail), clock, limits). The hostile bot sits in seat 0 of three: its n-th turn is the
# match's move 3n - 2.
CASES = {
    "fork_bomb": ("processes", "processes/threads", FAST, None),
    "thread_bomb": ("processes", "processes/threads", FAST, None),
    "memory_bomb": ("memory", "memory limit of 256 MB", FAST, None),
    "memory_creep": ("memory", "memory limit of 256 MB", FAST, None),
    "fill_tmp": (None, "", FAST, None),
    "inode_flood": (None, "", FAST, None),  # ENOSPC below the limit, or "ESCAPED"
    "write_everywhere": (None, "", FAST, None),
    "big_file": ("crashed", "File too large", FAST, None),  # Python ignores SIGXFSZ
    "busy_loop": ("timeout", "timed out on move 4 after 500 ms", SHORT, None),
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
    "crash_segfault": ("crashed", "signal SIGSEGV on move 4", FAST, None),
    # pid 1 of a namespace ignores its own SIGABRT: glibc's abort() then faults (SIGSEGV)
    "crash_abort": ("crashed", "crashed with signal SIG", FAST, None),
    "recursion": ("crashed", "RecursionError", FAST, None),
    "exit_zero_midway": ("crashed", "exit code 0 on move 1", FAST, None),
    "close_stdout": ("crashed", "closed its stdout on move 1", SHORT, None),
    "close_stdin": ("crashed", "closed its stdin on move 4", SHORT, None),
    "reply_early": ("protocol", "nobody asked for", FAST, None),
    "reply_twice": ("protocol", "nobody asked for", FAST, None),
    "stderr_flood": (None, "", FAST, None),
    "cpu_hog": ("cpu", "CPU limit of 1 s", SLOW, Limits(cpu_seconds=1)),
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
    with socket.socket(socket.AF_UNIX) as listener:  # net_loopback must not reach it
        listener.bind(f"\0arena-canary-{os.getpid()}".encode())  # unique: other runs share it
        listener.listen()
        listener.setblocking(False)
        yield folder
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert sorted(os.listdir(folder)) == ["secret.txt"]
    assert (folder / "secret.txt").read_text() == "canary secret"
    for path in (REPO / "pwned", Path("/pwned"), Path("/tmp/pwned"), Path("/tmp/result.json")):
        assert not path.exists(), f"{path} was written from inside the sandbox"
    # One level deep in every place a bot could hope to reach: no file of a sandbox uid.
    for place in (Path("/"), Path("/tmp"), Path("/dev/shm"), Path("/var/tmp"), Path("/run"),
                  REPO, REPO / "var", folder):  # fmt: skip
        assert not slot_owned(place, deep=False), f"a sandbox uid wrote in {place}"


SLOT_UIDS = range(slots.SLOT_UID_BASE, slots.SLOT_UID_BASE + slots.SLOT_COUNT)


def slot_owned(place: Path, deep: bool) -> list[str]:
    """Paths under ``place`` (itself and its entries; all the tree if ``deep``) owned by a
    sandbox uid. Inside the sandbox the bot is uid 1000, which is its slot uid out here."""
    found = []
    for root, dirs, files in os.walk(place) if deep else [(place, [], os.listdir(place))]:
        for name in [*dirs, *files, ""]:
            path = os.path.join(root, name)
            try:
                if os.lstat(path).st_uid in SLOT_UIDS:
                    found.append(path)
            except OSError:
                continue
    return found


@pytest.fixture(scope="module", autouse=True)
def nothing_of_a_sandbox_uid_in_shared_places():
    """After the whole module, a deep look: no file anywhere in the machine's shared
    temporary places belongs to a sandbox uid."""
    yield
    for place in ("/tmp", "/dev/shm", "/var/tmp"):
        left = [p for p in slot_owned(Path(place), deep=True) if "/arena-sandbox/" not in p]
        assert not left, f"files of sandbox uids left: {left[:10]}"


def worker_state() -> dict:
    """What a bot must never be able to change about the worker."""
    with open("/proc/self/status") as handle:
        status = dict(line.rstrip("\n").split(":\t", 1) for line in handle if ":\t" in line)
    limits = {name: resource.getrlimit(getattr(resource, name))
              for name in dir(resource) if name.startswith("RLIMIT_")}  # fmt: skip
    keep = ("Uid", "Gid", "Groups", "SigIgn", "SigBlk", "TracerPid", "NoNewPrivs", "CapEff")
    return {"status": {k: status.get(k) for k in keep}, "rlimits": limits, "cwd": os.getcwd(),
            "env": dict(os.environ), "pgid": os.getpgid(0), "sid": os.getsid(0)}  # fmt: skip


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(folder)):
        for name in sorted(dirs + files):
            path = Path(root) / name
            info = os.lstat(path)
            digest.update(f"{path}:{info.st_mode}:{info.st_uid}:{info.st_size}".encode())
            if path.is_file() and not path.is_symlink():
                digest.update(path.read_bytes())
    return digest.hexdigest()


def stage(name: str, folder: Path, canary_dir: Path) -> Path:
    source = (HOSTILE / f"{name}.py").read_text()
    source = source.replace("__REPO__", str(REPO)).replace("__CANARY_DIR__", str(canary_dir))
    source = source.replace("__WORKER_PID__", str(os.getpid()))
    source = source.replace("__TMPFS_INODES__", str(Limits().tmpfs_inodes))
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
    """The match; then, before anything else, the hostile slot must already be empty."""
    hostile = ProgramPlayer(bot, limits or Limits(), label="hostile")
    players = [hostile, BuiltinPlayer(toygame.GAME, "random", 1),
               ProgramPlayer(other, Limits(), label="neighbour")]  # fmt: skip
    outcome = play_match(
        game_slug="toy", players=players, options={"rounds": rounds}, seed=9, clock=clock
    )
    box = hostile.box
    assert box is not None
    if box.slot_uid is not None:
        assert slots.uid_processes(box.slot_uid) == [], "processes of the slot survived"
    if box.group is not None:
        dirs = box.group.dirs.values() if hasattr(box.group, "dirs") else [box.group.dir]
        assert not any(d.exists() for d in dirs), "the bot's cgroup was left"
    return outcome


def check_worker(before: dict, folder: Path) -> None:
    """The worker is as it was, and the next match (a clean bot) plays normally."""
    assert worker_state() == before
    clean = folder / "next-match"
    clean.mkdir()
    (clean / "main.py").write_text((EXAMPLES / "raw_bot.py").read_text())
    players = [ProgramPlayer(clean, Limits()), BuiltinPlayer(toygame.GAME, "random", 2)]
    outcome = play_match(game_slug="toy", players=players, options={"rounds": 2}, seed=3)
    assert [s["fault"] for s in outcome.result["seats"]] == [None, None]
    assert len(outcome.moves) == 4


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
    bot, other = stage(name, tmp_path, canary), neighbour(tmp_path, 0)
    before, sources = worker_state(), (tree_digest(bot), tree_digest(other))
    outcome = play(bot, other, clock, limits)
    assert (tree_digest(bot), tree_digest(other)) == sources, "a bot's folder changed"
    fault = outcome.result["seats"][0]["fault"]
    if kind is None:
        assert fault is None, fault
    else:
        assert fault is not None and fault["kind"] == kind, fault
        said = f"{fault['reason']}\n{outcome.fault_details[0]}"
        assert fragment in said, said
        assert outcome.result["seats"][0]["rank"] == 3
    check_others(outcome)
    check_worker(before, tmp_path)


@pytest.mark.parametrize("name", BACKGROUND)
def test_no_thinking_on_another_seats_time(name, tmp_path, canary):
    """The neighbour thinks 150 ms per move; a bot computing in the background meanwhile
    would gather ~450 ms of CPU. Paused, it gathers almost none."""
    before = worker_state()
    outcome = play(stage(name, tmp_path, canary), neighbour(tmp_path, 0.15), FAST, None)
    assert outcome.result["seats"][0]["fault"] is None
    check_others(outcome)
    check_worker(before, tmp_path)
    hostile_cpu = sum(m["cpu_ms"].get("0") or 0 for m in outcome.moves)
    neighbour_wall = sum(m["ms"].get("2") or 0 for m in outcome.moves)
    assert neighbour_wall >= 400
    assert hostile_cpu < 150, (hostile_cpu, neighbour_wall)


# -- native twins ---------------------------------------------------------------------------
# A compiled bot runs under exactly the same sandbox as a Python one (seccomp, its own uid,
# cgroup, rlimits): tests/bots/hostile/native/hostile.c, built once per attack, must get the
# verdict its Python twin of the same name gets in CASES.
NATIVE = {
    "fork_bomb": 1, "output_flood": 2, "memory_bomb": 3, "memory_creep": 4,
    "net_internet": 5, "net_loopback": 6, "raw_sockets": 7, "thread_bomb": 8,
}  # fmt: skip


@pytest.fixture(scope="module")
def native_bots(tmp_path_factory) -> dict[str, Path]:
    """Each attack compiled into a bot folder holding an executable ``main``."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is missing (make system installs it)")
    source = HOSTILE / "native" / "hostile.c"
    folders = {}
    for name, number in NATIVE.items():
        folder = tmp_path_factory.mktemp(f"native-{name}")
        subprocess.run(
            ["gcc", "-O1", "-pthread", f"-DATTACK={number}", f'-DWORKER_PID="{os.getpid()}"',
             "-o", str(folder / "main"), str(source)],
            check=True,
        )  # fmt: skip
        folders[name] = folder
    return folders


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_twin_gets_the_same_verdict(name, tmp_path, canary, native_bots):
    kind, fragment, clock, limits = CASES[name]
    bot, other = native_bots[name], neighbour(tmp_path, 0)
    before, sources = worker_state(), (tree_digest(bot), tree_digest(other))
    outcome = play(bot, other, clock, limits)
    assert (tree_digest(bot), tree_digest(other)) == sources, "a bot's folder changed"
    fault = outcome.result["seats"][0]["fault"]
    if kind is None:
        assert fault is None, fault
    else:
        assert fault is not None and fault["kind"] == kind, fault
        said = f"{fault['reason']}\n{outcome.fault_details[0]}"
        assert fragment in said, said
        assert outcome.result["seats"][0]["rank"] == 3
    check_others(outcome)
    check_worker(before, tmp_path)


def test_two_hundred_matches_leave_nothing_behind(tmp_path):
    stage_dir = slots.STATE_DIR / "stage"
    mine = f"bot-{os.getpid()}-"  # other workers on the machine stage there too

    def staged() -> set[str]:
        return {name for name in os.listdir(stage_dir) if name.startswith(mine)}

    staged_before = staged()
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
    assert staged() == staged_before
    if kind == "cgroup v1":
        leftovers = {g for g in os.listdir(where["pids"]) if g.startswith(mine)}
        assert leftovers <= groups_before
