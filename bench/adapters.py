"""Adapter steps per second beside the raw engine's, in the same run.

    .venv/bin/python bench/adapters.py [slug ...] [--seconds 1.0]

For each game (fewest players, default options), four loops of random play, each for
about ``--seconds`` of CPU time, counting single-seat decisions:

- ``engine``: to_act, legal_actions, apply (the engine alone, as bench/games.py);
- ``engine+obs``: the same plus ``observation(seat)`` for each decision (what a host
  hands a bot, and the least a learning environment must produce);
- ``pettingzoo``: the AEC loop: ``last()`` (vector and mask), a random legal integer,
  ``step``;
- ``openspiel``: ``legal_actions``, ``apply_action`` and the acting seat's
  ``observation_tensor``.

Goal (issue 21): the PettingZoo adapter at least 0.3x ``engine+obs`` decisions/s.
Needs the extras (requirements-extras.txt).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry  # noqa: E402
from games.adapters.openspiel import load  # noqa: E402
from games.adapters.pettingzoo import env as make_env  # noqa: E402
from games.adapters.spec import spec  # noqa: E402
from games.rng import Rng  # noqa: E402

GOAL = 0.3


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
    rng = random.Random(1)
    decisions, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        e.reset(seed=seed)
        seed += 1
        for _agent in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            e.step(rng.choice(observation["action_mask"].nonzero()[0]))
            decisions += 1
    return decisions / (time.process_time() - start)


def openspiel_loop(slug: str, players: int, seconds: float) -> float:
    game = load(slug, players)
    rng = random.Random(1)
    decisions, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        state.apply_action(seed % game.max_chance_outcomes())
        seed += 1
        while not state.is_terminal():
            player = state.current_player()
            state.observation_tensor(player)
            state.apply_action(rng.choice(state.legal_actions(player)))
            decisions += 1
    return decisions / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="adapter decisions/s beside the engine's")
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    slugs = args.slugs or registry.slugs()
    print(f"decisions per CPU second; goal: pettingzoo >= {GOAL}x engine+obs")
    header = f"{'game':20} {'engine':>9} {'engine+obs':>11} {'pettingzoo':>11} {'openspiel':>10}"
    print(header + "  pz/obs  verdict")
    below = 0
    for slug in slugs:
        players = registry.get(slug).min_players
        spec(slug, players)  # the layout probe is set-up, not steps
        raw = engine_loop(slug, players, args.seconds, observe=False)
        observed = engine_loop(slug, players, args.seconds, observe=True)
        zoo = pettingzoo_loop(slug, players, args.seconds)
        spiel = openspiel_loop(slug, players, args.seconds)
        ratio = zoo / observed
        verdict = "ok" if ratio >= GOAL else "below goal"
        below += ratio < GOAL
        print(
            f"{slug:20} {raw:9.0f} {observed:11.0f} {zoo:11.0f} {spiel:10.0f}  "
            f"{ratio:5.2f}x  {verdict}"
        )
    print(f"{len(slugs) - below} of {len(slugs)} games meet the goal")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
