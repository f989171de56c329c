"""The incremental encoder gives exactly the full encoder's vector, bit for bit, at every
decision of a random playout of every game (each seat's view and the spectator's, in turn,
beside the acting seat's). The most players: test_fingerprints.py."""

from __future__ import annotations

import numpy as np
import pytest

from games import registry
from games.adapters.incremental import IncrementalEncoder
from games.adapters.spec import spec
from games.rng import Rng

DECISIONS = 80


@pytest.mark.parametrize("slug", registry.slugs())
def test_incremental_is_the_full_encoder(slug):
    game = registry.get(slug)
    players = game.min_players
    encoder = spec(slug, players).encoder
    incremental = IncrementalEncoder(encoder)
    rng = Rng(players)
    state = game.new_match(players=players, seed=players)
    views = [*range(players), None]
    for decision in range(DECISIONS):
        if state.is_over():
            state = game.new_match(players=players, seed=decision)
        for view in (views[decision % len(views)], state.to_act()[0]):
            observation = state.observation(view)
            expected = np.array(encoder.encode(observation), np.float64)
            got = incremental.encode(observation, view)
            assert got.tobytes() == expected.tobytes(), (slug, decision, view)
        moves = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            moves[seat] = legal[rng.below(len(legal))]
        state.apply(moves)
