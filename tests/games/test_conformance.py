"""Protocol conformance for every registered game, found through the registry.

Each case is one game at one player count with one option set: the defaults,
or the defaults with a single option changed (every allowed value of every
option, one at a time). Ids read ``<slug>-p<players>-<option>=<value>`` or
``<slug>-p<players>-defaults`` so ``-k pairs-p4`` picks cases out.

Random playouts (``games.policies.random_policy``) drive every check; the
seeds are fixed so a failure always reproduces.
"""

from __future__ import annotations

import json

import pytest

from games import IllegalAction, InvalidOptions, registry
from games.policies import random_policy
from games.protocol import is_legal
from games.rng import Rng, derive_seed
from tests.support.strict_json import assert_strict_json

# Seeds for the playouts of each case. The all-defaults case, the one that
# matters most, gets more of them.
DEFAULT_SEEDS = (101, 202, 303)
VARIANT_SEEDS = (101, 202)
# How often (in actions) the costlier checks run during a playout, and at most
# how many times per playout (long multi-game matches would be slow otherwise).
OBSERVE_EVERY = 5
PERTURB_EVERY = 9
PERTURB_POINTS = 8
ILLEGAL_EVERY = 11
ILLEGAL_POINTS = 6


def _cases() -> list:
    cases = []
    for game in registry.all_games():
        configs: list[tuple[str, dict]] = [("defaults", {})]
        for name, option in game.options.items():
            for value in option.allowed_values():
                if value != option.default or type(value) is not type(option.default):
                    configs.append((f"{name}={value}", {name: value}))
        for players in range(game.min_players, game.max_players + 1):
            for label, options in configs:
                try:
                    game.new_match(players=players, options=options, seed=1)
                except InvalidOptions:
                    # The game forbids this option at this player count.
                    continue
                cases.append(
                    pytest.param(game, players, options, id=f"{game.slug}-p{players}-{label}")
                )
    return cases


CASES = _cases()
GAMES = [pytest.param(game, id=game.slug) for game in registry.all_games()]


def _seeds(options: dict) -> tuple[int, ...]:
    return DEFAULT_SEEDS if not options else VARIANT_SEEDS


# -- playout helpers -----------------------------------------------------------------


def _choose(state, seat: int, rng: Rng):
    return random_policy(state.observation(seat), state.legal_actions(seat), rng)


def _random_moves(state, rng: Rng) -> dict:
    return {seat: _choose(state, seat, rng) for seat in state.to_act()}


def _views(state) -> dict:
    """Everything a caller can see: the record and every seat's observation."""
    seats = [None, *range(state.players)]
    return {
        "record": json.dumps(state.to_json(), sort_keys=True),
        "observations": [json.dumps(state.observation(s), sort_keys=True) for s in seats],
        "legal": [json.dumps(state.legal_actions(s)) for s in range(state.players)],
        "to_act": state.to_act(),
        "events": len(state._events),
    }


def _glance(state) -> tuple:
    """A cheap fingerprint of what callers see (``_views`` is the thorough one)."""
    acting = state.to_act()
    return (
        acting,
        len(state.moves),
        len(state._events),
        [json.dumps(state.observation(s), sort_keys=True) for s in acting or (None,)],
        [state.legal_actions(s) for s in acting],
    )


def _structure(value, memo: set | None = None):
    """A comparable picture of a state's data, ignoring the Game and any Rng.

    Used to tell whether ``perturb_hidden`` really moved something.
    """
    memo = memo if memo is not None else set()
    if isinstance(value, Rng):
        return "<rng>"
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    if isinstance(value, list | tuple):
        return [_structure(v, memo) for v in value]
    if isinstance(value, dict):
        return sorted(((repr(k), _structure(v, memo)) for k, v in value.items()), key=repr)
    if isinstance(value, set | frozenset):
        return sorted(repr(v) for v in value)
    if id(value) in memo:
        return "<cycle>"
    memo.add(id(value))
    fields = {}
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(value, name):
                fields[name] = getattr(value, name)
    fields.update(getattr(value, "__dict__", {}))
    # The Game is shared and static; logs are append-only and never shuffled.
    for name in ("game", "_events", "moves"):
        fields.pop(name, None)
    return [type(value).__name__, _structure(fields, memo)]


def _check_result(state, game, players: int, options: dict) -> None:
    result = state.result()
    assert_strict_json(result, "result()")
    seats = result["seats"]
    assert len(seats) == players
    for entry in seats:
        assert type(entry["score"]) is int and type(entry["rank"]) is int, entry
        assert 1 <= entry["rank"] <= players
    ranks = [entry["rank"] for entry in seats]
    assert 1 in ranks
    # Competition ranking: a rank is 1 + the number of seats strictly ahead.
    for rank in ranks:
        assert rank == 1 + sum(1 for other in ranks if other < rank), ranks
    assert result["teams"] == game.teams(players, options)


