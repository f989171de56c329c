"""The vectorised entry point: every row is exactly what the PettingZoo environment gives
the acting seat of that match (vector, mask, rewards at the end), matches are dealt again
when they end, and the same seed and choices give the same batches."""

from __future__ import annotations

import numpy as np
import pytest

from games.adapters.pettingzoo import env
from games.adapters.vector import vector
from games.rng import Rng

GAMES = [("pairs", 3), ("pairs-kitty", 3), ("pairs-venture", 3), ("paks", 2), ("punk", 2)]


def _choose(batch, rng: Rng) -> list[int]:
    return [legal[rng.below(len(legal))] for legal in batch.legal]


@pytest.mark.parametrize(("slug", "players"), GAMES)
def test_rows_are_the_pettingzoo_views_and_matches_restart(slug, players):
    vec = vector(slug, 3, players, seed=7)
    batch = vec.reset()
    envs = []
    for seed in vec.seeds():
        e = env(slug, players)
        e.reset(seed=seed)
        envs.append(e)
    rng = Rng(1)
    ended = 0
    for _ in range(400):
        for i, e in enumerate(envs):
            agent = e.agent_selection
            assert agent == f"player_{batch.acting[i]}"
            seen = e.observe(agent)
            assert np.array_equal(batch.observations[i], seen["observation"])
            assert np.array_equal(batch.masks[i], seen["action_mask"])
            assert batch.legal[i] == list(seen["action_mask"].nonzero()[0])
        choices = _choose(batch, rng)
        batch = vec.step(choices)
        for i, e in enumerate(envs):
            e.step(choices[i])
            if batch.done[i]:
                ended += 1
                assert all(e.terminations.values())
                expected = [e.rewards[agent] for agent in e.possible_agents]
                assert list(batch.rewards[i]) == pytest.approx(expected)
                assert batch.results[i] == e.infos[e.possible_agents[0]]["result"]
                e.reset(seed=vec.seeds()[i])
            else:
                assert not any(e.terminations.values())
                assert not batch.rewards[i].any()
    assert ended > 0


def test_same_seed_same_batches_and_another_seed_other_deals():
    def play(seed: int) -> list:
        vec = vector("pairs-kitty", 4, seed=seed)
        batch, rng, seen = vec.reset(), Rng(3), []
        for _ in range(150):
            seen.append((batch.observations.tobytes(), batch.masks.tobytes(), vec.seeds()))
            batch = vec.step(_choose(batch, rng))
        return seen

    assert play(5) == play(5)
    assert play(5)[0][2] != play(6)[0][2]


def test_illegal_actions():
    vec = vector("pairs-kitty", 2, seed=1)
    batch = vec.reset()
    illegal = [int(np.flatnonzero(batch.masks[i] == 0)[0]) for i in range(2)]
    with pytest.raises(ValueError, match="match 1"):
        vec.step([batch.legal[0][0], illegal[1]])
    unmoved = vec.step([legal[0] for legal in batch.legal])  # the refused step changed nothing
    again = vector("pairs-kitty", 2, seed=1)
    again.reset()
    assert np.array_equal(
        unmoved.observations, again.step([legal[0] for legal in batch.legal]).observations
    )
    with pytest.raises(ValueError, match="expected 2 actions"):
        vec.step([0])
    lenient = vector("pairs-kitty", 2, seed=1, illegal="default")
    lenient.reset()
    assert lenient.step(illegal).observations.shape == (2, lenient.observation_size)
