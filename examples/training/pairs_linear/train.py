"""Train a small Pairs policy on the PettingZoo adapter, then package it as a zip bot.

    .venv/bin/python examples/training/pairs_linear/train.py --episodes 3000 --out pairs_linear.zip
    .venv/bin/python manage.py play pairs pairs_linear.zip random

Method: Monte Carlo control with a linear action-value function. The trained seat plays
against uniformly random seats (it alternates seats between episodes), epsilon-greedy
over the legal actions (the adapter's mask); at the end of each match every (vector,
action) it chose moves toward the match's reward (+1 win, -1 loss) by a normalised LMS
step. A few thousand matches take well under a minute on one core.

The saved policy is plain JSON (the codec's layout from ``Spec.export()`` and one weight
list per action), played by ``bot/main.py`` with the stdlib ``codec.py`` beside it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from games.adapters import codec as codec_module  # noqa: E402
from games.adapters.pettingzoo import env as make_env  # noqa: E402

GAME, PLAYERS = "pairs", 2


def train(episodes: int = 3000, seed: int = 1, epsilon: float = 0.1, rate: float = 0.02) -> dict:
    """Returns the policy as JSON-ready data."""
    rng = random.Random(seed)
    env = make_env(GAME, players=PLAYERS)
    size = env.spec.encoder.size
    weights: dict[int, list[float]] = {}
    for episode in range(episodes):
        env.reset(seed=seed * 1_000_003 + episode)
        hero = env.possible_agents[episode % PLAYERS]
        chosen: list[tuple[list[float], int]] = []
        final = 0.0
        for agent in env.agent_iter():
            # The random seats need no vector: their legal actions are in ``infos``.
            observation, reward, terminated, truncated, info = env.last(observe=agent == hero)
            if terminated or truncated:
                if agent == hero:
                    final = reward  # the rank reward: +1 win, -1 loss, 0 tie
                env.step(None)
                continue
            if agent != hero:
                env.step(env.spec.actions.index(rng.choice(info["legal"])))
                continue
            legal = [int(i) for i in observation["action_mask"].nonzero()[0]]
            vector = observation["observation"]
            sparse = [(int(i), float(vector[i])) for i in vector.nonzero()[0]]
            if rng.random() < epsilon:
                action = rng.choice(legal)
            else:
                action = max(legal, key=lambda i: _value(weights, i, sparse))
            chosen.append((sparse, action))
            env.step(action)
        for sparse, action in chosen:
            w = weights.setdefault(action, [0.0] * size)
            error = final - _value(weights, action, sparse)
            step = rate * error / (1.0 + sum(x * x for _, x in sparse))
            for i, x in sparse:
                w[i] += step * x
    return {"codec": env.spec.export(), "weights": {str(k): v for k, v in weights.items()}}


def _value(weights: dict, index: int, sparse: list[tuple[int, float]]) -> float:
    w = weights.get(index)
    if w is None:
        return 0.0
    return sum(w[i] * x for i, x in sparse)


def package(policy: dict, out: Path) -> Path:
    """A zip bot: main.py, codec.py (the adapter's stdlib codec) and policy.json."""
    out = Path(out)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("main.py", (HERE / "bot" / "main.py").read_text())
        archive.writestr("codec.py", Path(codec_module.__file__).read_text())
        archive.writestr("policy.json", json.dumps(policy, separators=(",", ":")))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("pairs_linear.zip"))
    args = parser.parse_args(argv)
    policy = train(args.episodes, args.seed)
    print(f"trained on {args.episodes} matches; wrote {package(policy, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
