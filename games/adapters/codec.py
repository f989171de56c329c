"""Actions <-> integers and observations -> fixed-size vectors, in plain Python.

This file imports nothing but the standard library and nothing from the
project, so a bot can ship it in its zip and turn the wire protocol's
``observation`` and ``legal`` into exactly the vector and mask a policy was
trained on (and the policy's integer back into an action). The adapters build
the same objects from the engine (``games.adapters.spec``); a bot rebuilds them
from the JSON that ``Spec.export()`` writes (``load_codec``).

Observation encoding (generic over the observation dict's structure):

- Every leaf gets a *path*: dict keys joined by ``.``; a list whose length was
  the same in every probed observation (per-seat lists, the five targets...)
  keeps its positions (``chips[1]``); any other list (hands, histories) is a
  multiset and writes ``[*]``.
- Numbers and booleans add their value to the slot ``<path>#`` (so a multiset
  of numbers sums); the sum is squashed to ``sign(x) * log1p(|x|)`` at the end
  to keep chips and scores on a learnable scale.
- Strings, ``null`` and small integers inside a multiset (cards: 0 to 20) also
  count in ``<path>=<token>``: a bag of cards per pile.
- The layout (which paths are positional, which slots exist, in which order)
  is fixed per (game version, players, options): ``games.adapters.layout``
  works it out from the rules' card sets and a deterministic probe. A key the
  layout lacks lands in a small hashed overflow block instead of being lost.

The vector is a function of ``observation(seat)`` alone, so what a seat cannot
see can never change it.
"""

from __future__ import annotations

import copy
import json
import math
import zlib

SMALL_INT = 20  # integers 0..SMALL_INT inside a multiset are also counted as tokens
OVERFLOW = 32  # hashed slots for keys the layout does not name
_SCALARS = (int, str, float, bool, type(None))


def action_key(action):
    """A dict key for a JSON action that keeps JSON types apart (1, 1.0, true, "1")."""
    kind = action.__class__
    if kind is str or kind is int:
        return action
    if kind is bool:
        return ("bool", action)
    if kind is float or action is None:
        return ("value", repr(action))
    return ("json", json.dumps(action, sort_keys=True, separators=(",", ":")))


class ActionCodec:
    """A fixed list of actions: integer <-> JSON action, and masks over the list."""

    def __init__(self, actions: list):
        self.actions = list(actions)
        self._index = {}
        for i, action in enumerate(self.actions):
            key = action_key(action)
            if key in self._index:
                raise ValueError(f"action listed twice: {action!r}")
            self._index[key] = i
        # (type, repr) -> integer for lists and dicts: repr keeps JSON types apart as
        # action_key does, at a fraction of json.dumps's cost.
        self._by_repr = {
            (action.__class__, repr(action)): i
            for i, action in enumerate(self.actions)
            if action.__class__ is list or action.__class__ is dict
        }
        # 1 where a shallow copy of the action is a fresh copy (a list or dict of scalars).
        self._flat = bytes(
            (a.__class__ is list and all(x.__class__ in _SCALARS for x in a))
            or (a.__class__ is dict and all(x.__class__ in _SCALARS for x in a.values()))
            for a in self.actions
        )

    def __len__(self) -> int:
        return len(self.actions)

    def index(self, action) -> int:
        """The integer of ``action``; KeyError when it is outside the catalogue."""
        return self._index[action_key(action)]

    def action(self, index: int):
        """The JSON action of ``index`` (a fresh copy: engines may keep what they get)."""
        index = int(index)
        action = self.actions[index]
        kind = action.__class__
        if kind is list or kind is dict:
            return action.copy() if self._flat[index] else copy.deepcopy(action)
        return copy.deepcopy(action) if isinstance(action, list | dict) else action

    def indices(self, legal: list) -> list[int]:
        """The integers of the legal actions, ascending."""
        index = self._index
        by_repr = self._by_repr
        out = []
        for action in legal:
            kind = action.__class__
            if kind is str or kind is int:
                out.append(index[action])
                continue
            key = (kind, repr(action))
            i = by_repr.get(key)
            if i is None:
                i = by_repr[key] = index[action_key(action)]
            out.append(i)
        out.sort()
        return out

    def mask(self, legal: list) -> list[int]:
        """1 at each legal action's integer, 0 elsewhere."""
        out = [0] * len(self.actions)
        for i in self.indices(legal):
            out[i] = 1
        return out


def squash(x: float) -> float:
    return math.copysign(math.log1p(abs(x)), x)


