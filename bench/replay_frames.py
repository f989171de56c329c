"""What the replay viewer costs: building one seat's frames, and their size on the wire.

    .venv/bin/python bench/replay_frames.py            # every game, 3 random matches each
    .venv/bin/python bench/replay_frames.py --matches 10 --games paks,paiute

Each match is played by the random policy at the game's largest table of at most four
seats, then replayed move by move as ``arena.dashboard.frames.frames_from_record`` does for the
API (an observation per move, cut to the layout's keys, changed keys only). A finished
match's frames are cached per seat, so this is the cost of a first view only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

import django  # noqa: E402

django.setup()

from arena.dashboard.frames import frames_from_record  # noqa: E402
from games import registry  # noqa: E402
from games.policies import play_out, random_policy  # noqa: E402
from games.rng import Rng  # noqa: E402

GOAL_MS = 500  # a first view of the longest match should answer within half a second
GOAL_KB = 512  # ... and weigh at most this much before compression


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--games", default=",".join(registry.slugs()))
    args = parser.parse_args()
    print(f"goal: at most {GOAL_MS} ms and {GOAL_KB} KB for one seat's frames of a match")
    print(f"{'game':22} {'players':>7} {'moves':>6} {'ms (max)':>9} {'KB (max)':>9}")
    worst_ms = worst_kb = 0.0
    for slug in args.games.split(","):
        game = registry.get(slug)
        players = max(n for n in game.player_counts() if n <= 4)
        most_moves, slowest, heaviest = 0, 0.0, 0.0
        for seed in range(args.matches):
            state = play_out(
                game.new_match(players=players, seed=seed), [random_policy] * players, Rng(seed)
            )
            record = state.to_json()
            began = time.process_time()
            frames = frames_from_record(record, seat=0)
            slowest = max(slowest, (time.process_time() - began) * 1000)
            heaviest = max(heaviest, len(json.dumps(frames, separators=(",", ":"))) / 1024)
            most_moves = max(most_moves, len(record["moves"]))
        worst_ms, worst_kb = max(worst_ms, slowest), max(worst_kb, heaviest)
        print(f"{slug:22} {players:>7} {most_moves:>6} {slowest:>9.0f} {heaviest:>9.0f}")
    verdict = "met" if worst_ms <= GOAL_MS and worst_kb <= GOAL_KB else "NOT met"
    print(
        f"worst: {worst_ms:.0f} ms (goal {GOAL_MS}), {worst_kb:.0f} KB (goal {GOAL_KB}): {verdict}"
    )


if __name__ == "__main__":
    main()
