"""The tensors ``ArenaState`` answers itself are pyspiel's own (its method builds them
through the registered observer): every seat's observation and information-state
tensor along random playouts, clones included."""

from __future__ import annotations

import random

import pyspiel
import pytest

from games import registry
from games.adapters.openspiel import load

DECISIONS = 40


@pytest.mark.parametrize("slug", registry.slugs())
def test_own_tensors_are_pyspiels(slug):
    game = load(slug, deal_seeds=100)
    rng = random.Random(slug)
    state = game.new_initial_state()
    players = game.num_players()
    for seat in range(players):  # before the deal: zeros, as pyspiel's
        assert state.observation_tensor(seat) == pyspiel.State.observation_tensor(state, seat)
    state.apply_action(rng.randrange(100))
    decisions = 0
    while not state.is_terminal() and decisions < DECISIONS:
        for seat in range(players):
            own = state.observation_tensor(seat)
            assert own == pyspiel.State.observation_tensor(state, seat)
            assert state.information_state_tensor(seat) == own
            assert own == pyspiel.State.information_state_tensor(state, seat)
        if decisions % 9 == 0:
            state = state.clone()
        state.apply_action(rng.choice(state.legal_actions(state.current_player())))
        decisions += 1
    assert any(state.observation_tensor(seat) != [0.0] * len(own) for seat in range(players))
