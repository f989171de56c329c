"""The observation encoder's walk compiled to C, for the adapters' hot loop.

``CompiledEncoder(encoder).encode(observation, view)`` gives exactly
``ObservationEncoder.encode``'s vector (as float64; tests/games/adapters/test_compiled.py
checks every game), at a fraction of the cost: the layout becomes a tree of tuples that
``_encode.c`` walks beside the observation, adding each leaf into its slot. An
observation holding a feature the layout lacks (it would land in the hashed overflow
block) is handed to the incremental Python encoder instead, so the numbers never differ.

The C module is built next to this file on first use (``build()``, ``games.native``; also
run by ``make setup`` and ``make extras``) with the machine's C compiler and Python's
headers, and rebuilt when its source changes. Where it cannot be built, ``CompiledEncoder`` is the incremental Python encoder
alone (``available()`` says which).
"""

from __future__ import annotations

import re
import zlib
from array import array
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from games.adapters.codec import SMALL_INT, ActionCodec, ObservationEncoder
from games.adapters.incremental import IncrementalEncoder
from games.native import ENCODE

_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\*)\]")


def _target() -> Path:
    return ENCODE.target()


def build() -> Path:
    """Compile ``_encode.c`` next to this file (``games.native``: atomically, parallel
    builds are harmless), and remove the builds of older sources."""
    return ENCODE.build()


def module():
    """The C module, built when this source has no build yet; None where it cannot be."""
    return ENCODE.load()


def available() -> bool:
    return module() is not None


# A node's fields: the first seven are _encode.c's, the rest Python's own.
CHILDREN, ITEMS, BAG, NUMBER, INTS, STRINGS, NONE, PATH, PATTERN = range(9)
UNKNOWN = -1  # a slot not worked out yet
_PLAIN = (str, int)  # exactly these classes: bool and float would compare equal to ints
MAX_OUTSIDE = 100_000  # features outside the layout remembered before starting afresh
MAX_VIEWS = 4096  # views remembered (a vector of many matches has a view per seat of each)


def _node(path: str, pattern: str) -> list:
    ints = [UNKNOWN] * (SMALL_INT + 1) if "[*]" in path else None  # a multiset's integers
    return [None, None, None, UNKNOWN, ints, None, UNKNOWN, path, pattern]


class Layout:
    """The layout as the tree ``_encode.c`` walks (see its header), grown by ``extend``
    as observations show paths and tokens the layout lacks: their features go to the
    hashed overflow block, each summed on its own, as ``ObservationEncoder.encode`` does."""

    def __init__(self, encoder: ObservationEncoder):
        self.encoder = encoder
        self.numbers = array("q")
        self.features: list[tuple[int, int]] = []  # (overflow slot, 1 for a number)
        self._feature: dict[str, int] = {}
        self.root = _node("", "")
        for slot, key in enumerate(encoder.slots):
            path, token = (key[:-1], None) if key.endswith("#") else key.split("=", 1)
            node = self.root
            for name, index in _STEP.findall(path):
                if name:
                    node = self.extend(node, "key", name)
                elif index == "*":
                    self.extend(node, "list", None)
                    node = node[BAG]
                else:
                    self.extend(node, "list", None)
                    self.extend(node, "items", int(index) + 1)
                    node = node[ITEMS][int(index)]
            if token is None:
                node[NUMBER] = slot
                self.numbers.append(slot)
            elif token == "none":
                node[NONE] = slot
            elif token.startswith("i:"):
                node[INTS][int(token[2:])] = slot
            else:
                node[STRINGS] = node[STRINGS] or {}
                node[STRINGS][token[2:]] = slot

    def _slot(self, key: str, number: bool) -> int:
        """The layout's slot of feature ``key``, else its code as a feature outside it."""
        slot = self.encoder._slot.get(key)
        if slot is not None:
            return slot
        code = self._feature.get(key)
        if code is None:
            overflow = len(self.encoder.slots) + zlib.crc32(key.encode()) % self.encoder.overflow
            code = self._feature[key] = len(self.features)
            self.features.append((overflow, int(number)))
        return -2 - code

    def extend(self, node: list, what: str, key):
        """Work out the child or slot ``_encode.c`` found missing, and keep it in the tree
        (the path and token texts are the Python walker's, ``codec.ObservationEncoder``)."""
        path, pattern = node[PATH], node[PATTERN]
        if what == "key":
            node[CHILDREN] = children = node[CHILDREN] or {}
            child = children.get(key)
            if child is None:
                child = children[key] = _node(f"{path}.{key}", f"{pattern}.{key}")
            return child
        if what == "list":
            if pattern in self.encoder.positional:
                node[ITEMS] = node[ITEMS] or []
            elif node[BAG] is None:
                node[BAG] = _node(path + "[*]", pattern + "[]")
            return None
        if what == "items":
            items = node[ITEMS]
            while len(items) < key:
                items.append(_node(f"{path}[{len(items)}]", pattern + "[]"))
            return None
        if what == "number":
            node[NUMBER] = self._slot(path + "#", True)
            return node[NUMBER]
        if what == "none":
            node[NONE] = self._slot(path + "=none", False)
            return node[NONE]
        if what == "int":
            node[INTS][key] = self._slot(f"{path}=i:{key}", False)
            return node[INTS][key]
        if what == "str":
            node[STRINGS] = node[STRINGS] or {}
            node[STRINGS][key] = self._slot(f"{path}=s:{key}", False)
            return node[STRINGS][key]
        raise ValueError(f"unknown request {what!r}")


