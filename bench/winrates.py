"""Heuristic against random in every registered game (printed, not a test).

One seat plays the heuristic, every other seat plays random; the heuristic's
seat moves round the table from match to match. Each row gives:

- ``first``: how often the heuristic's seat ranks first (a shared first counts);
- ``a random seat``: how often one of the random opponents does, in the same
  matches. This, not 1/players, is the baseline: in games where first places
  are often shared (Venture at big tables) 1/players understates it;
- ``pairwise``: the share of opponents the heuristic finishes ahead of, ties
  counted half (50% = no edge). The Elo of a multi-seat match is built from
  exactly these pairwise results, so it is the figure a rating would show.

In team games the heuristic's partners play random; only seats of other teams
count as opponents. Usage:

    .venv/bin/python bench/winrates.py [matches] [slug ...]   # default: 1000, every game
    .venv/bin/python bench/winrates.py 1000 'pairs?continuous=true&calamities=true'
    .venv/bin/python bench/winrates.py 1000 'pairs-venture?drafting=true' --players 6 7 8

Options ride on the slug after ``?`` (values are JSON: true, 3, "seattle" or bare words).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry  # noqa: E402
from games.policies import hero_among_random, play_out  # noqa: E402
from games.protocol import InvalidOptions  # noqa: E402
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


def play(game, players: int, seed: int, hero: int, options: dict) -> list[dict]:
    state = game.new_match(players=players, seed=seed, options=options)
    seats = hero_among_random(game.policies["heuristic"], hero, players)
    play_out(state, seats, Rng(derive_seed(seed, "winrates")))
    return state.result()["seats"]


def opponents(game, players: int, options: dict, hero: int) -> list[int]:
    """Seats not on the heuristic's team (every other seat when nobody plays in teams)."""
    partners = next((team for team in game.teams(players, options) if hero in team), [hero])
    return [seat for seat in range(players) if seat not in partners]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Heuristic against random seats, per game.")
    parser.add_argument("matches", nargs="?", type=int, default=1000, help="matches per row")
    parser.add_argument("slugs", nargs="*", help="games, options after '?' (default: all)")
    parser.add_argument("--players", nargs="+", type=int, help="only these table sizes")
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("matches must be at least 1")
    for spec in args.slugs:
        slug, options = parse(spec)
        try:
            registry.get(slug).resolve_options(options)
        except (registry.UnknownGame, InvalidOptions) as error:
            parser.error(str(error))
    return args


def main() -> None:
    args = arguments()
    matches = args.matches
    for spec in args.slugs or registry.slugs():
        slug, options = parse(spec)
        game = registry.get(slug)
        for players in game.player_counts(options):
            if args.players and players not in args.players:
                continue
            start = time.perf_counter()
            wins = random_wins = pairwise = 0.0
            net = 0
            for i in range(matches):
                hero = i % players
                seats = play(game, players, seed=i, hero=hero, options=options)
                rivals = opponents(game, players, options, hero)
                mine = seats[hero]["rank"]
                wins += mine == 1
                random_wins += sum(seats[s]["rank"] == 1 for s in rivals) / len(rivals)
                pairwise += sum(
                    (mine < seats[s]["rank"]) + 0.5 * (mine == seats[s]["rank"]) for s in rivals
                ) / len(rivals)
                net += seats[hero]["score"]
            took = time.perf_counter() - start
            print(
                f"{spec} p{players}: first {wins / matches:.1%} "
                f"(a random seat {random_wins / matches:.1%}), "
                f"pairwise {pairwise / matches:.1%}, mean score {net / matches:+.2f}, "
                f"{matches} matches in {took:.1f}s"
            )


if __name__ == "__main__":
    main()
