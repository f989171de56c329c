"""Conservation soak for the secret-hand Pairs games (printed, not a test).

Plays random matches of Hawthorn, Goblin Poker, Monster, Regent and Troll
Guts, spread over every player count, and checks after every action that
the chips (stacks plus pot) and the 55 cards are all still there, that
the match ends within ``Game.max_actions``, and that the result ranks the
seats by net chips. Any failure raises with the slug, player count and seed.

    .venv/bin/python bench/soak_secret.py                 # 10,000 matches per game
    .venv/bin/python bench/soak_secret.py 500 pairs-monster
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry  # noqa: E402
from games.rng import Rng, derive_seed  # noqa: E402
from games.scoring import ranks_from_scores  # noqa: E402

SLUGS = [
    "pairs-hawthorn",
    "pairs-goblin-poker",
    "pairs-monster",
    "pairs-regent",
    "pairs-troll-guts",
]


def soak_one(game, players: int, seed: int) -> tuple[int, int]:
    """One random match with every check; returns (actions, games in the session)."""
    state = game.new_match(players=players, seed=seed)
    rng = Rng(derive_seed(seed, "soak"))
    expected = state.conserved()
    assert expected["cards"] == 55 and expected["chips"] == 0, (game.slug, players, seed)
    actions = 0
    while not state.is_over():
        moves = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            moves[seat] = legal[rng.below(len(legal))]
        state.apply(moves)
        actions += 1
        if state.conserved() != expected:
            raise AssertionError(f"{game.slug} p{players} seed {seed}: leak at action {actions}")
        if actions > game.max_actions:
            raise AssertionError(f"{game.slug} p{players} seed {seed}: endless")
    seats = state.result()["seats"]
    scores = [seat["score"] for seat in seats]
    if [seat["rank"] for seat in seats] != ranks_from_scores(scores):
        raise AssertionError(f"{game.slug} p{players} seed {seed}: ranks do not follow chips")
    if sum(scores) + state.pot.chips != 0:
        raise AssertionError(f"{game.slug} p{players} seed {seed}: chips do not net to zero")
    return actions, len(state.session.hands)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Conservation soak of the secret-hand games.")
    parser.add_argument("matches", nargs="?", type=int, default=10_000, help="matches per game")
    parser.add_argument(
        "slugs",
        nargs="*",
        metavar="slug",
        help=f"games (default: all of {', '.join(SLUGS)})",
    )
    args = parser.parse_args()
    if args.matches < 1:
        parser.error("matches must be at least 1")
    # Checked here: argparse would test a list default against ``choices`` as one value.
    unknown = [slug for slug in args.slugs if slug not in SLUGS]
    if unknown:
        parser.error(
            f"not a secret-hand game: {', '.join(unknown)}; choose from {', '.join(SLUGS)}"
        )
    args.slugs = args.slugs or SLUGS
    return args


def main() -> None:
    args = arguments()
    matches = args.matches
    for slug in args.slugs:
        game = registry.get(slug)
        counts = game.player_counts()
        start = time.perf_counter()
        total_actions = total_games = longest = 0
        for i in range(matches):
            players = counts[i % len(counts)]
            actions, games = soak_one(game, players, seed=i)
            total_actions += actions
            total_games += games
            longest = max(longest, actions)
        took = time.perf_counter() - start
        print(
            f"{slug:20} {matches} matches ok ({total_games} games, {total_actions} actions, "
            f"longest match {longest} actions) in {took:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
