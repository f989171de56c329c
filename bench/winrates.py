"""Heuristic against random in every registered game (printed, not a test).

One seat plays the heuristic, every other seat plays random; the heuristic's
seat moves round the table from match to match. A match counts as a win when
the heuristic's seat ranks first (a shared first place counts). Usage:

    .venv/bin/python bench/winrates.py [matches] [slug ...]   # default: 1000, every game
    .venv/bin/python bench/winrates.py 1000 'pairs?continuous=true&calamities=true'

Options ride on the slug after ``?`` (values are JSON: true, 3, "seattle" or bare words).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry  # noqa: E402
from games.rng import Rng, derive_seed  # noqa: E402


def parse(spec: str) -> tuple[str, dict]:
    """``pairs?continuous=true&gambling=seattle`` -> ("pairs", {...})."""
    slug, _, query = spec.partition("?")
    options = {}
    for pair in filter(None, query.split("&")):
        name, _, text = pair.partition("=")
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text
    return slug, options


def play(game, players: int, seed: int, hero: int, options: dict) -> dict:
    state = game.new_match(players=players, seed=seed, options=options)
    rng = Rng(derive_seed(seed, "winrates"))
    heuristic = game.policies["heuristic"]
    random = game.policies["random"]
    while not state.is_over():
        moves = {}
        for seat in state.to_act():
            policy = heuristic if seat == hero else random
            moves[seat] = policy(state.observation(seat), state.legal_actions(seat), rng)
        state.apply(moves)
    return state.result()["seats"][hero]


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    slugs = sys.argv[2:] or registry.slugs()
    for spec in slugs:
        slug, options = parse(spec)
        game = registry.get(slug)
        for players in game.player_counts(options):
            start = time.perf_counter()
            wins = 0
            net = 0
            for i in range(matches):
                hero = i % players
                seat = play(game, players, seed=i, hero=hero, options=options)
                wins += seat["rank"] == 1
                net += seat["score"]
            took = time.perf_counter() - start
            # In a team game the heuristic's partners play random: its team is what ranks.
            sides = len(game.teams(players)) or players
            print(
                f"{spec} p{players}: heuristic first in {wins / matches:.1%} "
                f"(chance {1 / sides:.1%}), mean score {net / matches:+.2f}, "
                f"{matches} matches in {took:.1f}s"
            )


if __name__ == "__main__":
    main()
