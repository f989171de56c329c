"""How long a pool's Bradley-Terry refit takes, beside one live Elo update.

Goal (issue 17): a pool of 10,000 versions and 1,000,000 matches refits in
seconds, not minutes; match recording never waits for it (the fit runs on the
maintenance queue). Results are summed per pair of versions before the fit, as
the ledger keeps them (``RatingPair``), so the fit's cost follows the number of
distinct pairs; two shapes of pool are timed:

- ladder: each match pairs a version with one of its 40 nearest in strength
  (how a ladder matches), so pairs repeat;
- uniform: opponents drawn at random from all 10,000, so nearly every match is
  a new pair (the worst case).

Run: .venv/bin/python bench/ratings.py [--versions 10000] [--matches 1000000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.ratings import bradley_terry as bt  # noqa: E402
from tournaments.ratings import elo  # noqa: E402

GOAL_SECONDS = 10.0
# What the product fits to (tournaments.services.fitting): 1e-5 natural-log units is 0.0004 Elo.
TOLERANCE = 1e-5


def simulate(rng, versions: int, matches: int, shape: str):
    truth = rng.normal(0.0, 200.0, versions)
    order = np.argsort(truth)
    first = rng.integers(0, versions, matches)
    if shape == "ladder":
        rank = np.empty(versions, dtype=np.int64)
        rank[order] = np.arange(versions)
        offset = rng.integers(1, 21, matches) * rng.choice([-1, 1], matches)
        second = order[np.clip(rank[first] + offset, 0, versions - 1)]
    else:
        second = rng.integers(0, versions, matches)
    second = np.where(second == first, (second + 1) % versions, second)
    expected = 1.0 / (1.0 + 10.0 ** ((truth[second] - truth[first]) / 400.0))
    roll = rng.random(matches)
    draw = 0.1
    wins = (roll < expected - draw / 2).astype(float)
    draws = ((roll >= expected - draw / 2) & (roll < expected + draw / 2)).astype(float)
    losses = 1.0 - wins - draws
    return truth, first, second, wins, draws, losses


def aggregate(first, second, wins, draws, losses, versions):
    """What the ledger's pair table holds: one row per ordered pair of versions."""
    ids, inverse = np.unique(first * versions + second, return_inverse=True)
    return (
        ids // versions,
        ids % versions,
        np.bincount(inverse, wins),
        np.bincount(inverse, draws),
        np.bincount(inverse, losses),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(17)
    players = list(range(args.versions))

    # One live update: the pure Elo fold rate_match applies under the pool's lock.
    ratings = {key: 1500.0 for key in players}
    result = elo.RatedResult(sides=[[1], [2]], ranks=[1, 2])
    started = time.perf_counter()
    rounds = 20_000
    for _ in range(rounds):
        elo.apply(ratings, result, 24, 1500)
    live = (time.perf_counter() - started) / rounds
    print(f"live Elo update (pure fold): {live * 1e6:.1f} us per match")

    for shape in ("ladder", "uniform"):
        truth, *columns = simulate(rng, args.versions, args.matches, shape)
        started = time.perf_counter()
        pairs = aggregate(*columns, args.versions)
        summed = time.perf_counter() - started
        started = time.perf_counter()
        fitted = bt.fit_arrays(players, *pairs, anchor=1500.0, tolerance=TOLERANCE)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        bt.fit_arrays(players, *pairs, anchor=1500.0, tolerance=TOLERANCE, initial_elo=fitted.elo)
        warm = time.perf_counter() - started
        keys = list(fitted.elo)
        estimate = np.array([fitted.elo[k] for k in keys]) - 1500.0
        real = truth[keys] - truth[keys].mean()
        error = float(np.sqrt(np.mean((estimate - real) ** 2)))
        print(
            f"{shape}: {args.versions} versions, {args.matches} matches, "
            f"{len(pairs[0])} distinct ordered pairs"
        )
        print(f"  summing per pair (done live by the ledger): {summed:.2f} s")
        print(
            f"  refit cold: {cold:.2f} s ({fitted.iterations} Newton steps, "
            f"converged={fitted.converged}); warm start: {warm:.2f} s; goal < {GOAL_SECONDS:.0f} s"
        )
        print(f"  rms error against the simulated truth: {error:.1f} Elo")


if __name__ == "__main__":
    main()
