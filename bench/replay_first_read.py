"""The first read of a long finished match: building its stored replay on the read, or not.

    .venv/bin/python bench/replay_first_read.py                # a scratch test database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_x .venv/bin/python bench/replay_first_read.py

A finished match's replay answers (moves; events, frames and text log of the spectator and
each seat) are stored in one row (tournaments.read_models.replays). Without a row, its
first read builds it for every viewer at once, one replay of the record per part; a match
of ``ARENA_STORE_REPLAY_MOVES`` moves or more has its row built by a maintenance task once
its result commits, so its first read finds it. For each match (played by the random
policy and recorded as a worker records one), the median of ``--runs`` of:

- ``build``: the task's work, ``replays.store_replay`` (off every request path);
- ``no row``: a first read that builds the row for every viewer: what every first read
  paid before the task, and what one still pays when the task was lost (after one reaper
  period);
- ``building``: a first read while the task may still be building the row (a long match,
  within one reaper period of its finish): it builds only its own answer;
- ``stored``: a first read after the task has run (the cache empty);

for the replay API, the viewer's frames and the match page, each as seat 0 sees it.
Wall time of Django's test client in this process (no network); the database is a test
database created and dropped here (``test_`` + the configured name).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

# (label, game, seats, options, fewest moves): the first seed from 0 with that many moves.
MATCHES = [
    ("pairs, 2 seats (pipeline bench)", "pairs", 2, {}, 0),
    ("pairs-venture, 4 seats", "pairs-venture", 4, {}, 50),
    ("pairs-regent, 4 seats", "pairs-regent", 4, {}, 80),
    ("paiute, 4 seats", "paiute", 4, {}, 800),
    ("paks, 2 seats (reads bench)", "paks", 2, {}, 800),
    ("paks, 2 seats, target 5000", "paks", 2, {"target": 5000}, 5501),
]
READS = [("replay API", "/api/matches/{}/replay/?seat=0"), ("frames API", "/api/matches/{}/frames/?seat=0"), ("match page", "/matches/{}/?seat=0")]  # fmt: skip


def play(owner, slug: str, players: int, options: dict, fewest: int):
    """The first seed's match with at least ``fewest`` moves, recorded as a worker records
    one (running, then ``record_result``), without sending the task: the bench times the
    build itself, and no worker elsewhere should get this database's match ids."""
    from bots.models import Bot, BotVersion
    from bots.players import BuiltinPlayer
    from bots.runner import play_match
    from games import registry
    from tournaments.models import Match, MatchSeat
    from tournaments.services.playing import record_result

    game = registry.get(slug)
    for seed in range(1000):
        seats = [BuiltinPlayer(game, "random", seed + seat) for seat in range(players)]
        outcome = play_match(game_slug=slug, players=seats, options=options, seed=seed)
        if len(outcome.moves) >= fewest:
            break
    match = Match.objects.create(
        game=slug,
        engine_version=game.version,
        options=outcome.options,
        seed=seed,
        status=Match.Status.RUNNING,
        attempts=1,
        started_at=timezone.now(),
    )
    for seat in range(players):
        bot, _ = Bot.objects.get_or_create(owner=owner, name=f"{slug}-{seat}", game=slug)
        version = BotVersion.objects.create(
            bot=bot, number=bot.versions.count() + 1, filename="main.py", upload=b"#\n",
            sha256=f"{match.pk}-{seat}", size=2, status=BotVersion.Status.ACTIVE,
        )  # fmt: skip
        MatchSeat.objects.create(match=match, seat=seat, version=version)
    with override_settings(ARENA_STORE_REPLAY_MOVES=10**9):
        record_result(match_id=match.pk, attempt=1, outcome=outcome.to_dict())
    return Match.objects.get(pk=match.pk)


def ms(action) -> float:
    began = time.perf_counter()
    action()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from tournaments.models import MatchReplay
    from tournaments.read_models import replays

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        owner = get_user_model().objects.create_user("bench-replays")
        client = Client()

        def build(match_id: int) -> float:
            MatchReplay.objects.filter(match_id=match_id).delete()
            return ms(lambda: replays.store_replay(match_id=match_id))

        def first_read(match_id: int, url: str, *, row: str) -> float:
            MatchReplay.objects.filter(match_id=match_id).delete()
            if row == "stored":
                replays.store_replay(match_id=match_id)
            cache.clear()
            # The task's window: always over ("none"), or never ("building").
            window = 10**9 if row == "building" else 0
            with override_settings(ARENA_STORE_REPLAY_EXPIRES=window):
                return ms(lambda: client.get(url.format(match_id)))

        threshold = settings.ARENA_STORE_REPLAY_MOVES
        print(
            f"load average {os.getloadavg()[0]:.2f}; {connection.vendor}; median of {args.runs}"
            f" runs, ms; rows built by the task from {threshold} moves (ARENA_STORE_REPLAY_MOVES)"
        )
        print(f"{'match':34} {'moves':>6} {'task':>5} {'build':>7}  {'read':10} "
              f"{'no row':>7} {'building':>8} {'stored':>7}")  # fmt: skip
        longest, below = ("", 0, [], [], []), 0.0
        for label, slug, players, options, fewest in MATCHES:
            match = play(owner, slug, players, options, fewest)
            moves = len(match.moves)
            first_read(match.pk, READS[0][1], row="none")  # warm the code paths
            built = statistics.median(build(match.pk) for _ in range(args.runs))
            task = "yes" if moves >= threshold else "no"
            if task == "yes" and moves > longest[1]:
                longest = (label, moves, [], [], [])
            for i, (name, url) in enumerate(READS):
                # Alternated, so a burst of load on a shared machine hits both alike.
                cold, building, warm = [], [], []
                for _ in range(args.runs):
                    cold.append(first_read(match.pk, url, row="none"))
                    building.append(first_read(match.pk, url, row="building"))
                    warm.append(first_read(match.pk, url, row="stored"))
                cold, warm = statistics.median(cold), statistics.median(warm)
                building = statistics.median(building)
                if task == "no":
                    below = max(below, cold)
                elif longest[1] == moves:
                    longest[2].append(cold)
                    longest[3].append(warm)
                    longest[4].append(building)
                head = (label, moves, task, f"{built:.0f}") if i == 0 else ("", "", "", "")
                print(f"{head[0]:34} {head[1]:>6} {head[2]:>5} {head[3]:>7}  {name:10} "
                      f"{cold:7.1f} {building:8.1f} {warm:7.1f}")  # fmt: skip
        label, moves = longest[0], longest[1]
        cold, warm, building = (max(times) for times in longest[2:])
        print(
            f"the longest match ({label}, {moves} moves), its slowest first read: {cold:.0f} ms"
            f" building the row on the read (before), {warm:.0f} ms with the row the task"
            f" stored (after), {building:.0f} ms while the task runs"
        )
        print(f"below {threshold} moves a first read still builds: at most {below:.0f} ms here")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
