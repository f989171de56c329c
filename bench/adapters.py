"""Adapter steps per second beside the raw engine's, in the same run.

    .venv/bin/python bench/adapters.py [slug ...] [--seconds 1.0]

For each game (fewest players, default options), five loops of random play, each for
about ``--seconds`` of CPU time, counting single-seat decisions. Every loop draws its
random legal choice the same way (``games.rng.Rng.below`` over a legal list), so the
policy costs the same in each:

- ``engine``: to_act, legal_actions, apply (the engine alone, as bench/games.py);
- ``engine+obs``: the same plus ``observation(seat)`` for each decision (what a host
  hands a bot, and the least a learning environment must produce);
- ``pettingzoo``: the AEC loop: ``last()`` (vector and mask), a random legal integer,
  ``step``. The integer is drawn from ``info["legal_actions"]``, the legal integers the
  environment already has, as the engine loop draws from ``legal_actions`` and the
  OpenSpiel and vector loops from their legal lists: a random or rule-based agent has no
  use for the mask, and a learner samples from its own masked logits. Scanning the mask
  (``mask.nonzero()``) would time the policy, not the adapter: on Troll Guts' 90,966
  actions it costs more than an engine decision;
- ``openspiel``: ``legal_actions``, ``apply_action`` and the acting seat's
  ``observation_tensor``;
- ``vector``: ``games.adapters.vector`` with ``--envs`` matches (16 by default) in this
  one process: a random legal integer per match, one ``step`` for all of them. Its
  figure is decisions per CPU second of one core.

Each game's loops run in ``SLICES`` rounds of a quarter of ``--seconds`` each, every loop
once per round; a figure is the median over the rounds and a ratio the median of the
rounds' ratios, so the machine's drift during a row moves both sides of a ratio alike.

Goals (issue 36): PettingZoo and OpenSpiel at least 0.5x ``engine+obs`` decisions/s on
every game; the vector figure is printed beside them (no goal of its own). Each ratio
is printed with its goal. Needs the extras (requirements-extras.txt).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry  # noqa: E402
from games.adapters.openspiel import load  # noqa: E402
from games.adapters.pettingzoo import env as make_env  # noqa: E402
from games.adapters.spec import spec  # noqa: E402
from games.adapters.vector import vector  # noqa: E402
from games.rng import Rng  # noqa: E402

GOAL = 0.5  # PettingZoo and OpenSpiel decisions/s over engine+obs
SLICES = 4  # rounds of every loop per game


def engine_loop(slug: str, players: int, seconds: float, observe: bool) -> float:
    game = registry.get(slug)
    rng = Rng(1)
    decisions, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_match(players=players, seed=seed)
        seed += 1
        while not state.is_over():
            moves = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                if observe:
                    state.observation(seat)
                moves[seat] = legal[rng.below(len(legal))]
                decisions += 1
            state.apply(moves)
    return decisions / (time.process_time() - start)


def pettingzoo_loop(slug: str, players: int, seconds: float) -> float:
    e = make_env(slug, players)
    rng = Rng(1)
    decisions, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        e.reset(seed=seed)
        seed += 1
        for _agent in e.agent_iter():
            _, _, terminated, truncated, info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = info["legal_actions"]
            e.step(legal[rng.below(len(legal))])
            decisions += 1
    return decisions / (time.process_time() - start)


def openspiel_loop(slug: str, players: int, seconds: float) -> float:
    game = load(slug, players)
    rng = Rng(1)
    decisions, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        state.apply_action(seed % game.max_chance_outcomes())
        seed += 1
        while not state.is_terminal():
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions(player)
            state.apply_action(legal[rng.below(len(legal))])
            decisions += 1
    return decisions / (time.process_time() - start)


def vector_loop(slug: str, players: int, seconds: float, envs: int) -> float:
    batched = vector(slug, envs, players, seed=1)
    rng = Rng(1)
    decisions = 0
    start = time.process_time()
    batch = batched.reset()
    while time.process_time() - start < seconds:
        batch = batched.step([legal[rng.below(len(legal))] for legal in batch.legal])
        decisions += envs
    return decisions / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="adapter decisions/s beside the engine's")
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--envs", type=int, default=16, help="matches in the vector loop")
    args = parser.parse_args(argv)
    slugs = args.slugs or registry.slugs()
    print(
        f"decisions per CPU second (one core); ratios over engine+obs; "
        f"goal: pettingzoo and openspiel >= {GOAL}x; vector: {args.envs} matches"
    )
    print(
        f"{'game':20} {'engine':>8} {'engine+obs':>10} "
        f"{'pettingzoo':>10} {'ratio':>6} {'goal':>5} "
        f"{'openspiel':>10} {'ratio':>6} {'goal':>5} "
        f"{'vector':>8} {'ratio':>6}  verdict"
    )
    below = 0
    for slug in slugs:
        players = registry.get(slug).min_players
        spec(slug, players)  # the layout probe is set-up, not steps
        # In slices, every loop once per round: a machine whose speed drifts within the
        # row moves each loop alike, and each ratio is the median of its rounds' ratios.
        piece = args.seconds / SLICES
        rounds = [
            (
                engine_loop(slug, players, piece, observe=False),
                engine_loop(slug, players, piece, observe=True),
                pettingzoo_loop(slug, players, piece),
                openspiel_loop(slug, players, piece),
                vector_loop(slug, players, piece, args.envs),
            )
            for _ in range(SLICES)
        ]
        raw, observed, zoo, spiel, batched = (
            statistics.median(figures) for figures in zip(*rounds, strict=True)
        )
        ratios = (
            statistics.median(r[2] / r[1] for r in rounds),
            statistics.median(r[3] / r[1] for r in rounds),
        )
        batched_ratio = statistics.median(r[4] / r[1] for r in rounds)
        ok = min(ratios) >= GOAL
        below += not ok
        print(
            f"{slug:20} {raw:8.0f} {observed:10.0f} "
            f"{zoo:10.0f} {ratios[0]:5.2f}x {GOAL:4.1f}x "
            f"{spiel:10.0f} {ratios[1]:5.2f}x {GOAL:4.1f}x "
            f"{batched:8.0f} {batched_ratio:5.2f}x  {'ok' if ok else 'below goal'}"
        )
    print(f"{len(slugs) - below} of {len(slugs)} games meet the goal")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
