"""Read latency at scale: every read endpoint and page against a big data set, beside /api/games/.

    .venv/bin/python bench/reads.py               # build the full data set, time, drop it
    .venv/bin/python bench/reads.py --scale 0.1   # a tenth of it, for a quick run
    .venv/bin/python bench/reads.py --keep        # leave the database for a later --reuse
    .venv/bin/python bench/reads.py --reuse       # time again without rebuilding (same scale)

Goals: the p95 of every read endpoint and page at most 3x the p95 of /api/games/ (which
reads no table) in the same run (issue 18), and the first read after a change (cold) at most
10x it (issue 36), on 10,000 Pairs bots, 1,000,000 rated ladder
matches, a 200-bot round robin of about 20,000 finished matches, a Swiss and an elimination
tournament, and one long Paks match whose replay is read (goal 5: replays of long matches are
served from a stored or cached form, not rebuilt per request).

The data set is written with COPY from arrays the bench computes (no ORM row by row): the
ladder's duplicate tables, seats, results, moves and records taken from real Pairs matches
played by the built-in policies, the live Elo with its history, the pairwise sums and the
record of each version, as tournaments.services.rating would have left them. Then the
product's own services finish the job: ``rebuild_read_models`` when that command exists and
the pool's Bradley-Terry fit (tournaments.services.fitting.fit_pool).

Requests go through Django's test client in this process (no network). Per endpoint: 5 cold
requests (the cache emptied before each: the first read after a version moved), then 2
warm-ups and 25 timed warm ones (fewer when one takes so long that 25 would exceed --budget
seconds; the n column says how many). See bench/README.md.

The script is in modules beside it: reads_db (database, COPY), reads_games and reads_build
(the data set), reads_ratings (ratings, read models, fit), reads_endpoints (what is timed).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the reads_* modules

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/arena_benchreads"
DEFAULT_CACHE_URL = "redis://127.0.0.1:6379/5"
GOAL_RATIO = 3.0  # warm p95 over the yardstick p95
COLD_GOAL_RATIO = 10.0  # first read after a change (median of the cold ones) over the same
WARMUPS = 2
TIMED = 25
COLD = 5  # cold requests per endpoint, each after the cache is emptied


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 10,000 bots, 1M matches")
    parser.add_argument("--keep", action="store_true", help="leave the database when done")
    parser.add_argument(
        "--reuse", action="store_true", help="skip the build if the database holds this scale"
    )
    parser.add_argument(
        "--database",
        default=os.environ.get("BENCH_READS_DATABASE_URL", DEFAULT_DATABASE_URL),
        help="the bench's own database (dropped and created unless --reuse finds it built)",
    )
    parser.add_argument(
        "--cache",
        default=os.environ.get("BENCH_READS_CACHE_URL", DEFAULT_CACHE_URL),
        help="CACHE_URL for the run (redis://... as in production, or locmem://); "
        "the bench clears it before timing",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=60.0,
        help="seconds of timed requests per endpoint at most (fewer than 25 if slower); "
        "0 = always 25",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="after the build, compare the loaded ratings with the product's own "
        "recompute_ratings and recompute_pairs (ORM over every match: small scales only)",
    )
    parser.add_argument("--only", default="", help="time only endpoints whose label has this")
    return parser.parse_args()


ARGS = parse_args() if __name__ == "__main__" else None

# The environment is the bench's own before Django reads its settings.
if ARGS is not None:
    os.environ["DATABASE_URL"] = ARGS.database
    os.environ["CACHE_URL"] = ARGS.cache
    os.environ.setdefault("CELERY_BROKER_URL", ARGS.cache if "redis" in ARGS.cache else "")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    os.environ["DEBUG"] = "0"

from reads_build import Sizes, build  # noqa: E402 - after sys.path
from reads_db import database_built, drop_database, mark_built, read_mark, recreate_database  # noqa: E402
from reads_endpoints import YARDSTICK, endpoints, uncovered_routes  # noqa: E402
from reads_ratings import check_ratings, finish_build  # noqa: E402


@dataclass
class Timing:
    label: str
    url: str
    status: int
    queries: int  # warm
    cold_queries: int
    kb: float
    samples: list[float]  # warm
    cold: list[float] = field(default_factory=list)
    trips: int = 0  # cache round trips of a warm request

    def quantile(self, q: float, samples: list[float] | None = None) -> float:
        """Nearest rank: the smallest sample with at least q of them at or below it."""
        ordered = sorted(self.samples if samples is None else samples)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def clear_caches() -> None:
    """What a first read after a version moved finds: nothing stored for it. The cache
    is the bench's own (Redis db 5 by default); the rules pages' HTML and the replay
    answers last read are kept per process too."""
    from django.core.cache import cache

    from arena.dashboard.views import games as views
    from tournaments import readcache, selectors

    cache.clear()
    views._rules_html.cache_clear()
    # Each process's own copies of stored answers (absent in older trees).
    for forget in (
        getattr(selectors, "forget_replay_bodies", None),
        getattr(readcache, "forget_kept", None),
    ):
        if forget is not None:
            forget()


CACHE_CALLS = ("get", "get_many", "set", "set_many", "add", "delete", "incr", "has_key", "touch")


@contextlib.contextmanager
def counting_cache_trips():
    """The calls made to the default cache meanwhile (each one round trip to Redis)."""
    from django.core.cache import caches

    backend, calls = caches["default"], []
    for name in CACHE_CALLS:
        method = getattr(backend, name)

        def counted(*args, _method=method, _name=name, **kwargs):
            calls.append(_name)
            return _method(*args, **kwargs)

        setattr(backend, name, counted)
    try:
        yield calls
    finally:
        for name in CACHE_CALLS:
            delattr(backend, name)


def time_endpoint(client, label: str, url: str, budget: float) -> Timing:
    from django.db import connection

    queries = []

    def count(execute, sql_, params, many, context):
        queries.append(sql_)
        return execute(sql_, params, many, context)

    def get(cold: bool):
        if cold:
            clear_caches()
        began = time.perf_counter()
        response = client.get(url)
        return response, time.perf_counter() - began

    # The wrapper stays on the connection object across the client's reconnections
    # (request_started resets Django's own query log, so CaptureQueriesContext sees none).
    with connection.execute_wrapper(count):
        response, first = get(cold=True)
    cold_queries, status = len(queries), response.status_code
    size = len(response.content) / 1024
    cold = [first]
    planned = COLD if not budget or first * (TIMED + COLD) <= budget else 1
    while len(cold) < planned:
        cold.append(get(cold=True)[1])
    queries.clear()
    with connection.execute_wrapper(count):
        get(cold=False)  # stores what the cold ones dropped
    warm_queries = len(queries)
    with counting_cache_trips() as trips:
        get(cold=False)
    for _ in range(WARMUPS - 2):
        get(cold=False)
    samples: list[float] = []
    planned = TIMED
    while len(samples) < planned:
        response, seconds = get(cold=False)
        samples.append(seconds)
        status = status if response.status_code == status else response.status_code
        if budget and len(samples) == 1 and samples[0] * TIMED > budget:
            planned = max(5, int(budget / samples[0]))
    return Timing(
        label, url, status, warm_queries, cold_queries, size, samples, cold, trips=len(trips)
    )


def print_table(timings: list[Timing]) -> None:
    # The yardstick is timed first and last. The goals use the lower of the two runs' p95s:
    # a few slow samples in one run (on 2026-11-29 the last run's p95 read 4.6 ms against
    # 1.5 ms in the first) would otherwise lift the yardstick, and with it every verdict.
    sticks = [t for t in timings if t.url == YARDSTICK]
    stick = Timing(YARDSTICK, YARDSTICK, 200, 0, 0, 0, [x for t in sticks for x in t.samples])
    per_run = [t.quantile(0.95) * 1000 for t in sticks]
    base = min(per_run)
    header = (
        f"{'endpoint':<42} {'st':>3} {'sql':>4} {'rt':>3} {'cold':>4} {'KB':>6} {'n':>3} {'p50 ms':>8}"
        f" {'p95 ms':>8} {'ratio':>7} {'cold ms':>8} {'cold x':>7} {'goal':>5} {'cgoal':>5}"
    )
    print(f"\n{header}\n{'-' * len(header)}")
    over = over_cold = 0
    for timing in timings:
        p50, p95 = timing.quantile(0.5) * 1000, timing.quantile(0.95) * 1000
        cold = timing.quantile(0.5, timing.cold) * 1000
        ratio, cold_ratio = p95 / base, cold / base
        flags = []
        if timing.url != YARDSTICK:
            over += ratio > GOAL_RATIO
            over_cold += cold_ratio > COLD_GOAL_RATIO
        if ratio > GOAL_RATIO:
            flags.append("OVER")
        if cold_ratio > COLD_GOAL_RATIO:
            flags.append("cold over")
        if timing.status != 200:
            flags.append(f"status {timing.status}")
        print(
            f"{timing.label:<42} {timing.status:>3} {timing.queries:>4} {timing.trips:>3}"
            f" {timing.cold_queries:>4}"
            f" {timing.kb:>6.0f} {len(timing.samples):>3} {p50:>8.1f} {p95:>8.1f}"
            f" {ratio:>6.1f}x {cold:>8.1f} {cold_ratio:>6.1f}x {GOAL_RATIO:>4.0f}x"
            f" {COLD_GOAL_RATIO:>4.0f}x {' '.join(flags)}"
        )
    reads = len([t for t in timings if t.url != YARDSTICK])
    print(
        f"\n{YARDSTICK} p95 {base:.2f} ms, the lower of its first and last runs'"
        f" ({', '.join(f'{x:.2f}' for x in per_run)} ms; p50 {stick.quantile(0.5) * 1000:.2f} ms"
        f" over {len(stick.samples)} samples). Goal: every read at most"
        f" {GOAL_RATIO:.0f}x that warm, {COLD_GOAL_RATIO:.0f}x cold.\n  warm (p95): {reads - over} of"
        f" {reads} reads within {GOAL_RATIO:.0f}x; {over} over.\n  cold (median of up to {COLD}"
        f" first reads, the cache emptied before each): {reads - over_cold} of {reads} within"
        f" {COLD_GOAL_RATIO:.0f}x; {over_cold} over."
    )


def main() -> None:
    args = ARGS
    sys.stdout.reconfigure(line_buffering=True)  # progress in order, also into a file
    sizes = Sizes.of(args.scale)
    total_began = time.perf_counter()
    reuse = args.reuse and database_built(args.database, args.scale)
    if not reuse:
        print(f"building {args.database.rsplit('/', 1)[-1]} at scale {args.scale}: {sizes}")
        recreate_database(args.database)
    else:
        print(f"reusing {args.database.rsplit('/', 1)[-1]} (built at scale {args.scale})")

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0, interactive=False)
    if reuse:
        built = read_mark()
        finish_build(built)  # read models of code newer than the build, and a fresh fit
    else:
        began = time.perf_counter()
        built = build(sizes)
        finish_build(built)
        built.seconds["build"] = time.perf_counter() - began
        mark_built(args.scale, built)
        print(f"build: {built.seconds['build']:.0f} s in all; {built.counts}")
    # The read models were just written again (every --reuse run rewrites them): vacuum as
    # autovacuum would have (it may be off, as on the development machine, where 45 runs
    # left 450,000 dead leaderboard rows behind 10,000 live ones and the board's reads
    # took a sequential scan and a sort).
    from django.db import connection

    began = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"  VACUUM ANALYZE {time.perf_counter() - began:10.1f} s", flush=True)
    if args.check:
        check_ratings()

    # The process as a server's worker is when it serves: arena.wsgi loads the URLconf and
    # freezes start-up's objects (and here the build's) out of the collector's passes.
    import arena.wsgi  # noqa: F401

    clear_caches()
    client = Client()
    timings = []
    todo = endpoints(built)
    print(
        f"\nlong match: {built.ids['long_match']} ({built.ids['long_moves']} moves);"
        f" bot {built.ids['bot']} vs {built.ids['other_bot']} for head to head;"
        f" cache {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}; load"
        f" {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        f"per endpoint: {COLD} cold requests (cache emptied before each), {WARMUPS} warm-ups,"
        f" {TIMED} timed warm requests (fewer past --budget)"
    )
    for label, url in todo + [("api games (yardstick, again)", YARDSTICK)]:
        if args.only and args.only not in label and url != YARDSTICK:
            continue
        timing = time_endpoint(client, label, url, args.budget)
        timings.append(timing)
        print(
            f"  {label:<42} p95 {timing.quantile(0.95) * 1000:9.1f} ms ({len(timing.samples)}),"
            f" cold {timing.quantile(0.5, timing.cold) * 1000:9.1f} ms",
            flush=True,
        )
    print_table(timings)
    print(f"load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    missing = uncovered_routes([url for _, url in todo])
    if missing:
        print("routes not timed (add them to endpoints() if they read data):")
        for route in missing:
            print(f"  {route}")
    print(f"total run {time.perf_counter() - total_began:.0f} s")
    if not args.keep:
        drop_database(args.database)
        print("database dropped (--keep leaves it for --reuse)")


if __name__ == "__main__":
    main()
