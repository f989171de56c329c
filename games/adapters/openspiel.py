"""Every registered game as an OpenSpiel game: ``load(slug, players=, options=)``.

Importing this module registers one pyspiel Python game per slug, named
``arena_<slug with _ for ->`` (``arena_pairs_kitty``), with the parameters
``players``, ``deal_seeds`` and each of the game's options (defaults as the engine's).

Conventions (docs/training.md has the long form):

- Chance: EXPLICIT_STOCHASTIC with one chance node at the root, whose outcome
  ``k`` (uniform over ``deal_seeds`` outcomes, default 10,000) is the engine's seed.
  The engine owns its PRNG and draws every later shuffle from that seed, so this
  one node carries all of a match's chance, and the outcome ``k`` replays the
  arena's match with seed ``k`` exactly. Cards dealt later are not separate
  chance nodes: modelling each deal as OpenSpiel outcomes would mean re-writing
  eighteen engines' dealing code outside them.
- Dynamics: SEQUENTIAL. A simultaneous engine turn is played by its seats one
  after another in seat order; the engine applies the collected choices when the
  last one is in, and no seat's observation shows an earlier seat's choice.
- Actions: the fixed catalogue of ``games.adapters.actions`` (integers, sorted).
- Observation tensor: the encoder's vector of ``state.observation(seat)``; the
  public observer (``private_info=NONE``) encodes the spectator's view.
  Information state: the same tensor (the engines' observations carry the public
  history of the hand and the match's past hands), and as a string the
  observation plus the seat's own actions so far, for perfect recall of one's
  own moves in string-keyed algorithms.
- Returns: the rank rewards of ``codec.rank_rewards`` (zero-sum, in [-1, 1]).
"""

from __future__ import annotations

import json

import numpy as np
import pyspiel

from games import registry
from games.adapters.codec import rank_rewards
from games.adapters.compiled import CompiledEncoder, floats_setter
from games.adapters.spec import Spec, spec

DEFAULT_DEAL_SEEDS = 10_000  # engine seeds 0-9999; raise it with deal_seeds=


def short_name(slug: str) -> str:
    return "arena_" + slug.replace("-", "_")


