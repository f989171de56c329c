"""PettingZoo's step and last in C (``_encode.c``: env_step, env_last, encode_view) give
exactly what the environment's Python methods give: the same random trajectories, with
illegal choices, numpy integers and truncation mixed in, played through an environment
using the C module and one running its Python code alone (the incremental Python encoder
included), compared at every decision."""

from __future__ import annotations

import numpy as np
import pytest

from games.adapters import compiled
from games.adapters.pettingzoo import env
from games.rng import Rng
from tests.games.adapters.cases import SLOW, configurations


def _pure(e):
    """The environment on its Python path only."""
    e._step_c = None
    e._last_c = None
    e._encoder._c = None
    e._encode_view = e._encoder.view_encoder()
    return e


def _same_seen(a, b) -> None:
    if a is None or b is None:
        assert a is b
        return
    assert a.keys() == b.keys() == {"observation", "action_mask"}
    assert a["observation"].dtype == b["observation"].dtype == np.float32
    assert np.array_equal(a["observation"].view(np.uint32), b["observation"].view(np.uint32))
    assert a["action_mask"].dtype == b["action_mask"].dtype == np.int8
    assert np.array_equal(a["action_mask"], b["action_mask"])


def _same_state(fast, pure) -> None:
    assert fast.agent_selection == pure.agent_selection
    assert fast.agents == pure.agents
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
        assert getattr(fast, name) == getattr(pure, name), name
    assert fast.infos.keys() == pure.infos.keys()
    for agent, info in fast.infos.items():
        assert info == pure.infos[agent], agent


@pytest.mark.parametrize(
    ("slug", "players", "options"), configurations(variants=False, slow_all_counts=False)
)
def test_c_step_and_last_are_the_python_ones(slug, players, options):
    assert compiled.available()
    for illegal, max_cycles in (("raise", None), ("default", 7)):
        fast = env(slug, players, options, illegal=illegal, max_cycles=max_cycles)
        pure = _pure(env(slug, players, options, illegal=illegal, max_cycles=max_cycles))
        assert fast._step_c is not None and pure._step_c is None
        rng = Rng(players * 31 + len(slug))
        for seed in (1, 2):
            fast.reset(seed=seed)
            pure.reset(seed=seed)
            decisions = 0
            for _agent in fast.agent_iter():
                _same_state(fast, pure)
                seen = fast.last()
                _same_seen(seen[0], pure.last()[0])
                assert seen[1:] == pure.last(observe=False)[1:]
                other = fast.possible_agents[(decisions + 1) % players]
                _same_seen(fast.observe(other), pure.observe(other))
                if seen[2] or seen[3]:
                    fast.step(None)
                    pure.step(None)
                    continue
                legal = seen[4]["legal_actions"]
                roll = rng.below(10)
                if roll == 0 and illegal == "default":
                    choice = len(fast.spec.actions) + 3  # outside the catalogue
                elif roll == 1:
                    choice = np.int64(legal[rng.below(len(legal))])  # not a plain int
                else:
                    choice = legal[rng.below(len(legal))]
                fast.step(choice)
                pure.step(choice)
                decisions += 1
                if decisions >= (40 if slug in SLOW else 150):
                    break
            _same_state(fast, pure)


def test_an_illegal_action_is_refused_on_the_c_path_too():
    e = env("pairs-hawthorn", 2)
    e.reset(seed=1)
    hit = e.spec.actions.index("hit")
    before = e.last()[4]
    with pytest.raises(ValueError, match="not legal now"):
        e.step(hit)
    assert e.last()[4] == before  # nothing moved


def test_agent_iter_stops_as_pettingzoos_does():
    e = env("pairs-port", 2)
    e.reset(seed=2)
    assert [e.agent_selection] == list(e.agent_iter(max_iter=1))
    assert list(e.agent_iter(max_iter=0)) == []