class CompiledActions:
    """``indices(legal)``: ``ActionCodec.indices`` (the legal actions' integers, ascending),
    looked up in C where every action is a string, an integer, or a list or a small dict
    of those (as tuples: with no bool or float inside, tuples compare exactly as the JSON
    values do; a dict's tuple is its items in key order); other actions go the codec's
    own way. With the C module, ``indices`` is the C function with the tables bound (one
    call per decision, no Python frame), remembering the answers for long legal lists of
    lists met again as the very same items."""

    def __init__(self, actions: ActionCodec):
        self.actions = actions
        self._c = module()
        self._scalars: dict = {}
        self._lists: dict = {}
        self._dicts: dict = {}
        for i, action in enumerate(actions.actions):
            kind = action.__class__
            if kind is str or kind is int:
                self._scalars[action] = i
            elif kind is list and all(item.__class__ in _PLAIN for item in action):
                self._lists[tuple(action)] = i
                if len(action) == 2:  # _encode.c looks pairs up as lists[a][b]
                    self._lists.setdefault(action[0], {})[action[1]] = i
            elif (
                kind is dict
                and len(action) <= 8
                and all(k.__class__ is str and v.__class__ in _PLAIN for k, v in action.items())
            ):
                self._dicts[tuple(x for item in sorted(action.items()) for x in item)] = i
        if self._c is not None:
            self.indices = partial(
                self._c.indices, self._scalars, self._lists, self._dicts, actions.indices, {}
            )

    def __reduce__(self):
        return (CompiledActions, (self.actions,))  # the tables are rebuilt, not pickled

    def indices(self, legal: list) -> list[int]:
        return self.actions.indices(legal)


