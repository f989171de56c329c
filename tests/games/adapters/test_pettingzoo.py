"""PettingZoo's own checks (api_test, seed_test, max_cycles_test) on every registered game
at every player count and its main option sets."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, seed_test

from games import registry
from games.adapters.pettingzoo import as_module, env
from tests.games.adapters.cases import configurations, cycles


@pytest.fixture(autouse=True)
def _quiet():
    # api_test warns about style points (e.g. an all-zero mask for a seat not to act).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize(("slug", "players", "options"), configurations())
def test_api_and_seed(slug, players, options):
    api_test(env(slug, players, options), num_cycles=cycles(slug, 25, 8))
    seed_test(lambda: env(slug, players, options), num_cycles=cycles(slug, 25, 8))


def _every_turn_is_everyone(slug: str, players: int) -> bool:
    """Whether every engine turn of a few matches had all seats acting together."""
    game = registry.get(slug)
    for seed in (1, 2):
        state = game.new_match(players=players, seed=seed)
        while not state.is_over():
            acting = state.to_act()
            if len(acting) != players:
                return False
            state.apply({seat: state.legal_actions(seat)[0] for seat in acting})
    return True


SIMULTANEOUS = [
    pytest.param(game.slug, players, id=f"{game.slug}-p{players}")
    for game in registry.all_games()
    for players in game.player_counts()
    if _every_turn_is_everyone(game.slug, players)
]


def test_some_games_are_all_simultaneous():
    """max_cycles_test applies to the games whose every turn is everyone's (its parallel
    half needs that); there must be some, or the next test checks nothing."""
    assert {p.values[0] for p in SIMULTANEOUS} >= {"pairs-venture"}


@pytest.mark.parametrize(("slug", "players"), SIMULTANEOUS)
def test_max_cycles(slug, players):
    # max_cycles_test samples without the mask: the host's default move stands in.
    max_cycles_test(as_module(slug, players, illegal="default"))


def test_truncation_after_max_cycles_in_a_turn_based_game():
    e = env("pairs-port", 3, max_cycles=5)
    e.reset(seed=3)
    turns = 0
    for _agent in e.agent_iter():
        observation, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            assert truncated and not terminated
            e.step(None)
            continue
        turns += 1
        e.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert turns == 5 and e.agents == []


def test_illegal_action_is_refused_with_the_legal_list():
    e = env("pairs-hawthorn", 2)  # the start: play a card of your hand; hit is not legal
    e.reset(seed=1)
    hit = e.spec.actions.index("hit")
    assert e.observe(e.agent_selection)["action_mask"][hit] == 0
    with pytest.raises(ValueError, match="not legal now"):
        e.step(hit)


def test_render_is_text_without_hidden_cards():
    e = env("pairs-regent", 3, render_mode="ansi")
    e.reset(seed=4)
    text = e.render()
    assert "pairs-regent" in text and "seed 4" in text
    hand = e.raw_observation("player_0")["hand"]
    assert hand and '"hand": ' + str(hand).replace(" ", "") not in text.replace(" ", "")
