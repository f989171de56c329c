"""Real Pairs and Paks matches played by the built-in policies: the rows the data set copies."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from reads_db import _text


@dataclass
class Game:
    """One real match played by the built-in policies: what its rows copy."""

    seed: int
    ranks: tuple[int, int]
    scores: tuple[int, int]
    result: str  # COPY-escaped JSON with {label0} / {label1} placeholders
    moves: str  # COPY-escaped JSON
    record: str  # COPY-escaped JSON
    game: str = "pairs"

    def outcome(self) -> int:
        """0: seat 0 ranked first, 1: a draw, 2: seat 1 ranked first."""
        a, b = self.ranks
        return 0 if a < b else (1 if a == b else 2)

    def result_for(self, label0: str, label1: str) -> str:
        return self.result.replace("@@LABEL0@@", label0).replace("@@LABEL1@@", label1)


def _escaped(value) -> str:
    return _text(json.dumps(value, separators=(",", ":")))


def play_game(slug: str, seed: int, policies: tuple[str, str], options: dict | None = None):
    from bots.players import BuiltinPlayer
    from bots.runner import Clock, play_match
    from games import registry

    game = registry.get(slug)
    players = [BuiltinPlayer(game, name, seed + i) for i, name in enumerate(policies)]
    return play_match(
        game_slug=slug, players=players, options=options or {}, seed=seed, clock=Clock()
    )


def template_game(outcome, slug: str = "pairs") -> Game:
    result = json.loads(json.dumps(outcome.result))
    for i, seat in enumerate(result["seats"]):
        seat["bot"] = f"@@LABEL{i}@@"
    seats = outcome.result["seats"]
    return Game(
        seed=outcome.seed,
        ranks=(seats[0]["rank"], seats[1]["rank"]),
        scores=(seats[0]["score"], seats[1]["score"]),
        result=_escaped(result),
        moves=_escaped(outcome.moves),
        record=_escaped(outcome.record),
        game=slug,
    )


def pairs_templates(tables: int, rng: np.random.Generator):
    """Duplicate tables of real Pairs matches: (game, the same deal with seats swapped)."""
    out = []
    for _ in range(tables):
        seed = int(rng.integers(1, 2**62))
        first = play_game("pairs", seed, ("heuristic", "random"))
        second = play_game("pairs", seed, ("random", "heuristic"))
        out.append((template_game(first), template_game(second)))
    return out
