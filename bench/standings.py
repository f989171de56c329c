"""The tournament detail API of a 200-entrant round robin of 19,900 results, beside /api/games/.

Goal (issue 18): p95 of GET /api/tournaments/<id>/ at most 3x the p95 of GET /api/games/,
both through Django's in-process test client. The event is built set-based (bulk inserts of
finished matches and their seats, random ranks with draws and a few faults), then the read
models are rebuilt as ``manage.py rebuild_read_models`` would. Three figures:

- warm: the snapshot is current (every read after the first, until the next result);
- stale: a result arrived since the last read (the snapshot is rebuilt from the aggregates);
- direct: the old way, every decided game loaded and the format's standings computed again.

Run against a scratch database (it creates and keeps one tournament named "bench standings"):
  DATABASE_URL=postgres://.../arena_x .venv/bin/python bench/standings.py [--entrants 200]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

GOAL_RATIO = 3.0
NAME = "bench standings"


def build(entrants: int, seed: int):
    from bots.models import Bot, BotVersion
    from tournaments.formats.round_robin import round_robin
    from tournaments.models import Entry, Match, MatchSeat, Tournament
    from tournaments.read_models import rebuild_totals

    rng = random.Random(seed)
    owner, _ = get_user_model().objects.get_or_create(username="bench-standings")
    now = timezone.now()
    with transaction.atomic():
        bots = Bot.objects.bulk_create(
            [Bot(owner=owner, name=f"bench-rr-{seed}-{i}", game="pairs") for i in range(entrants)]
        )
        versions = BotVersion.objects.bulk_create(
            [
                BotVersion(
                    bot=bot,
                    number=1,
                    filename="main.py",
                    upload=b"# bench\n",
                    sha256=f"{seed:08x}{i:056x}",
                    size=8,
                    status=BotVersion.Status.ACTIVE,
                )
                for i, bot in enumerate(bots)
            ]
        )
        tournament = Tournament.objects.create(
            name=NAME,
            organiser=owner,
            game="pairs",
            format="round_robin",
            players_per_match=2,
            games_per_pairing=1,
            rotate_seats=False,
            rated=False,
            seeding="entry",
            seed=seed,
            start_at=now,
            started_at=now,
            status=Tournament.Status.FINISHED,
            finished_at=now,
        )
        Entry.objects.bulk_create(
            [
                Entry(tournament=tournament, bot=bot, version=v, seed_number=i)
                for i, (bot, v) in enumerate(zip(bots, versions))
            ]
        )
        plan = round_robin(entrants, 2, 1, False)
        matches = Match.objects.bulk_create(
            [
                Match(
                    tournament=tournament,
                    round=p.round,
                    number=n,
                    pairing_key=f"G{p.group}.{n - 1}",
                    game="pairs",
                    engine_version=1,
                    seed=n,
                    status=Match.Status.FAILED if rng.random() < 0.01 else Match.Status.FINISHED,
                    attempts=1,
                    started_at=now,
                    finished_at=now,
                )
                for n, p in enumerate(plan, start=1)
            ],
            batch_size=2000,
        )
        seats = []
        for match, p in zip(matches, plan):
            ranks = [1, 1] if rng.random() < 0.15 else rng.sample([1, 2], 2)
            for seat, entrant in enumerate(p.entrants):
                fault = {"kind": "crashed", "reason": "x"} if rng.random() < 0.01 else None
                seats.append(
                    MatchSeat(
                        match=match,
                        seat=seat,
                        version=versions[entrant],
                        rank=ranks[seat],
                        score=10 - ranks[seat],
                        fault=fault,
                    )
                )
        MatchSeat.objects.bulk_create(seats, batch_size=5000)
    began = time.perf_counter()
    rebuild_totals(tournament_id=tournament.pk)
    print(
        f"built {len(matches)} matches; read models rebuilt in {time.perf_counter() - began:.2f} s"
    )
    return tournament


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] * 1000


def median(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(client: Client, path: str, runs: int, before=None) -> list[float]:
    samples = []
    for _ in range(runs):
        if before:
            before()
        began = time.perf_counter()
        answer = client.get(path)
        samples.append(time.perf_counter() - began)
        assert answer.status_code == 200, answer.status_code
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rebuild", action="store_true", help="build the event again")
    args = parser.parse_args()
    from tournaments.models import Tournament
    from tournaments.selectors import overview_from_matches as direct_overview

    tournament = Tournament.objects.filter(name=NAME).order_by("-pk").first()
    if tournament is None or args.rebuild:
        tournament = build(args.entrants, seed=random.randrange(1 << 30))
    call_command("check", verbosity=0)
    client = Client()
    path = f"/api/tournaments/{tournament.pk}/"
    client.get(path)
    client.get("/api/games/")
    # Interleaved, so a burst of load on the shared machine hits both alike.
    games, warm = [], []
    for _ in range(args.runs):
        games += timed(client, "/api/games/", 1)
        warm += timed(client, path, 1)

    def bump():
        Tournament.objects.filter(pk=tournament.pk).update(
            results_version=tournament.results_version + random.randrange(1, 1 << 30)
        )

    stale = timed(client, path, max(5, args.runs // 4), before=bump)
    direct = []
    for _ in range(max(3, args.runs // 8)):
        began = time.perf_counter()
        direct_overview(tournament=Tournament.objects.get(pk=tournament.pk))
        direct.append(time.perf_counter() - began)
    matches = tournament.matches.count()
    from django.db import connection

    age = connection.settings_dict.get("CONN_MAX_AGE")
    print(
        f"round robin of {args.entrants} entrants, {matches} matches; p95 in ms over "
        f"{args.runs} interleaved runs (DB_CONN_MAX_AGE={age}: with 0 every request that "
        "touches the database opens a connection, /api/games/ does not); median in brackets"
    )
    print(f"  /api/games/                          {p95(games):8.1f}  [{median(games):.1f}]")
    limit = GOAL_RATIO * p95(games)
    ratio = p95(warm) / p95(games)
    verdict = "meets" if ratio <= GOAL_RATIO else "MISSES"
    print(
        f"  detail, snapshot current             {p95(warm):8.1f}  [{median(warm):.1f}] "
        f"({ratio:.1f}x; goal <= "
        f"{GOAL_RATIO:.0f}x = {limit:.1f} ms: {verdict})"
    )
    print(
        f"  detail, a result since the last read {p95(stale):8.1f}  [{median(stale):.1f}] "
        "(the snapshot rebuilt from the totals)"
    )
    print(
        f"  overview computed from every match   {p95(direct):8.1f}  [{median(direct):.1f}] "
        "(the old read, on every request)"
    )


if __name__ == "__main__":
    main()