class ObservationEncoder:
    """observation dict -> list of floats of a fixed ``size`` (see the module docstring)."""

    def __init__(self, positional: dict[str, int], slots: list[str], overflow: int = OVERFLOW):
        self.positional = dict(positional)
        self.slots = list(slots)
        self.overflow = overflow
        self._slot = {key: i for i, key in enumerate(self.slots)}
        self._memo: dict = {}
        self.size = len(self.slots) + overflow

    def to_json(self) -> dict:
        return {"positional": self.positional, "slots": self.slots, "overflow": self.overflow}

    @classmethod
    def from_json(cls, data: dict) -> ObservationEncoder:
        return cls(data["positional"], data["slots"], data.get("overflow", OVERFLOW))

    def features(self, observation) -> dict[str, float]:
        """Feature key -> raw value (numbers summed, tokens counted), before squashing."""
        out: dict[str, float] = {}
        self.walker(out)(observation, "", "", False)
        return out

    def walker(self, out: dict[str, float]):
        """``walk(value, path, pattern, in_bag)``: adds the features of ``value`` found at
        ``path`` (its list pattern ``pattern``) to ``out``, in walk order."""
        get = out.get
        positional = self.positional
        memo = self._memo  # key strings are built once per path, not once per observation
        if len(memo) > 200_000:  # long-running processes: keep the memo bounded
            memo.clear()

        def walk(value, path: str, pattern: str, in_bag: bool) -> None:
            kind = value.__class__
            if kind is dict:
                for key, item in value.items():
                    step = memo.get((path, pattern, key))
                    if step is None:
                        step = memo[(path, pattern, key)] = (f"{path}.{key}", f"{pattern}.{key}")
                    walk(item, step[0], step[1], in_bag)
            elif kind is list:
                if not value:
                    return
                inner = pattern + "[]"
                if pattern in positional:
                    for i, item in enumerate(value):
                        walk(item, f"{path}[{i}]", inner, in_bag)
                else:
                    bag = path + "[*]"
                    for item in value:
                        walk(item, bag, inner, True)
            elif kind is bool or kind is int or kind is float:
                key = memo.get(path)
                if key is None:
                    key = memo[path] = path + "#"
                out[key] = get(key, 0.0) + value
                if in_bag and kind is int and 0 <= value <= SMALL_INT:
                    token = memo.get((path, value))
                    if token is None:
                        token = memo[(path, value)] = f"{path}=i:{value}"
                    out[token] = get(token, 0.0) + 1.0
            else:
                token = memo.get((path, value, None))
                if token is None:
                    text = "none" if value is None else f"s:{value}"
                    token = memo[(path, value, None)] = f"{path}={text}"
                out[token] = get(token, 0.0) + 1.0

        return walk

    def encode(self, observation) -> list[float]:
        vector = [0.0] * self.size
        slot = self._slot
        base = len(self.slots)
        for key, value in self.features(observation).items():
            if key.endswith("#"):
                value = squash(value)
            i = slot.get(key)
            if i is None:
                i = base + zlib.crc32(key.encode()) % self.overflow
            vector[i] += value
        return vector

    def unknown(self, observation) -> list[str]:
        """Feature keys the layout lacks (they went to the overflow block)."""
        return sorted(key for key in self.features(observation) if key not in self._slot)


def rank_rewards(result: dict) -> list[float]:
    """Each seat's share of seats it beat minus the share that beat it, in [-1, 1].

    Zero-sum at any table size; two seats: win 1, loss -1, tie 0. Teammates share a
    rank, so they count as ties with each other.
    """
    ranks = [seat["rank"] for seat in result["seats"]]
    n = len(ranks)
    if n < 2:
        return [0.0] * n
    return [
        (sum(1 for r in ranks if r > mine) - sum(1 for r in ranks if r < mine)) / (n - 1)
        for mine in ranks
    ]


class Codec:
    """What a policy needs at play time: actions and the observation encoder."""

    def __init__(self, actions: ActionCodec, encoder: ObservationEncoder, meta: dict):
        self.actions = actions
        self.encoder = encoder
        self.meta = meta

    def vector_and_mask(self, observation: dict, legal: list) -> tuple[list[float], list[int]]:
        """The wire protocol's ``act`` message -> what the policy was trained on."""
        return self.encoder.encode(observation), self.actions.mask(legal)

    def to_action(self, index: int, legal: list):
        """The policy's integer -> the JSON action to send (checked against ``legal``)."""
        action = self.actions.action(index)
        if index not in self.actions.indices(legal):
            raise ValueError(f"action {index} ({action!r}) is not legal now")
        return action


def load_codec(data: dict) -> Codec:
    """A Codec from ``Spec.export()``'s JSON (what a bot ships in its zip)."""
    return Codec(
        ActionCodec(data["actions"]),
        ObservationEncoder.from_json(data["encoder"]),
        {k: data[k] for k in ("game", "version", "players", "options") if k in data},
    )
