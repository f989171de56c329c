"""Every registered game as a PettingZoo AEC environment: ``env(slug, players=, options=)``.

Conventions (docs/training.md has the long form):

- Agents ``player_0`` .. ``player_{n-1}`` are the engine's seats.
- Actions: ``Discrete(n)`` over the configuration's fixed catalogue
  (``games.adapters.actions``); ``observe(agent)`` gives ``{"observation":
  float32 vector, "action_mask": int8 mask}``; the acting agent's ``infos``
  carry the raw observation dict, the legal JSON actions and their integers
  (``legal_actions``, ascending: the mask's ones, without scanning the mask).
- Simultaneous turns (bids, pitches, Punk tricks): the seats in ``to_act()``
  choose one after another in seat order; the choices are collected and the
  engine applies them together once the last one is in. The engine state does
  not change until then, so nobody's observation shows an earlier choice.
- Rewards: 0 until the match ends, then ``reward="rank"`` (default): the share
  of seats a seat finished ahead of minus the share ahead of it, in [-1, 1]
  (zero-sum; two seats: 1, -1, or 0 for a tie); ``reward="score"``: the
  engine's integer score (chips or points; not zero-sum in every game).
- ``reset(seed=s)`` deals exactly the engine's match with seed ``s``.
- ``max_cycles``: the match is truncated after that many engine turns (one
  ``apply``, i.e. one cycle of every acting seat).
- ``illegal="raise"`` (default) refuses an action outside the mask;
  ``illegal="default"`` plays the engine's default action for that seat instead,
  as the arena does for a faulted bot (for tools that sample without the mask).
"""

from __future__ import annotations

import json
import secrets
from functools import partial
from types import SimpleNamespace

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.conversions import aec_to_parallel

from games import registry
from games.adapters.codec import rank_rewards
from games.adapters.compiled import CompiledEncoder, mask_mover, module
from games.adapters.spec import Spec, spec
from games.rng import derive_seed

BOUND = 1e9  # observation values are squashed sums and counts, far inside this
FLOAT32 = np.dtype(np.float32)  # np.empty takes a dtype at half the cost of the type


