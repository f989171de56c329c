"""How much of a Venture match is luck (printed, not a test).

Three players take the same seat against random bidders, on the same seeds:
``random``; the ``heuristic``; and the heuristic allowed to peek at every other
hand (the same search, with the true hands in place of guessed ones). The gap
between the peeking player and random is roughly the most any bot could gain
from reading the table; what is left is the shuffle. Each is measured for one
deal and for the default match (one deal per player).

    .venv/bin/python bench/venture_luck.py [matches] [players ...]   # default: 300, 3 5 8

The rules page (docs/rules/pairs-venture.md, "How long a match is") quotes it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.pairs.venture import GAME  # noqa: E402
from games.pairs.venture_policy import _bid, heuristic  # noqa: E402
from games.policies import hero_among_random, play_out, random_policy  # noqa: E402
from games.rng import Rng, derive_seed  # noqa: E402


def peeking(state, seat: int):
    """The heuristic, with the other hands read from the state instead of guessed."""

    def policy(observation: dict, legal: list, rng: Rng):
        if observation["phase"] != "bid" or len(legal) == 1:
            return heuristic(observation, legal, rng)
        players = state.players
        others = [list(state.hands[(seat + i) % players]) for i in range(1, players)]
        return _bid(observation, legal, rng, others)

    return policy


def play(players: int, deals: int, seed: int, kind: str) -> tuple[bool, float]:
    """One match; the hero's (first place, share of opponents beaten, ties half)."""
    state = GAME.new_match(players, {"deals": deals}, seed=seed)
    hero = seed % players
    hero_policy = {"random": random_policy, "heuristic": heuristic}.get(kind) or peeking(
        state, hero
    )
    play_out(state, hero_among_random(hero_policy, hero, players), Rng(derive_seed(seed, "luck")))
    ranks = [seat["rank"] for seat in state.result()["seats"]]
    mine = ranks[hero]
    beaten = sum((mine < r) + 0.5 * (mine == r) for i, r in enumerate(ranks) if i != hero)
    return mine == 1, beaten / (players - 1)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="How much of a Venture match is luck.")
    parser.add_argument("matches", nargs="?", type=int, default=300, help="matches per row")
    parser.add_argument("players", nargs="*", type=int, default=[3, 5, 8], help="table sizes")
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("matches must be at least 1")
    for players in args.players:
        if not GAME.min_players <= players <= GAME.max_players:
            parser.error(f"Venture seats {GAME.min_players} to {GAME.max_players}, not {players}")
    return args


def main() -> None:
    args = arguments()
    matches = args.matches
    for players in args.players:
        for deals in (1, players):
            for kind in ("random", "heuristic", "peeking"):
                start = time.perf_counter()
                firsts = pairwise = 0.0
                for seed in range(matches):
                    first, beaten = play(players, deals, seed, kind)
                    firsts += first
                    pairwise += beaten
                print(
                    f"p{players} deals={deals} {kind:9}: first {firsts / matches:.1%}, "
                    f"pairwise {pairwise / matches:.1%} "
                    f"({matches} matches, {time.perf_counter() - start:.0f}s)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
