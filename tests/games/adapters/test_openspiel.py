"""OpenSpiel's own checks through pyspiel: its random simulation test (legal actions,
clones, serialisation, tensors and strings per player) on every registered game at every
player count, and a short MCTS self-play on the two-seat games."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

from games import registry
from games.adapters.openspiel import load, short_name
from tests.games.adapters.cases import SLOW, configurations


def test_every_game_is_registered():
    names = set(pyspiel.registered_names())
    assert {short_name(slug) for slug in registry.slugs()} <= names
    game = load("pairs-kitty", 4, {"soft": True})
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 4 and game.get_parameters()["soft"] is True
    # The game string alone brings the same game back (what deserialisation uses).
    again = pyspiel.load_game(str(game))
    assert again.num_distinct_actions() == game.num_distinct_actions()


@pytest.mark.parametrize(
    ("slug", "players", "options"), configurations(variants=False, slow_all_counts=False)
)
def test_random_sim(slug, players, options):
    game = load(slug, players, options, deal_seeds=64)
    pyspiel.random_sim_test(game, num_sims=1 if slug in SLOW else 2, serialize=True, verbose=False)


TWO_SEAT = [
    pytest.param(game.slug, id=game.slug)
    for game in registry.all_games()
    if 2 in game.player_counts()
]
MCTS_DECISIONS = 4  # then the match is finished at random: rollouts of long games are slow


@pytest.mark.parametrize("slug", TWO_SEAT)
def test_mcts_self_play(slug):
    game = load(slug, 2, deal_seeds=1000)
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [
        mcts.MCTSBot(game, 2, 3 if slug in SLOW else 8, evaluator, random_state=rng)
        for _ in range(2)
    ]
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        player = state.current_player()
        if decisions < MCTS_DECISIONS:
            action = bots[player].step(state)
            decisions += 1
        else:
            action = int(rng.choice(state.legal_actions(player)))
        assert action in state.legal_actions(player)
        state.apply_action(action)
    returns = state.returns()
    assert sum(returns) == 0 and all(-1 <= r <= 1 for r in returns)
    assert decisions == MCTS_DECISIONS


def _answer(method, state, player):
    try:
        return method(state) if player is None else method(state, player)
    except pyspiel.SpielError as error:  # a pseudo-player outside the chance node
        return str(error)


@pytest.mark.parametrize("slug", ["pairs", "pairs-venture", "stax", "punk"])
def test_legal_actions_answer_as_pyspiel_does(slug):
    # ArenaState.legal_actions answers in Python where a seat is to act; pyspiel's own
    # method (through C++ and back) must give the same lists, or errors, everywhere.
    game = load(slug)
    players = game.num_players()
    rng = np.random.default_rng(7)
    for deal in range(3):
        state = game.new_initial_state()
        while True:
            for player in (None, pyspiel.PlayerId.CHANCE, *range(players)):
                ours = _answer(type(state).legal_actions, state, player)
                theirs = _answer(pyspiel.State.legal_actions, state, player)
                assert ours == theirs, (player, state.current_player())
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(int(rng.choice(legal)) if deal else legal[0])