# -- the game descriptions -------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_description(game) -> None:
    assert game.slug == game.slug.lower() and " " not in game.slug
    assert isinstance(game.version, int) and game.version >= 1
    assert 1 <= game.min_players <= game.max_players
    assert "random" in game.policies and len(game.policies) >= 2, "random and a heuristic"
    assert_strict_json(game.describe(), "describe()")
    for name, option in game.options.items():
        assert option.check(name, option.default) == option.default
        for value in option.allowed_values():
            assert option.check(name, value) == value
    with pytest.raises(InvalidOptions):
        game.new_match(players=game.min_players, options={"no_such_option": 1})
    with pytest.raises(InvalidOptions):
        game.new_match(players=game.max_players + 1)
    with pytest.raises(InvalidOptions):
        game.new_match(players=game.min_players - 1)


# -- random playouts -----------------------------------------------------------------


@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_random_playouts(game, players: int, options: dict) -> None:
    """Every step: legal actions are plain JSON and never empty, the default
    action is legal, conserved totals hold; the match ends within max_actions
    with a well-formed result.
    """
    for seed in _seeds(options):
        state = game.new_match(players=players, options=options, seed=seed)
        rng = Rng(derive_seed(seed, "conformance"))
        conserved = state.conserved()
        assert_strict_json(conserved, "conserved()")
        actions = 0
        while not state.is_over():
            acting = state.to_act()
            assert isinstance(acting, tuple) and acting, acting
            assert all(type(s) is int and 0 <= s < players for s in acting)
            assert len(set(acting)) == len(acting)
            chosen = {}
            for seat in acting:
                legal = state.legal_actions(seat)
                assert legal, f"seat {seat} must act but has no legal action"
                assert_strict_json(legal, "legal_actions()")
                assert is_legal(state.default_action(seat), legal)
                observation = state.observation(seat)
                chosen[seat] = random_policy(observation, legal, rng)
            for seat in range(players):
                if seat not in acting:
                    assert state.legal_actions(seat) == []
            if actions % OBSERVE_EVERY == 0:
                for seat in [None, *range(players)]:
                    assert_strict_json(state.observation(seat), f"observation({seat})")
            state.apply(chosen)
            actions += 1
            assert actions <= game.max_actions, "the match did not end within max_actions"
            assert state.conserved() == conserved, f"conserved totals changed at action {actions}"
        for seat in [None, *range(players)]:
            assert_strict_json(state.observation(seat), f"final observation({seat})")
            assert_strict_json(state.events(seat), f"events({seat})")
            assert all("type" in event for event in state.events(seat))
        for seat in range(players):
            assert state.legal_actions(seat) == []
        with pytest.raises(IllegalAction):
            state.apply({0: None})
        _check_result(state, game, players, options)


# -- determinism and replay ----------------------------------------------------------------


@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_determinism_and_replay(game, players: int, options: dict) -> None:
    seed = _seeds(options)[0]
    rng = Rng(derive_seed(seed, "determinism"))
    state = game.new_match(players=players, options=options, seed=seed)
    midway = None
    while not state.is_over():
        state.apply(_random_moves(state, rng))
        if midway is None and len(state.moves) == 7:
            midway = (json.loads(json.dumps(state.to_json())), _views(state))
    record = state.to_json()
    assert_strict_json(record, "to_json()")

    # The same inputs and moves, applied again, give the same match.
    again = game.new_match(players=players, options=options, seed=seed)
    for move in state.moves:
        again.apply({int(seat): action for seat, action in move.items()})
    replayed = registry.rebuild(json.loads(json.dumps(record)))
    for other in (again, replayed):
        assert other.is_over()
        for seat in [None, *range(players)]:
            assert other.events(seat) == state.events(seat)
            assert other.observation(seat) == state.observation(seat)
        assert other.result() == state.result()
        assert other.to_json() == record
    if midway is not None:
        record_midway, views = midway
        assert _views(registry.rebuild(record_midway)) == views
    # A different seed gives a different deal (with overwhelming probability).
    other_seed = game.new_match(players=players, options=options, seed=seed + 1)
    first = game.new_match(players=players, options=options, seed=seed)
    assert (
        [first.observation(s) for s in range(players)]
        != [other_seed.observation(s) for s in range(players)]
        or first.events(None) != other_seed.events(None)
        or _structure(first) != _structure(other_seed)
    )


# -- illegal actions ---------------------------------------------------------------------


def _twisted(action) -> list:
    """Near misses of a legal action that must not be mistaken for it."""
    out = []
    if type(action) is int:
        out += [float(action), str(action)]
        if action in (0, 1):
            out.append(bool(action))
    elif type(action) is bool:
        out += [int(action)]
    elif isinstance(action, str):
        out += [action.upper() + "#", action + " "]
    elif isinstance(action, list):
        out += [tuple(action), [*action, 10**9]]
    elif isinstance(action, dict):
        out += [{**action, "x": 1}]
    return out