def _game_type(slug: str) -> pyspiel.GameType:
    game = registry.get(slug)
    parameters = {"players": game.min_players, "deal_seeds": DEFAULT_DEAL_SEEDS}
    for name, option in game.options.items():
        parameters[name] = option.default
    return pyspiel.GameType(
        short_name=short_name(slug),
        long_name=f"Arena {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class Shared:
    """What a game's states and observers share: the encoder (it remembers each seat's
    last observation) and, per seat, the last tensor handed out as a list with a float32
    mirror of it: the next one is that list with only the changed entries replaced, found
    by comparing the mirror (tolist() of the whole tensor costs more than a decision of
    the engine on the bigger layouts). A cloned state keeps it; a pickled one gets its own."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.encoder = CompiledEncoder(spec.encoder)
        self.tensor_lists: dict[int, tuple[list[float], np.ndarray]] = {}  # values, mirror
        self.as_floats = floats_setter()
        self.tensor_view = self.encoder.tensor_viewer()  # encode and as_floats in one C call
        # Built here, not at the first decision: 90,966 actions (Troll Guts) take a while.
        self.indices = spec.lookup.indices
        # Per integer, the action itself where it is a str or an int (no copy to make),
        # else None (the codec copies it).
        self.scalar_actions = [
            action if action.__class__ is str or action.__class__ is int else None
            for action in spec.actions.actions
        ]

    def __deepcopy__(self, memo) -> Shared:
        return self

    def __reduce__(self):
        return (Shared, (self.spec,))


class ArenaGame(pyspiel.Game):
    """One subclass per slug (``_register_all``) carries the slug and its GameType."""

    slug = ""
    game_type: pyspiel.GameType

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        slug = self.slug
        game = registry.get(slug)
        players = int(params.get("players", game.min_players))
        self.deal_seeds = int(params.get("deal_seeds", DEFAULT_DEAL_SEEDS))
        if self.deal_seeds < 1:
            raise ValueError("deal_seeds must be at least 1")
        options = {name: params[name] for name in game.options if name in params}
        self.spec: Spec = spec(slug, players, options)
        self.shared = Shared(self.spec)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.spec.actions),
            max_chance_outcomes=self.deal_seeds,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.spec.max_decisions,
        )
        super().__init__(self.game_type, info, params)

    def new_initial_state(self) -> ArenaState:
        return ArenaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> ArenaObserver:
        return ArenaObserver(self, iig_obs_type, params)


class ArenaState(pyspiel.State):
    def __init__(self, game: ArenaGame):
        super().__init__(game)
        self.spec = game.spec
        self.shared = game.shared  # read per decision: cheaper than get_game() each time
        self.deal_seeds = game.deal_seeds
        self.engine = None  # the engine's State once the root chance node dealt
        self.pending: dict[int, object] = {}
        self.queue: list[int] = []
        self.own_actions: list[list[int]] = [[] for _ in range(game.spec.players)]

    def current_player(self) -> int:
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        if not self.queue:
            return pyspiel.PlayerId.TERMINAL
        return self.queue[0]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """pyspiel's ``legal_actions``, answered here where a seat is to act: through the
        C++ method, each call crossed back into Python three or four times (is_terminal,
        current_player, _legal_actions) and copied the list twice. The chance node, the
        terminal state and invalid players go to pyspiel."""
        queue = self.queue
        if self.engine is not None and queue and (player is None or player >= 0):
            seat = queue[0]
            if player is not None and player != seat:
                return []
            return self.shared.indices(self.engine.legal_actions(seat))
        return super().legal_actions() if player is None else super().legal_actions(player)

    def _legal_actions(self, player: int) -> list[int]:
        if self.engine is None or not self.queue or player != self.queue[0]:
            return []
        return self.shared.indices(self.engine.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self.deal_seeds
        return [(k, p) for k in range(self.deal_seeds)]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self.engine = self.spec.new_state(int(action))
            self.queue = list(self.engine.to_act())
            return
        seat = self.queue.pop(0)
        chosen = self.shared.scalar_actions[action]
        self.pending[seat] = self.spec.actions.action(action) if chosen is None else chosen
        self.own_actions[seat].append(action)
        if not self.queue:
            self.engine.apply(self.pending)
            self.pending = {}
            self.queue = list(self.engine.to_act())

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The tensor pyspiel's own method gives, without the fresh initial state it builds
        on every call to size the tensor (half the cost of a call on the fastest games)."""
        if player is None:
            return super().observation_tensor()
        shared = self.shared
        kept = shared.tensor_lists.get(player)
        if kept is None:
            size = self.spec.encoder.size
            kept = shared.tensor_lists[player] = ([0.0] * size, np.zeros(size, np.float32))
        values, mirror = kept
        if self.engine is None:
            values[:] = [0.0] * len(values)
            mirror.fill(0)
        else:
            observation = self.engine.observation(player)
            if shared.tensor_view is not None:
                fresh = shared.tensor_view(observation, player, values, mirror)
                if fresh is not None:
                    return fresh
            vector = shared.encoder.encode(observation, player)
            shared.as_floats(values, vector, mirror)
        return values[:]

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The same tensor: the observation already carries the public history."""
        if player is None:
            return super().information_state_tensor()
        return self.observation_tensor(player)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{action}"
        return json.dumps(self.spec.actions.actions[action], separators=(",", ":"))

    def is_terminal(self) -> bool:
        return self.engine is not None and not self.queue

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.spec.players
        return rank_rewards(self.engine.result())

    def __str__(self) -> str:
        if self.engine is None:
            return "(not dealt)"
        view = json.dumps(self.engine.observation(None), sort_keys=True, separators=(",", ":"))
        return f"to_act={list(self.engine.to_act())} chosen={sorted(self.pending)} {view}"


class ArenaObserver:
    """Observation and information-state tensors and strings (pyspiel's PyObserver)."""

    def __init__(self, game: ArenaGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        self.spec = game.spec
        self.public_only = (
            iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        )
        self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.encoder = game.shared.encoder
        self.tensor = np.zeros(self.spec.encoder.size, np.float32)
        self.bits = self.tensor.view(np.uint32)  # the same memory, compared bit for bit
        self.dict = {"observation": self.tensor}

    def _view(self, state: ArenaState, player: int) -> dict | None:
        if state.engine is None:
            return None
        return state.engine.observation(None if self.public_only else player)

    def set_from(self, state: ArenaState, player: int) -> None:
        view = self._view(state, player)
        if view is None:
            self.tensor.fill(0)
        else:
            key = None if self.public_only else player
            self.encoder.encode(view, key, self.tensor)

    def string_from(self, state: ArenaState, player: int) -> str:
        view = self._view(state, player)
        text = json.dumps(view, sort_keys=True, separators=(",", ":"))
        if self.perfect_recall and not self.public_only:
            return f"{text} own={state.own_actions[player]}"
        return text


GAME_CLASSES: dict[str, type[ArenaGame]] = {}


def _register_all() -> None:
    # A class per game, as OpenSpiel's own Python games register (a registered lambda
    # aborted the interpreter at exit: pybind11 released it after Python had finalised).
    registered = set(pyspiel.registered_names())
    for slug in registry.slugs():
        name = short_name(slug)
        game_type = _game_type(slug)
        cls = type(f"Arena_{name}", (ArenaGame,), {"slug": slug, "game_type": game_type})
        GAME_CLASSES[slug] = cls
        if name not in registered:
            pyspiel.register_game(game_type, cls)


_register_all()


def load(slug: str, players: int | None = None, options: dict | None = None, **params):
    """The ``pyspiel.Game`` of ``slug`` with ``players`` (the fewest by default) and
    ``options`` (the engine's option names and values); ``deal_seeds=`` sets the number of
    root chance outcomes (engine seeds 0 to deal_seeds - 1)."""
    game = registry.get(slug)
    values = {"players": game.min_players if players is None else players}
    values.update(game.resolve_options(options))
    values.update(params)
    return pyspiel.load_game(short_name(slug), values)
