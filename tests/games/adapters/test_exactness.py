"""The adapters are the engine: for many seeds, a random trajectory played through the
PettingZoo environment and through the OpenSpiel game gives the same states, legal
actions, final record and returns as the engine's own match with that seed and those
actions. Every legal action on the way lies in the fixed catalogue."""

from __future__ import annotations

import json

import pytest

from games import registry
from games.adapters.codec import rank_rewards
from games.adapters.openspiel import load
from games.adapters.pettingzoo import env
from games.rng import Rng, derive_seed
from tests.games.adapters.cases import SLOW, configurations


def _seeds(slug: str, players: int) -> list[int]:
    count = 1 if slug in SLOW else 5 if players == 2 else 2
    return [derive_seed(players, slug, n) % 10_000 for n in range(count)]


def _engine_trajectory(slug: str, players: int, options: dict, seed: int):
    """The engine's match: a list of turns, each {seat: (legal, observation, action)}."""
    state = registry.get(slug).new_match(players=players, options=options, seed=seed)
    rng = Rng(derive_seed(seed, "exactness"))
    turns = []
    while not state.is_over():
        turn = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            turn[seat] = (legal, state.observation(seat), legal[rng.below(len(legal))])
        state.apply({seat: choice for seat, (_, _, choice) in turn.items()})
        turns.append(turn)
    return state, turns


@pytest.mark.parametrize(
    ("slug", "players", "options"), configurations(variants=False, slow_all_counts=False)
)
def test_adapters_replay_the_engine(slug, players, options):
    for seed in _seeds(slug, players):
        engine, turns = _engine_trajectory(slug, players, options, seed)
        expected_returns = rank_rewards(engine.result())

        # PettingZoo: the seats choose in seat order within a turn.
        e = env(slug, players, options)
        e.reset(seed=seed)
        codec = e.spec.actions
        look_every = 5 if slug in SLOW else 1  # observations of long matches are big
        for number, turn in enumerate(turns):
            for seat in sorted(turn):
                legal, observation, choice = turn[seat]
                agent = f"player_{seat}"
                assert e.agent_selection == agent
                assert e.infos[agent]["legal"] == legal
                if number % look_every == 0:
                    assert e.infos[agent]["raw_observation"] == observation
                    mask = e.observe(agent)["action_mask"]
                    assert e.infos[agent]["legal_actions"] == mask.nonzero()[0].tolist()
                    assert [codec.action(i) for i in mask.nonzero()[0]] == sorted(
                        legal, key=codec.index
                    )
                e.step(codec.index(choice))
        assert all(e.terminations.values()) and len(e.terminations) == players
        assert e.state.to_json() == engine.to_json()
        assert [e._cumulative_rewards[f"player_{s}"] for s in range(players)] == expected_returns

        # OpenSpiel: the root chance outcome is the seed.
        game = load(slug, players, options, deal_seeds=10_000)
        state = game.new_initial_state()
        assert state.is_chance_node()
        state.apply_action(seed)
        for turn in turns:
            for seat in sorted(turn):
                legal, _, choice = turn[seat]
                assert state.current_player() == seat
                assert state.legal_actions(seat) == codec.indices(legal)
                state.apply_action(codec.index(choice))
        assert state.is_terminal()
        assert state.returns() == expected_returns
        assert state.engine.to_json() == engine.to_json()
        assert json.loads(json.dumps(engine.result())) == engine.result()


def test_reset_seed_is_the_engine_seed():
    """Different seeds deal differently; the same seed deals the same as the engine."""
    e = env("pairs-kitty", 4)
    e.reset(seed=77)
    dealt = e.raw_observation("player_0")
    assert dealt == registry.get("pairs-kitty").new_match(players=4, seed=77).observation(0)
    e.reset(seed=78)
    assert e.raw_observation("player_0") != dealt
    e.reset()  # no seed: the next of a stream, reproducible after a seeded reset
    e.reset(seed=5)
    e.reset()
    first = e.raw_observation("player_0")
    e.reset(seed=5)
    e.reset()
    assert e.raw_observation("player_0") == first
