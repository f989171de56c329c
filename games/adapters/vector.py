"""N matches of one configuration stepped together: ``vector(slug, num_envs, players=,
options=, seed=)``.

Each step takes one integer per match (the choice of the seat to act there) and gives
back the next decision of every match as numpy arrays: the acting seat's observation
vectors (``[N, size]`` float32, the encoder of ``games.adapters.spec``, exactly what
PettingZoo's ``observe`` gives that seat), the masks (``[N, actions]`` int8) and the
acting seats (``[N]``). Conventions as in ``games.adapters.pettingzoo``: a simultaneous
engine turn is chosen seat after seat, the engine applies it when the last choice is in;
rewards are 0 until a match ends, then ``rank`` (default) or ``score`` for every seat.

A match that ends is dealt again at once (auto-reset): its row in that step's batch is
the new match's first decision, ``done[i]`` is true, ``rewards[i]`` holds the ended
match's rewards per seat and ``results[i]`` its engine result. Match ``i``'s ``k``-th deal
uses the engine seed ``derive_seed(seed, "vector", i, k) % 2**62``: the same seed and
choices give the same batches, on any machine.

Needs numpy only (no PettingZoo or OpenSpiel).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games import registry
from games.adapters import compiled
from games.adapters.codec import rank_rewards
from games.adapters.compiled import CompiledEncoder
from games.adapters.spec import Spec, spec
from games.rng import derive_seed


@dataclass
class Batch:
    """One decision per match. The arrays are the caller's own (fresh each step)."""

    observations: np.ndarray  # [N, size] float32: the acting seat's vector
    masks: np.ndarray  # [N, actions] int8: 1 at each legal integer
    acting: np.ndarray  # [N] int64: the seat choosing in each match
    legal: list[list[int]]  # the legal integers per match, ascending (the masks' ones)
    rewards: np.ndarray  # [N, players] float32: each seat's reward if the match just ended
    done: np.ndarray  # [N] bool: the match ended in this step (its row is a new match)
    results: dict[int, dict]  # match index -> the ended match's engine result


class _Match:
    __slots__ = ("state", "queue", "pending", "deals", "seed", "legal")

    def __init__(self):
        self.state = None
        self.queue: list[int] = []
        self.pending: dict[int, object] = {}
        self.deals = 0
        self.seed = 0
        self.legal: list[int] = []


class VectorEnv:
    def __init__(
        self,
        spec: Spec,
        num_envs: int,
        *,
        seed: int = 0,
        reward: str = "rank",
        illegal: str = "raise",
    ):
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        if reward not in ("rank", "score"):
            raise ValueError("reward must be 'rank' or 'score'")
        if illegal not in ("raise", "default"):
            raise ValueError("illegal must be 'raise' or 'default'")
        self.spec = spec
        self.num_envs = num_envs
        self.players = spec.players
        self.reward_kind = reward
        self.illegal = illegal
        self.observation_size = spec.encoder.size
        self.action_count = len(spec.actions)
        self._encoder = CompiledEncoder(spec.encoder)
        self._indices = spec.lookup.indices
        self._move_mask = compiled.mask_mover()
        self._seed = int(seed)
        self._matches = [_Match() for _ in range(num_envs)]
        self._observations = np.zeros((num_envs, self.observation_size), np.float32)
        self._masks = np.zeros((num_envs, self.action_count), np.int8)
        self._acting = np.zeros(num_envs, np.int64)

    def reset(self, seed: int | None = None) -> Batch:
        """Deal every match afresh (``seed`` replaces the constructor's)."""
        if seed is not None:
            self._seed = int(seed)
        self._encoder.forget()
        self._masks.fill(0)
        for i, match in enumerate(self._matches):
            match.deals = 0
            match.legal = []
            self._deal(i, match)
            self._show(i, match)
        return self._batch(np.zeros((self.num_envs, self.players), np.float32), {})

    def step(self, actions) -> Batch:
        """Play one integer per match (the acting seat's choice)."""
        actions = np.asarray(actions).reshape(-1)
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {actions.shape[0]}")
        if self._matches[0].state is None:
            raise RuntimeError("call reset() before step()")
        rewards = np.zeros((self.num_envs, self.players), np.float32)
        results: dict[int, dict] = {}
        codec = self.spec.actions
        masks = self._masks
        n = self.action_count
        choices = []  # every action checked before any match moves
        for i, match in enumerate(self._matches):
            index = int(actions[i])
            if 0 <= index < n and masks[i, index]:
                choices.append(codec.action(index))
            elif self.illegal == "raise":
                raise ValueError(
                    f"match {i}, seat {match.queue[0]}: action {index} is not legal now; "
                    f"legal: {match.legal}"
                )
            else:
                choices.append(match.state.default_action(match.queue[0]))
        for i, match in enumerate(self._matches):
            chosen = choices[i]
            seat = match.queue.pop(0)
            match.pending[seat] = chosen
            if not match.queue:
                state = match.state
                state.apply(match.pending)
                match.pending = {}
                acting = state.to_act()  # once: is_over() would work it out again
                if not acting:
                    result = state.result()
                    if self.reward_kind == "rank":
                        rewards[i] = rank_rewards(result)
                    else:
                        rewards[i] = [float(s["score"]) for s in result["seats"]]
                    results[i] = result
                    self._deal(i, match)
                else:
                    match.queue = list(acting)
            self._show(i, match)
        return self._batch(rewards, results)

    def seeds(self) -> list[int]:
        """The engine seed of each match being played."""
        return [match.seed for match in self._matches]

    # -- internals -------------------------------------------------------------------
    def _deal(self, i: int, match: _Match) -> None:
        match.seed = derive_seed(self._seed, "vector", i, match.deals) % (1 << 62)
        match.deals += 1
        match.state = self.spec.new_state(match.seed)
        match.queue = list(match.state.to_act())
        match.pending = {}

    def _show(self, i: int, match: _Match) -> None:
        """Row ``i``: the acting seat's vector and mask."""
        seat = match.queue[0]
        state = match.state
        self._encoder.encode(state.observation(seat), (i, seat), self._observations[i])
        legal = self._indices(state.legal_actions(seat))
        self._move_mask(self._masks[i], match.legal, legal)
        match.legal = legal
        self._acting[i] = seat

    def _batch(self, rewards: np.ndarray, results: dict[int, dict]) -> Batch:
        done = np.zeros(self.num_envs, bool)
        done[list(results)] = True
        return Batch(
            observations=self._observations.copy(),
            masks=self._masks.copy(),
            acting=self._acting.copy(),
            legal=[match.legal for match in self._matches],
            rewards=rewards,
            done=done,
            results=results,
        )


def vector(
    slug: str,
    num_envs: int,
    players: int | None = None,
    options: dict | None = None,
    **kwargs,
) -> VectorEnv:
    """``num_envs`` matches of ``slug`` (players: the game's fewest by default) stepped
    together. Keyword arguments: ``seed`` (default 0), ``reward`` ("rank" or "score"),
    ``illegal`` ("raise" or "default")."""
    game = registry.get(slug)
    players = game.min_players if players is None else players
    return VectorEnv(spec(slug, players, options), num_envs, **kwargs)