def _illegal_attempts(state, rng: Rng) -> list:
    acting = state.to_act()
    legal = {seat: state.legal_actions(seat) for seat in acting}
    good = {seat: legal[seat][rng.below(len(legal[seat]))] for seat in acting}
    attempts: list = [{}, [good[acting[0]]], None]
    garbage = [{"x": 1}, 10**9, -1, True, False, None, "garbage", [], [10**9], 1.5]
    for seat in acting:
        for action in garbage + [t for a in legal[seat] for t in _twisted(a)]:
            if not is_legal(action, legal[seat]):
                attempts.append({**good, seat: action})
    idle = [s for s in range(state.players) if s not in acting]
    for seat in idle[:2]:
        attempts.append({seat: good[acting[0]]})  # the wrong seat alone
        attempts.append({**good, seat: good[acting[0]]})  # a non-acting seat included
    for seat in (-1, state.players, "0"):
        attempts.append({**good, seat: good[acting[0]]})
    if len(acting) > 1:
        attempts.append({seat: good[seat] for seat in acting[1:]})  # a missing seat
    return attempts


@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_illegal_actions_change_nothing(game, players: int, options: dict) -> None:
    seed = _seeds(options)[-1]
    rng = Rng(derive_seed(seed, "illegal"))
    state = game.new_match(players=players, options=options, seed=seed)
    step = checked = 0
    while not state.is_over():
        if checked < ILLEGAL_POINTS and (step < 3 or step % ILLEGAL_EVERY == 0):
            checked += 1
            before, glance = _views(state), _glance(state)
            for attempt in _illegal_attempts(state, rng):
                with pytest.raises(IllegalAction):
                    state.apply(attempt)
                assert _glance(state) == glance, f"a refused {attempt!r} changed the state"
            assert _views(state) == before, "refused actions changed the state"
        state.apply(_random_moves(state, rng))
        step += 1


# -- hidden information ------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players", "options"), CASES)
def test_hidden_cards_never_show(game, players: int, options: dict) -> None:
    """Shuffling what a seat cannot see changes nothing that seat is shown."""
    seed = _seeds(options)[0]
    rng = Rng(derive_seed(seed, "hidden"))
    perturb_rng = Rng(derive_seed(seed, "perturb"))
    state = game.new_match(players=players, options=options, seed=seed)
    viewers = [None, *range(players)]
    moved = dict.fromkeys(viewers, False)
    step = checked = 0
    continued = False
    while not state.is_over():
        if checked < PERTURB_POINTS and step % PERTURB_EVERY == 0:
            checked += 1
            before = _views(state)
            original = _structure(state)
            conserved = state.conserved()
            for viewer in viewers:
                clone = state.perturb_hidden(viewer, perturb_rng)
                assert clone is not state
                assert clone.observation(viewer) == state.observation(viewer), viewer
                if viewer is not None:
                    assert clone.legal_actions(viewer) == state.legal_actions(viewer)
                assert clone.conserved() == conserved
                if not moved[viewer] and _structure(clone) != original:
                    moved[viewer] = True
                if not continued and viewer is not None:
                    # The perturbed state must still be a playable match.
                    continued = True
                    _play_out(clone, Rng(derive_seed(seed, "clone")), conserved)
            assert _views(state) == before, "perturb_hidden changed the original state"
        state.apply(_random_moves(state, rng))
        step += 1
    stuck = [viewer for viewer, did in moved.items() if not did]
    assert not stuck, f"perturb_hidden never moved a hidden card for {stuck}"


def _play_out(state, rng: Rng, conserved: dict) -> None:
    actions = 0
    while not state.is_over():
        state.apply(_random_moves(state, rng))
        actions += 1
        assert actions <= state.game.max_actions
        assert state.conserved() == conserved
    state.result()


# -- built-in policies ------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_policy_plays_legal_moves(game) -> None:
    """Each built-in policy, in every seat, at every player count (default options)."""
    for name, policy in sorted(game.policies.items()):
        for players in game.player_counts():
            seed = derive_seed(7, name, players)
            rng = Rng(seed)
            state = game.new_match(players=players, seed=seed % 1000)
            while not state.is_over():
                moves = {}
                for seat in state.to_act():
                    legal = state.legal_actions(seat)
                    action = policy(state.observation(seat), legal, rng)
                    assert is_legal(action, legal), f"{name} chose {action!r}, legal {legal!r}"
                    moves[seat] = action
                state.apply(moves)
            state.result()


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_among_random_seats_ends(game) -> None:
    """The heuristic in one seat and random elsewhere, the mix a tournament sees most: the
    match ends within ``max_actions`` with cards and chips conserved. (Mixed tables reach
    states that all-random or all-heuristic tables do not: a 5-player Regent session once
    dealt for low forever.)"""
    heuristic, random = game.policies["heuristic"], game.policies["random"]
    for players in game.player_counts():
        for seed in (11, 12):
            hero = seed % players
            rng = Rng(derive_seed(seed, "mixed", players))
            state = game.new_match(players=players, seed=seed)
            conserved = state.conserved()
            actions = 0
            while not state.is_over():
                moves = {
                    seat: (heuristic if seat == hero else random)(
                        state.observation(seat), state.legal_actions(seat), rng
                    )
                    for seat in state.to_act()
                }
                state.apply(moves)
                actions += 1
                assert actions <= game.max_actions, f"p{players} seed {seed} does not end"
            assert state.conserved() == conserved
            state.result()