class CompiledEncoder:
    """``encode(observation, view)``: the float64 vector of ``observation``, in an array
    this encoder owns and overwrites at the next call (copy or cast it before then). The
    view names whose observation it is, for the Python encoder when it is the one used."""

    def __init__(self, encoder: ObservationEncoder):
        self.encoder = encoder
        self.size = encoder.size
        self._fallback = IncrementalEncoder(encoder)
        self._c = module()
        self._layout = Layout(encoder)
        self._out = np.zeros(self.size, np.float64)
        # Per view, what its last observations' top-level lists added (_encode.c, Entry):
        # a history that grew by one event costs one event's walk.
        self._memos: dict = {}
        # What _encode.c's encode_view, tensor_view and env_last read (its B_ fields),
        # kept up to date when the layout starts again (the same list throughout).
        self.bound = [None] * 4 + [self._out, self._memos, self.size, MAX_VIEWS, MAX_OUTSIDE]
        self._bind()

    def _bind(self) -> None:
        layout = self._layout
        self.bound[:4] = [layout.root, layout.numbers, layout.features, layout.extend]

    def __reduce__(self):
        # A copy starts afresh: the tree is rebuilt from the layout (the C module and the
        # bound ``extend`` cannot be pickled), and it remembers no view.
        return (CompiledEncoder, (self.encoder,))

    def forget(self) -> None:
        self._fallback.forget()
        self._memos.clear()

    def encode(self, observation, view=None, single: np.ndarray | None = None) -> np.ndarray:
        """The vector (this encoder's float64 array); with ``single``, a float32 array of
        the vector's length, the vector rounded into it and ``single`` returned."""
        layout = self._layout
        c = self._c
        if c is not None:
            if len(layout.features) > MAX_OUTSIDE:
                layout = self._layout = Layout(self.encoder)
                self._bind()
            memo = self._memos.get(view)
            if memo is None:
                if len(self._memos) >= MAX_VIEWS:
                    self._memos.clear()
                memo = self._memos[view] = c.memo(self.size)
            if c.encode(
                layout.root,
                layout.numbers,
                layout.features,
                layout.extend,
                observation,
                self._out,
                memo,
                single,
            ):
                return self._out if single is None else single
        vector = self._fallback.encode(observation, view)
        if single is None:
            return vector
        single[:] = vector
        return single

    def view_encoder(self) -> Callable:
        """``encode_view(observation, view, single[, mask])``: ``encode(observation, view,
        single)`` (``single`` returned), or with an int8 ``mask`` PettingZoo's
        ``{"observation": single, "action_mask": mask.copy()}``; in one C call where the
        module is built (bind it once: it runs per decision). The C function answers None
        where the Python encoder must take over: call ``encode_view`` then."""
        if self._c is None:
            return self._encode_view
        return partial(self._c.encode_view, self.bound)

    def tensor_viewer(self) -> Callable | None:
        """``tensor_view(observation, view, values, mirror)``: a fresh list of the vector's
        entries rounded to float32, after ``as_floats(values, vector, mirror)``, in one C
        call; None from it where the Python encoder must take over, and None instead of
        the function without the C module."""
        return None if self._c is None else partial(self._c.tensor_view, self.bound)

    def _encode_view(self, observation, view, single: np.ndarray, mask=None):
        if mask is None:
            return self.encode(observation, view, single)
        return {"observation": self.encode(observation, view, single), "action_mask": mask.copy()}

    def encode_view(self, observation, view, single: np.ndarray, mask=None):
        """``view_encoder()``'s function, called through this encoder (not bound)."""
        if self._c is not None:
            if mask is None:
                done = self._c.encode_view(self.bound, observation, view, single)
            else:
                done = self._c.encode_view(self.bound, observation, view, single, mask)
            if done is not None:
                return done
        return self._encode_view(observation, view, single, mask)


FANCY = 24  # from this many integers on, numpy's indexing beats a Python loop


def _move_mask_numpy(mask: np.ndarray, before: list[int], after: list[int]) -> None:
    if len(before) < FANCY:
        for i in before:
            mask[i] = 0
    else:
        mask[before] = 0
    if len(after) < FANCY:
        for i in after:
            mask[i] = 1
    else:
        mask[after] = 1


def _as_floats_numpy(values: list[float], vector: np.ndarray, mirror=None) -> None:
    single = vector.astype(np.float32)
    values[:] = single.tolist()
    if mirror is not None:
        mirror[:] = single


def mask_mover() -> Callable[[np.ndarray, list[int], list[int]], None]:
    """``move_mask(mask, before, after)``: clear the ``before`` integers of an int8 mask,
    then set the ``after`` ones; in C where it is built (bind it once: it runs per turn)."""
    c = module()
    return _move_mask_numpy if c is None else c.move_mask


def floats_setter() -> Callable[..., None]:
    """``as_floats(values, vector, mirror)`` bound once (see ``as_floats``)."""
    c = module()
    return _as_floats_numpy if c is None else c.as_floats


def as_floats(values: list[float], vector: np.ndarray, mirror: np.ndarray | None = None) -> None:
    """``values`` (a list as long as the float64 ``vector``) made equal to
    ``vector.astype(float32).tolist()``, replacing only the entries that changed. A
    ``mirror`` (float32, as long, equal to ``values``) is compared instead of the list's
    floats, and kept equal to it."""
    floats_setter()(values, vector, mirror)


if __name__ == "__main__":
    print(f"built {build().name}")