class ArenaEnv(AECEnv):
    metadata = {"name": "arena", "render_modes": ["ansi", "human"], "is_parallelizable": True}

    def __init__(
        self,
        spec: Spec,
        *,
        reward: str = "rank",
        max_cycles: int | None = None,
        illegal: str = "raise",
        render_mode: str | None = None,
    ):
        super().__init__()
        if reward not in ("rank", "score"):
            raise ValueError("reward must be 'rank' or 'score'")
        if illegal not in ("raise", "default"):
            raise ValueError("illegal must be 'raise' or 'default'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.spec = spec
        self.reward_kind = reward
        self.max_cycles = max_cycles
        self.illegal = illegal
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"arena_{spec.slug}"}
        self.possible_agents = [f"player_{seat}" for seat in range(spec.players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        size, n = spec.encoder.size, len(spec.actions)
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(-BOUND, BOUND, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._next_seeds = None
        self.state = None
        self._encoder = CompiledEncoder(spec.encoder)
        self._turn = 0  # counts engine states: a turn's legal actions are worked out once
        self._legal_now: tuple | None = None  # (turn, seat, (legal, integers, mask, allowed))
        # Per seat: its mask, a memoryview of it (an entry read as a Python int, cheaper
        # than numpy's scalar indexing) and the integers last set in it.
        self._masks = []
        for _ in range(spec.players):
            mask = np.zeros(n, np.int8)
            self._masks.append((mask, memoryview(mask), []))
        self._catalogue_size = n
        self._vector_size = size
        # Bound once: each runs at every decision.
        self._encode = self._encoder.encode
        self._encode_view = self._encoder.view_encoder()  # vector and mask in one C call
        self._action_of = spec.actions.action
        # step() and last() in C for the common case (_encode.c, env_step and env_last,
        # which read the attributes named here); None without the C module.
        c = module()
        self._step_c = None if c is None else c.env_step
        self._last_c = None if c is None else c.env_last
        self._bound = self._encoder.bound
        self._fresh = partial(np.empty, size, FLOAT32)
        self._indices = spec.lookup.indices
        self._move_mask = mask_mover()
        # Per integer, the action itself where it is a str or an int (no copy to make),
        # else None (the codec copies it).
        self._scalar_actions = [
            action if action.__class__ is str or action.__class__ is int else None
            for action in spec.actions.actions
        ]
        # The seat to choose now, set by _select: (agent, seat, observation, legal,
        # integers, mask, memoryview of the mask), or None. last() and step() read it
        # instead of going through the per-turn caches.
        self._now: tuple | None = None

    # -- spaces ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def __str__(self) -> str:
        return self.metadata["name"]

    def agent_iter(self, max_iter: int = 2**63):
        """The agent to act, until no agent is left or after ``max_iter`` agents: what
        PettingZoo's ``AECIterable`` yields, as a generator (its iterator's Python
        ``__next__`` cost a twentieth of a decision on the fastest engines)."""
        return self._agents(max_iter)

    def _agents(self, max_iter: int):
        while self.agents and max_iter > 0:
            max_iter -= 1
            yield self.agent_selection

    # -- the match -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new match. ``seed`` is the engine's seed; without one, the next seed of
        the stream the last seeded reset started (or a fresh random one)."""
        if seed is None:
            if self._next_seeds is None:
                self._next_seeds = (secrets.randbits(62), 0)
            base, count = self._next_seeds
            self._next_seeds = (base, count + 1)
            seed = derive_seed(base, "reset", count) % (1 << 62)
        else:
            self._next_seeds = (int(seed), 0)
        self.seed_used = int(seed)
        self.state = self.spec.new_state(int(seed))
        self._turn += 1
        self.cycles = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._pending: dict[int, object] = {}
        self._seen: tuple | None = None  # (turn, seat, the seat's observation)
        self._rewarded = False  # some reward is not 0 (the match just ended)
        self._queue = list(self.state.to_act())
        self._select()

    def _select(self) -> None:
        """Point agent_selection at the next seat to choose and give it its infos."""
        queue = self._queue
        if not queue:
            self._now = None
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]
            return
        seat = queue[0]
        self.agent_selection = agent = self.possible_agents[seat]
        turn = self._turn
        # _observation's and _legal's caches, read here: this runs at every decision.
        seen = self._seen
        if seen is None or seen[0] != turn or seen[1] != seat:
            seen = self._seen = (turn, seat, self.state.observation(seat))
        observation = seen[2]
        known = self._legal_now
        if known is not None and known[0] == turn and known[1] == seat:
            legal, indices, mask, allowed = known[2]
        else:
            legal = self.state.legal_actions(seat)
            indices = self._indices(legal)
            masks = self._masks
            mask, allowed, previous = masks[seat]
            self._move_mask(mask, previous, indices)
            masks[seat] = (mask, allowed, indices)
            self._legal_now = (turn, seat, (legal, indices, mask, allowed))
        self._now = (agent, seat, observation, legal, indices, mask, allowed)
        self.infos[agent] = {
            "legal": legal,
            "legal_actions": indices[:],
            "raw_observation": observation,
        }

    def _observation(self, seat: int) -> dict:
        # The engine state changes only in apply(): one observation per seat and turn.
        seen = self._seen
        if seen is None or seen[0] != self._turn or seen[1] != seat:
            seen = self._seen = (self._turn, seat, self.state.observation(seat))
        return seen[2]

    def _legal(self, seat: int) -> tuple[list, list[int], np.ndarray, memoryview]:
        """The seat's legal actions now, their integers, the mask and a memoryview of it
        (once per turn)."""
        known = self._legal_now
        if known is not None and known[0] == self._turn and known[1] == seat:
            return known[2]
        legal = self.state.legal_actions(seat)
        indices = self._indices(legal)
        # One mask per seat, kept: clearing the last legal integers and setting the new
        # ones beats a fresh array per turn when the catalogue is large (Troll Guts).
        mask, allowed, previous = self._masks[seat]
        self._move_mask(mask, previous, indices)
        self._masks[seat] = (mask, allowed, indices)
        value = (legal, indices, mask, allowed)
        self._legal_now = (self._turn, seat, value)
        return value

    def raw_observation(self, agent: str) -> dict:
        """The engine's observation dict for ``agent`` (what the wire protocol sends)."""
        return self._observation(self._seat[agent])

    def legal_actions(self, agent: str) -> list:
        """The legal JSON actions of ``agent`` now ([] when it is not to choose)."""
        seat = self._seat[agent]
        if seat not in self._queue:
            return []
        return self.state.legal_actions(seat)

    def observe(self, agent: str) -> dict:
        now = self._now
        if now is not None and now[0] == agent:  # the seat to choose: all at hand
            return self._encode_view(
                now[2], now[1], np.empty(self._vector_size, FLOAT32), now[5]
            ) or self._encoder.encode_view(
                now[2], now[1], np.empty(self._vector_size, FLOAT32), now[5]
            )
        seat = self._seat[agent]
        vector = self._encode(self._observation(seat), seat, np.empty(self._vector_size, FLOAT32))
        if seat in self._queue:
            mask = self._legal(seat)[2].copy()
        else:
            mask = np.zeros(self._catalogue_size, np.int8)
        return {"observation": vector, "action_mask": mask}

    def last(self, observe: bool = True):
        if self._last_c is not None:
            seen = self._last_c(self, observe)
            if seen is not None:
                return seen
        agent = self.agent_selection
        now = self._now
        if not observe:
            seen = None
        elif now is not None and now[0] == agent:  # observe()'s first case, inline
            seen = self._encode_view(
                now[2], now[1], np.empty(self._vector_size, FLOAT32), now[5]
            ) or self._encoder.encode_view(
                now[2], now[1], np.empty(self._vector_size, FLOAT32), now[5]
            )
        else:
            seen = self.observe(agent)
        return (
            seen,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action) -> None:
        if self._step_c is not None and self._step_c(self, action):
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        now = self._now
        if now is not None and now[0] == agent:
            seat, indices, allowed = now[1], now[4], now[6]
        else:
            seat = self._seat[agent]
            _, indices, _, allowed = self._legal(seat)
        index = action if action.__class__ is int else int(action)
        inside = 0 <= index < self._catalogue_size
        if inside and allowed[index]:
            chosen = self._scalar_actions[index]
            if chosen is None:
                chosen = self.spec.actions.action(index)
        elif self.illegal == "raise":
            chosen = self.spec.actions.action(index) if inside else None
            raise ValueError(
                f"{agent}: action {index} ({chosen!r}) is not legal now; legal: {indices}"
            )
        else:
            chosen = self.state.default_action(seat)
        self._cumulative_rewards[agent] = 0.0
        self._pending[seat] = chosen
        self._queue.pop(0)
        if self._rewarded:  # rewards are all 0 until the match ends
            for name in self.agents:
                self.rewards[name] = 0.0
            self._rewarded = False
        if not self._queue:
            self._advance()
        infos = self.infos
        if agent in infos and not (self.terminations[agent] or self.truncations[agent]):
            infos[agent] = {}
        self._select()
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _advance(self) -> None:
        """Apply the turn's choices; then the match ends, is cut short, or goes on."""
        state = self.state
        state.apply(self._pending)
        self._turn += 1
        self._pending = {}
        self.cycles += 1
        acting = state.to_act()  # once: is_over() would work it out a second time
        if not acting:
            result = state.result()
            if self.reward_kind == "rank":
                values = rank_rewards(result)
            else:
                values = [float(s["score"]) for s in result["seats"]]
            for name in self.agents:
                self.rewards[name] = values[self._seat[name]]
                self.terminations[name] = True
                self.infos[name] = {"result": result}
            self._rewarded = True
        elif self.max_cycles is not None and self.cycles >= self.max_cycles:
            for name in self.agents:
                self.truncations[name] = True
                self.infos[name] = {}
        else:
            self._queue = list(acting)

    def render(self) -> str | None:
        """The match as text: to act, then the spectator's view (no hidden cards)."""
        if self.state is None:
            return None
        lines = [
            f"{self.spec.slug} (v{self.spec.game.version}), {self.spec.players} players, "
            f"seed {self.seed_used}, options {json.dumps(self.spec.options, sort_keys=True)}",
            f"to act: {list(self.state.to_act())}; chosen so far this turn: "
            f"{sorted(self._pending)}",
        ]
        view = self.state.observation(None)
        for key, value in view.items():
            if key in ("history", "round_events", "past_games", "past_hands", "past_rounds"):
                value = f"[{len(value)} entries]" if isinstance(value, list) else value
            lines.append(f"  {key}: {json.dumps(value)}")
        if self.state.is_over():
            lines.append(f"result: {json.dumps(self.state.result())}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state = None


def env(
    slug: str,
    players: int | None = None,
    options: dict | None = None,
    **kwargs,
) -> ArenaEnv:
    """The AEC environment of ``slug`` (players: the game's fewest by default).

    Keyword arguments: ``reward`` ("rank" or "score"), ``max_cycles``, ``illegal``
    ("raise" or "default"), ``render_mode`` ("ansi" or "human").
    """
    game = registry.get(slug)
    players = game.min_players if players is None else players
    return ArenaEnv(spec(slug, players, options), **kwargs)


def parallel_env(slug: str, players: int | None = None, options: dict | None = None, **kwargs):
    """The Parallel API, for games where every seat acts at every turn (Venture, Punk
    with cards): PettingZoo's own AEC-to-parallel conversion."""
    return aec_to_parallel(env(slug, players, options, **kwargs))


def as_module(slug: str, players: int | None = None, options: dict | None = None, **kwargs):
    """An object with ``env(max_cycles=)`` and ``parallel_env(max_cycles=)``, the shape
    PettingZoo's ``max_cycles_test`` expects of an environment module."""
    return SimpleNamespace(
        env=lambda max_cycles=None: env(slug, players, options, max_cycles=max_cycles, **kwargs),
        parallel_env=lambda max_cycles=None: parallel_env(
            slug, players, options, max_cycles=max_cycles, **kwargs
        ),
    )
