"""Matches per second through the whole pipeline (Celery, Redis, PostgreSQL) beside one process.

Goals: one worker (concurrency 1) at least 0.90 x the in-process rate (bots only); W
workers at least 0.80 x "in-process, W at once" (W players side by side on this machine,
the most W workers could reach). And a worker's memory stays flat as it plays.

The matches: two-seat Pairs between two example bots (examples/bots/pairs_cautious.py and
raw_bot.py), sandboxed as in production, in tournaments of 100 games (the most one
pairing may have), all started at once. The same tournament seeds are used for every run,
so every run plays the same deals. Figures, each in matches per second of wall time:

- in-process, bots only: the same matches played by ``bots.runner.play_match`` in this
  process with the same sandboxed players, nothing stored (the yardstick of the goal);
- the same with spares: as above, building each next match's sandboxes while a match's
  bots start up, as a worker does (bots/held_sandboxes.py); shown beside the yardstick, not used
  by the goal;
- in-process, service: ``tournaments.services.play_queued_match`` called here for each queued
  match (claim, play, record, rate, advance), what a worker's task runs. Its CPU per match
  is what a worker's pool process should spend: what the pool spends beyond it is Celery's;
- in-process, W at once (W > 1): W child processes each playing their own matches as the
  yardstick does, released together: what this machine gives W players side by side, so
  the most W workers could reach here (below W x the yardstick on a machine without W x
  the yardstick's cores to spare);
- W workers: W ``celery worker`` processes (prefork, concurrency 1, queue ``matches``),
  timed from the tournaments' start to the last result stored. Worker start-up is not
  counted; each worker's first matches (imports, connections) are.

Worker memory: the resident set of each worker's pool process when it is ready, after its
first matches and at the end. ``--soak 10000`` adds a run of that many matches on one
worker, printing its RSS every tenth of the way (issue 18, goal 4).

Run on a fresh clone: ``.venv/bin/python bench/pipeline.py`` (PostgreSQL and Redis up, as
``make services`` starts them). It makes its own database (``--database-url``, default
``arena_bench_pipeline``) and uses its own Redis db (``--broker-url``, default db 14);
both are the bench's to wipe. ``--rounds 3`` repeats the timed runs and prints the median
of each ratio: on a shared machine one round's ratio moves by a tenth or more with the
load, since its in-process and worker runs are a minute apart.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # pipeline_parts

from pipeline_parts import (  # noqa: E402 - after sys.path
    BOTS,
    GAMES_PER_TOURNAMENT,
    children,
    cpu_seconds,
    create_tournaments,
    ensure_database,
    failed_count,
    finished_count,
    machine_busy,
    machine_cores,
    named_cpu,
    own_costs,
    per_match,
    process_cpu,
    purge_broker,
    rss_kib,
    setup_bots,
    start,
)

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/arena_bench_pipeline"
DEFAULT_BROKER = "redis://127.0.0.1:6379/14"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=300, help="matches per run (x100)")
    parser.add_argument(
        "--workers",
        default="1,2",
        help="worker counts to time, e.g. 1,2 ('' with --soak: soak only)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="repeat the timed runs; medians of the ratios"
    )
    parser.add_argument("--soak", type=int, default=0, help="matches for the memory run")
    parser.add_argument(
        "--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE)
    )
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", DEFAULT_BROKER))
    # The bench's own child processes for "in-process, W at once" (not for people).
    parser.add_argument("--play-bots-only", default="", help=argparse.SUPPRESS)
    return parser.parse_args()


def in_process_bots_only(tournament_ids: list[int], ahead: bool = False) -> tuple[int, float]:
    """The queued matches played by the runner here, with the worker's players; not stored.
    ``ahead``: building the next match's sandboxes while each match starts, as a worker does
    (bots/held_sandboxes.py)."""
    from bots import held_sandboxes
    from bots import services as bot_services
    from bots.players import ProgramPlayer
    from bots.runner import Clock
    from bots.runner import play_match as run_match
    from bots.sandbox import Limits
    from tournaments.models import Match

    matches = list(
        Match.objects.filter(tournament_id__in=tournament_ids)
        .order_by("pk")
        .prefetch_related("seats__version")
    )
    started = time.perf_counter()
    for match in matches:
        players = [
            ProgramPlayer(
                bot_services.version_dir(version=seat.version), Limits(), label=seat.version.label
            )
            for seat in sorted(match.seats.all(), key=lambda s: s.seat)
        ]
        seats = [(p.bot_dir, p.limits) for p in players]
        run_match(
            game_slug=match.game,
            players=players,
            options=match.options,
            seed=match.seed,
            clock=Clock(move_ms=match.move_ms, bank_ms=match.bank_ms),
            while_starting=(lambda seats=seats: held_sandboxes.prepare_like(seats))
            if ahead
            else None,
        )
    elapsed = time.perf_counter() - started
    held_sandboxes.discard()
    return len(matches), elapsed


def in_process_service(tournament_ids: list[int]) -> tuple[int, float]:
    """What a worker's task runs, called here for every queued match until none is left."""
    from tournaments import services
    from tournaments.models import Match

    played = 0
    started = time.perf_counter()
    while True:
        queued = list(
            Match.objects.filter(tournament_id__in=tournament_ids, status=Match.Status.QUEUED)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if not queued:
            break
        for pk in queued:
            services.play_queued_match(match_id=pk)
            played += 1
    return played, time.perf_counter() - started


def start_worker(index: int, env: dict, log_dir: Path) -> subprocess.Popen:
    log_path = log_dir / f"worker{index}.log"
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "arena", "worker", "--pool", "prefork",
                "--concurrency", "1", "-Q", "matches", "--loglevel", "WARNING",
                "--without-gossip", "--without-mingle", "--without-heartbeat",
                "--hostname", f"bench{index}@%h",
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    worker.log_path = log_path
    return worker


def wait_ready(worker: subprocess.Popen, timeout: float = 60) -> int:
    """The pid of the worker's pool process once the worker is ready."""
    from arena.celery import app

    deadline = time.monotonic() + timeout
    name = None
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            sys.exit(f"worker exited:\n{worker.log_path.read_text()[-3000:]}")
        pool = children(worker.pid)
        if pool:
            if name is None:
                replies = app.control.ping(timeout=0.5) or []
                name = next((n for r in replies for n in r if n.startswith("bench")), None)
            if name:
                return pool[0]
        time.sleep(0.2)
    sys.exit(f"worker not ready:\n{worker.log_path.read_text()[-3000:]}")


def stop_worker(worker: subprocess.Popen) -> None:
    import signal

    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def cpu_shares(workers: list[subprocess.Popen], pools: list[int]) -> dict[str, float]:
    """CPU seconds so far of the workers' main processes, their pool processes, the bots
    those reaped, PostgreSQL and Redis: where a worker's match goes, machine-wide."""
    own = [process_cpu(pid) for pid in pools]
    return {
        "Celery main": sum(process_cpu(w.pid)[0] for w in workers),
        "pool": sum(mine for mine, _ in own),
        "bots": sum(reaped for _, reaped in own),
        **{name.split("-")[0]: seconds for name, seconds in named_cpu().items()},
    }


def with_workers(
    count: int, tournament_ids: list[int], env: dict, log_dir: Path, samples: int = 3
) -> tuple[int, float, list[list[tuple[int, int]]], str]:
    """Play the tournaments on ``count`` fresh workers; (matches, seconds, RSS samples, the
    machine's cores busy meanwhile).

    RSS samples per worker: (matches finished so far, KiB), at ready, along the way, at the end.
    """
    from tournaments.models import Match

    total = Match.objects.filter(tournament_id__in=tournament_ids).count() or (
        len(tournament_ids) * GAMES_PER_TOURNAMENT
    )
    purge_broker()
    workers = [start_worker(i, env, log_dir) for i in range(count)]
    try:
        pools = [wait_ready(w) for w in workers]
        rss = [[(0, rss_kib(p))] for p in pools]
        marks = [total * (i + 1) // samples for i in range(samples - 1)]
        cpu_before = cpu_shares(workers, pools)
        started, machine = time.perf_counter(), machine_busy()
        start(tournament_ids)
        done = 0
        while done < total:
            time.sleep(0.1)
            done = finished_count(tournament_ids)
            while marks and done >= marks[0]:
                marks.pop(0)
                for samples_, pid in zip(rss, pools):
                    samples_.append((done, rss_kib(pid)))
            if any(w.poll() is not None for w in workers):
                sys.exit("a worker died:\n" + workers[0].log_path.read_text()[-3000:])
        elapsed = time.perf_counter() - started
        busy = machine_cores(machine, elapsed)
        busy += "\n    CPU per match: " + ", ".join(
            f"{what} {(cpu_shares(workers, pools)[what] - seconds) / total * 1000:.1f} ms"
            for what, seconds in cpu_before.items()
        )
        for samples_, pid in zip(rss, pools):
            samples_.append((done, rss_kib(pid)))
    finally:
        for worker in workers:
            stop_worker(worker)
    return total, elapsed, rss, busy


def in_process(user, bot_ids: list[int], matches: int, label: str) -> tuple[float, float]:
    """The two in-process rates: bots only (the yardstick) and the service."""
    ids = create_tournaments(user, bot_ids, matches, f"{label} bots-only")
    start(ids)
    purge_broker()
    cpu, machine, costs = cpu_seconds(), machine_busy(), own_costs()
    n, seconds = in_process_bots_only(ids)
    cores = (cpu_seconds() - cpu) / seconds
    yardstick = n / seconds
    # The cores it keeps busy (the bench and its bots; both seats start at once) bound what
    # W workers can reach on a machine with that many cores.
    print(
        f"in-process, bots only : {yardstick:7.2f} matches/s ({n} in {seconds:.1f} s),"
        f" {cores:.2f} cores busy; {machine_cores(machine, seconds)}"
    )
    print(f"  {per_match(costs, n)}")
    machine, costs = machine_busy(), own_costs()
    n, seconds = in_process_bots_only(ids, ahead=True)
    print(
        f"  the same, with spares: {n / seconds:7.2f} matches/s ({n} in {seconds:.1f} s)"
        f"  = {n / seconds / yardstick:.2f} x bots only (a worker's prepare-ahead; not the goal's"
        f" yardstick); {machine_cores(machine, seconds)}"
    )
    print(f"  {per_match(costs, n)}")

    ids = create_tournaments(user, bot_ids, matches, f"{label} service")
    start(ids)
    purge_broker()
    machine, costs = machine_busy(), own_costs()
    n, seconds = in_process_service(ids)
    service = n / seconds
    print(
        f"in-process, service   : {service:7.2f} matches/s ({n} in {seconds:.1f} s)"
        f"  = {service / yardstick:.2f} x bots only; {machine_cores(machine, seconds)}"
    )
    # What a worker's pool process runs, so its CPU per match compares with the pool's.
    print(f"  {per_match(costs, n)}")
    return yardstick, service


def in_process_together(user, bot_ids: list[int], count: int, matches: int, label: str) -> float:
    """``count`` processes each playing ``matches`` of its own by the runner (as the
    yardstick does), all started together: the matches/s this machine gives that many
    in-process players side by side. On a machine with fewer spare cores than the
    yardstick keeps busy times ``count``, this is below ``count`` x the yardstick, and no
    number of workers can reach what the goal asks."""
    sets = []
    for index in range(count):
        ids = create_tournaments(user, bot_ids, matches, f"{label} together{count}-{index}")
        start(ids)
        sets.append(ids)
    purge_broker()
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--play-bots-only", ",".join(map(str, ids))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for ids in sets
    ]
    for child in children:  # each has set up Django and built its players' folders
        if child.stdout.readline().strip() != "ready":
            sys.exit("a bots-only child failed to start")
    machine = machine_busy()
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    played, longest = 0, 0.0
    for child in children:
        n, seconds = child.stdout.readline().split()
        child.wait()
        played, longest = played + int(n), max(longest, float(seconds))
    rate = played / longest
    print(
        f"in-process, {count} at once: {rate:7.2f} matches/s ({played} in {longest:.1f} s),"
        f" {machine_cores(machine, longest)}"
    )
    return rate


def play_bots_only_child(ids: list[int]) -> None:
    """The child of ``in_process_together``: ready, wait for "go", play, print n and seconds."""
    from bots import services as bot_services
    from tournaments.models import MatchSeat

    for seat in MatchSeat.objects.filter(match__tournament_id__in=ids).select_related("version"):
        bot_services.version_dir(version=seat.version)  # unpacked before the clock starts
    print("ready", flush=True)
    sys.stdin.readline()
    n, seconds = in_process_bots_only(ids)
    print(n, seconds, flush=True)


def warm_up(user, bot_ids: list[int], matches: int, label: str) -> None:
    """One untimed run of the yardstick before the first round. The first run after the
    bench starts is slow in ways the later ones are not (on 2026-11-29 its bots took 79 ms
    of CPU a match against 56 in the next round, twice), and a first round whose yardstick
    paid for that read 1 worker at 1.18-1.21x: with two rounds, the "median" is their mean,
    and that one round carried the verdict."""
    ids = create_tournaments(user, bot_ids, matches, f"{label} warm-up")
    start(ids)
    purge_broker()
    n, seconds = in_process_bots_only(ids)
    print(f"warm-up (untimed)     : {n} matches in process, {seconds:.1f} s")


def goal_for(workers: int) -> float:
    """The least ratio the goal asks of this many workers (see the module's docstring)."""
    return 0.8 if workers > 1 else 0.9


def one_round(
    user, bot_ids: list[int], counts: list[int], matches: int, env: dict, cache: str, label: str
) -> dict[int, float]:
    """The in-process rates, then each worker count's; {workers: ratio to its goal's yardstick}."""
    yardstick, service = in_process(user, bot_ids, matches, label)
    ratios = {}
    for count in counts:
        together = None
        if count > 1:
            together = in_process_together(user, bot_ids, count, matches, label)
            print(
                f"  = {together / (count * yardstick):.2f} x {count} x bots only: the most"
                f" {count} workers could reach here, whatever they cost"
            )
        ids = create_tournaments(user, bot_ids, matches, f"{label} w{count}")
        n, seconds, rss, busy = with_workers(count, ids, env, Path(cache))
        failed = failed_count(ids)
        rate = n / seconds
        # One worker is judged against the in-process yardstick; W workers against W
        # in-process players at once, what this machine gives W side by side.
        if together:
            ratio, against = rate / together, f"{count} in-process at once"
        else:
            ratio, against = rate / yardstick, "in-process bots only"
        goal = goal_for(count)
        flag = "" if ratio >= goal else "  BELOW GOAL"
        print(
            f"{count} worker{'s' if count > 1 else ' '}             : {rate:7.2f} matches/s"
            f" ({n} in {seconds:.1f} s{f', {failed} failed' if failed else ''})"
            f"  = {ratio:.2f} x {against} (goal >= {goal:.2f}){flag}"
            f"; {rate / (count * yardstick):.2f} x {count} x bots only"
            f", {rate / (count * service):.2f} x {count} x service; {busy}"
        )
        ratios[count] = ratio
        for index, samples in enumerate(rss):
            trail = ", ".join(f"{kib / 1024:.1f} MiB after {done}" for done, kib in samples)
            print(f"    worker {index} pool process RSS: {trail}")
    return ratios


def setup(args: argparse.Namespace) -> str:
    """Environment and Django for the bench (and its children); the bots' cache folder."""
    os.environ["DATABASE_URL"] = args.database_url
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    # The bench's children (in-process, W at once) take the same database and broker.
    os.environ["BENCH_DATABASE_URL"] = args.database_url
    os.environ["BENCH_BROKER_URL"] = args.broker_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    os.environ["ARENA_LADDER"] = "0"
    cache = os.environ.get("BENCH_PIPELINE_CACHE") or tempfile.mkdtemp(prefix="bench-pipeline-")
    os.environ["BENCH_PIPELINE_CACHE"] = cache  # children share the unpacked bots
    os.environ["ARENA_BOT_CACHE"] = str(Path(cache) / "bot-cache")

    import django

    django.setup()
    return cache


def main() -> None:
    args = parse_args()
    if args.play_bots_only:
        setup(args)
        play_bots_only_child([int(pk) for pk in args.play_bots_only.split(",")])
        return
    ensure_database(args.database_url)
    cache = setup(args)
    from django.core.management import call_command

    from bots.sandbox import describe_enforcement, sandbox_available

    call_command("migrate", verbosity=0)
    if not sandbox_available():
        sys.exit("no sandbox (bubblewrap) here: the bench plays sandboxed bots")
    user, bot_ids = setup_bots()
    purge_broker()
    env = dict(os.environ)
    label = time.strftime("%H%M%S")
    print(f"sandbox: {describe_enforcement()}")
    print(f"{args.matches} two-seat Pairs matches per run, {', '.join(BOTS.values())}")

    counts = [int(w) for w in args.workers.split(",") if w]
    if counts:
        warm_up(user, bot_ids, args.matches, label)
    ratios = {count: [] for count in counts}
    for round_ in range(args.rounds if counts else 0):
        if args.rounds > 1:
            print(f"round {round_ + 1} of {args.rounds}")
        for count, ratio in one_round(user, bot_ids, counts, args.matches, env, cache,
                                      f"{label}r{round_}").items():  # fmt: skip
            ratios[count].append(ratio)
    if args.rounds > 1:
        # Each round's ratio compares runs minutes apart at most; on a shared machine the
        # median of several says more than any one of them.
        for count, found in ratios.items():
            median = statistics.median(found)
            print(
                f"{count} worker{'s' if count > 1 else ' '}, median of {len(found)} rounds:"
                f" {median:.2f} (goal >= {goal_for(count):.2f}; rounds: "
                f"{', '.join(f'{r:.2f}' for r in found)})"
                f"{'' if median >= goal_for(count) else '  BELOW GOAL'}"
            )

    if args.soak:
        ids = create_tournaments(user, bot_ids, args.soak, f"{label} soak")
        n, seconds, rss, busy = with_workers(1, ids, env, Path(cache), samples=10)
        print(
            f"soak, 1 worker        : {n / seconds:7.2f} matches/s ({n} in {seconds:.0f} s); {busy}"
        )
        samples = rss[0]
        trail = ", ".join(f"{kib / 1024:.1f}" for _, kib in samples)
        print(f"    RSS MiB at 0, each tenth, end: {trail}")
        print(
            f"    growth from the first tenth to the end: "
            f"{(samples[-1][1] - samples[1][1]) / 1024:+.1f} MiB (goal: flat)"
        )


if __name__ == "__main__":
    main()
