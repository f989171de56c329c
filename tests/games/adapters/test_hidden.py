"""Hidden information never reaches another seat's vector: shuffling every card a seat
cannot see (the engines' ``perturb_hidden``, as in the conformance suite) leaves that
seat's observation vector, mask and OpenSpiel tensors unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from games.adapters.openspiel import load
from games.adapters.spec import spec
from games.policies import random_policy
from games.rng import Rng, derive_seed
from tests.games.adapters.cases import configurations

POINTS = 6
EVERY = 7


@pytest.mark.parametrize(
    ("slug", "players", "options"), configurations(variants=False, slow_all_counts=False)
)
def test_unseen_cards_do_not_move_the_vector(slug, players, options):
    s = spec(slug, players, options)
    seed = derive_seed(players, slug, "hidden") % 10_000
    rng = Rng(derive_seed(seed, "play"))
    perturb = Rng(derive_seed(seed, "perturb"))
    state = s.new_state(seed)
    moved = False
    step = checked = 0
    while not state.is_over() and checked < POINTS:
        if step % EVERY == 0:
            checked += 1
            for seat in range(players):
                clone = state.perturb_hidden(seat, perturb)
                mine = s.encoder.encode(state.observation(seat))
                assert s.encoder.encode(clone.observation(seat)) == mine, seat
                assert s.actions.mask(clone.legal_actions(seat)) == s.actions.mask(
                    state.legal_actions(seat)
                )
                others = [o for o in range(players) if o != seat]
                moved = moved or any(
                    s.encoder.encode(clone.observation(o)) != s.encoder.encode(state.observation(o))
                    for o in others
                )
        state.apply(
            {seat: random_policy(None, state.legal_actions(seat), rng) for seat in state.to_act()}
        )
        step += 1
    # The check has teeth: a perturbation did change what some other seat sees, except in
    # games where only the draw pile is hidden, from everyone alike.
    open_games = {"pairs", "pairs-port", "pairs-five-cards", "pairs-blackstone"}
    if slug not in open_games | {"pairs-rocket", "pairs-starboard"}:
        assert moved, "no perturbation ever changed another seat's vector"


def test_openspiel_tensors_follow_the_vector():
    game = load("pairs-regent", 3, deal_seeds=100)
    state = game.new_initial_state()
    state.apply_action(42)
    s = spec("pairs-regent", 3)
    for seat in range(3):
        expected = np.asarray(s.encoder.encode(state.engine.observation(seat)), np.float32)
        assert np.array_equal(np.asarray(state.observation_tensor(seat)), expected)
        assert np.array_equal(np.asarray(state.information_state_tensor(seat)), expected)
    assert state.observation_string(0) != state.observation_string(1)
