"""Fingerprints of what the adapters hand a learner (vectors, masks, legal integers,
rewards) along seeded random trajectories, so a faster encoder can be checked to give
exactly the same numbers as the one it replaced.

    .venv/bin/python -m tests.games.adapters.fingerprints > tests/games/adapters/fingerprints.json

rewrites the reference (only when the observation spec itself is meant to change).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

import numpy as np

from games import registry

DECISIONS = 150  # per match: enough to reach histories, pending turns and a match's end
SEEDS = (3, 11)


def cases() -> list[tuple[str, int]]:
    out = []
    for slug in registry.slugs():
        counts = registry.get(slug).player_counts()
        out += [(slug, counts[0])] + ([(slug, counts[-1])] if len(counts) > 1 else [])
    return out


def _feed(digest, *arrays) -> None:
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(str(array.dtype).encode() + str(array.shape).encode())
        digest.update(array.tobytes())


def pettingzoo_fingerprint(slug: str, players: int) -> str:
    from games.adapters.pettingzoo import env

    digest = hashlib.sha256()
    e = env(slug, players)
    for seed in SEEDS:
        e.reset(seed=seed)
        rng = random.Random(seed)
        decisions = 0
        for agent in e.agent_iter():
            observation, reward, terminated, truncated, _ = e.last()
            _feed(digest, observation["observation"], observation["action_mask"])
            digest.update(repr((agent, reward, terminated, truncated)).encode())
            if terminated or truncated:
                e.step(None)
                continue
            # Another seat's view too: each seat's cache must stay its own.
            other = e.possible_agents[(decisions + 1) % players]
            seen = e.observe(other)
            _feed(digest, seen["observation"], seen["action_mask"])
            if decisions >= DECISIONS:
                break
            e.step(rng.choice(list(observation["action_mask"].nonzero()[0])))
            decisions += 1
    return digest.hexdigest()


def openspiel_fingerprint(slug: str, players: int) -> str:
    from games.adapters.openspiel import load

    digest = hashlib.sha256()
    game = load(slug, players)
    for seed in SEEDS:
        state = game.new_initial_state()
        state.apply_action(seed)
        rng = random.Random(seed)
        decisions = 0
        while not state.is_terminal() and decisions < DECISIONS:
            player = state.current_player()
            legal = state.legal_actions(player)
            digest.update(repr((player, legal)).encode())
            _feed(digest, np.asarray(state.observation_tensor(player), np.float32))
            _feed(digest, np.asarray(state.observation_tensor((player + 1) % players), np.float32))
            if decisions % 7 == 0:
                _feed(digest, np.asarray(state.information_state_tensor(player), np.float32))
                digest.update(state.information_state_string(player).encode())
                state = state.clone()  # clones must encode as the original does
            state.apply_action(rng.choice(legal))
            decisions += 1
        digest.update(repr(state.returns()).encode())
    return digest.hexdigest()


def fingerprints() -> dict[str, dict[str, str]]:
    return {
        f"{slug}-p{players}": {
            "pettingzoo": pettingzoo_fingerprint(slug, players),
            "openspiel": openspiel_fingerprint(slug, players),
        }
        for slug, players in cases()
    }


if __name__ == "__main__":
    json.dump(fingerprints(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
