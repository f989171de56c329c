"""How fast a pool's ratings are recomputed from scratch, and in how much memory.

Goal (issue 18): at least 200,000 matches/s, in memory that stays flat as the number of
matches grows. ``tournaments.services.recompute`` streams the pool's seat rows through
one ordered server-side cursor and folds them without a model per match.

The bench builds, in its own PostgreSQL database, pools of N rated two-seat matches
(COPY, a few seconds per million) between 1,000 versions of 500 bots (each bot's second
version the child of its first, so new versions start from their parents), ladder-shaped:
each match pairs a version with one of its 40 nearest, with 10% draws. A pool is built
once and kept for the next run. Each size is then timed in a fresh process:

- recompute: ``recompute_ratings`` (read and fold), the check;
- rebuild: ``rebuild_ratings`` (read, fold, and rewrite the pool's ratings, records and
  pair sums with COPY under the ledger lock).

Wall time is what the goal is about; on a shared machine it also measures the others'
load, so the CPU seconds of this process and of its PostgreSQL backend are printed
beside it (the two run side by side: PostgreSQL streams rows while Python folds).

Memory: the process's peak resident set (VmHWM) minus its resident set just
before the call, at each size: flat means the same at 10x the matches.

Run: .venv/bin/python bench/recompute.py [--sizes 100000,1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/arena_bench_recompute"
GOAL = 200_000
VERSIONS = 1_000


def rss_kib(field: str = "VmRSS") -> int:
    """This process's resident set (VmRSS) or its peak (VmHWM), in KiB. Not ru_maxrss: that
    survives exec, so a child would inherit the peak of the bench that started it."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    import django

    django.setup()


def ensure_database(url: str) -> None:
    from urllib.parse import urlsplit

    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def versions() -> list[int]:
    """The bench's 1,000 versions (500 bots, two versions each, the second a child)."""
    import hashlib

    from django.contrib.auth import get_user_model

    from bots.models import Bot, BotVersion

    existing = list(
        BotVersion.objects.filter(bot__name__startswith="rb-")
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if len(existing) == VERSIONS:
        return existing
    owner, _ = get_user_model().objects.get_or_create(username="bench-recompute")
    bots = Bot.objects.bulk_create(
        Bot(owner=owner, name=f"rb-{i}", game="pairs") for i in range(VERSIONS // 2)
    )

    def version(bot, number, parent=None):
        source = f"# {bot.name} {number}\n".encode()
        return BotVersion(
            bot=bot, number=number, filename="main.py", upload=source, size=len(source),
            sha256=hashlib.sha256(source).hexdigest(), status=BotVersion.Status.ACTIVE,
            parent=parent,
        )  # fmt: skip

    first = BotVersion.objects.bulk_create(version(bot, 1) for bot in bots)
    second = BotVersion.objects.bulk_create(version(v.bot, 2, v) for v in first)
    return [v.pk for v in first + second]


def build(pool: str, size: int, keys: list[int]) -> None:
    """``size`` rated matches in ``pool`` with their seats, by COPY (skipped if there)."""
    import numpy as np
    from django.db import connection

    from tournaments.models import Match

    have = Match.objects.filter(pool=pool).count()
    if have == size:
        return
    Match.objects.filter(pool=pool).delete()
    rng = np.random.default_rng(size)
    order = np.array(keys)
    # A version's first version plays the first half of the pool, its child the second.
    half = VERSIONS // 2
    first = rng.integers(0, half, size)
    offset = rng.integers(1, 21, size) * rng.choice([-1, 1], size)
    second = np.clip(first + offset, 0, half - 1)
    second = np.where(second == first, (first + 1) % half, second)
    late = np.arange(size) >= size // 2
    first = np.where(late, first + half, first)
    second = np.where(late, second + half, second)
    roll = rng.random(size)
    rank_a = np.where(roll < 0.55, 1, 2)  # 45% first seat wins, 10% draws
    rank_b = np.where(roll < 0.45, 2, 1)
    with connection.cursor() as django_cursor:
        cursor = django_cursor.cursor
        cursor.execute("SELECT coalesce(max(id), 0) FROM tournaments_match")
        base = cursor.fetchone()[0] + 1
        started = time.perf_counter()
        columns = (
            "id, round, number, game, engine_version, options, seed, move_ms, bank_ms, status,"
            " attempts, worker, result, error, rated_seq, pairing_key, series, pool"
        )
        with cursor.copy(f"COPY tournaments_match ({columns}) FROM STDIN") as copy:
            for i in range(size):
                result = (
                    f'{{"seats": [{{"rank": {rank_a[i]}, "score": 0}}, '
                    f'{{"rank": {rank_b[i]}, "score": 0}}], "teams": []}}'
                )
                copy.write_row(
                    (base + i, 1, 1, "pairs", 1, "{}", i, 1000, 10000, "finished", 1, "",
                     result, "", i + 1, "", "", pool)
                )  # fmt: skip
        with cursor.copy(
            "COPY tournaments_matchseat (match_id, seat, version_id, score, rank, log) FROM STDIN"
        ) as copy:
            for i in range(size):
                copy.write_row((base + i, 0, int(order[first[i]]), 0, int(rank_a[i]), ""))
                copy.write_row((base + i, 1, int(order[second[i]]), 0, int(rank_b[i]), ""))
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('tournaments_match', 'id'),"
            " (SELECT max(id) FROM tournaments_match))"
        )
        cursor.execute("ANALYZE tournaments_match")
        cursor.execute("ANALYZE tournaments_matchseat")
    print(f"  built {pool}: {size:,} matches in {time.perf_counter() - started:.1f} s")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child(what: str, pool: str) -> None:
    """Time one call in this (fresh) process; print a JSON line."""
    from django.db import connection

    from tournaments.services.recompute import rebuild_ratings, recompute_ratings

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    before = rss_kib()
    backend_cpu = cpu_seconds(backend)
    cpu = time.process_time()
    started = time.perf_counter()
    if what == "recompute":
        recompute_ratings(pool=pool)
    else:
        rebuild_ratings(pool=pool)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    backend_cpu = cpu_seconds(backend) - backend_cpu
    peak = rss_kib("VmHWM")
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu": cpu,
                "backend_cpu": backend_cpu,
                "growth_kib": peak - before,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,400000", help="matches per pool")
    parser.add_argument(
        "--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE)
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        setup_django(args.database_url)
        child(*args.child)
        return
    ensure_database(args.database_url)
    setup_django(args.database_url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    sizes = [int(s) for s in args.sizes.split(",")]
    keys = versions()
    for size in sizes:
        build(f"bench:{size}", size, keys)
    print(f"goal: {GOAL:,} matches/s, peak memory flat as matches grow")
    for what in ("recompute", "rebuild"):
        for size in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--database-url", args.database_url,
                 "--child", what, f"bench:{size}"],
                check=True, capture_output=True, text=True, cwd=ROOT,
            ).stdout  # fmt: skip
            figures = json.loads(out.strip().splitlines()[-1])
            rate = size / figures["seconds"]
            cpu = figures["cpu"] + figures["backend_cpu"]
            flag = "" if rate >= GOAL else "  below goal"
            print(
                f"{what:9} {size:>9,} matches: {figures['seconds']:6.2f} s wall,"
                f" {rate:>9,.0f} matches/s (goal {GOAL:,}){flag};"
                f" CPU {figures['cpu']:.2f} s here + {figures['backend_cpu']:.2f} s PostgreSQL"
                f" = {size / cpu:,.0f} matches per CPU second;"
                f" peak RSS growth {figures['growth_kib'] / 1024:5.1f} MiB"
            )
    print(f"load average over the last minute: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
