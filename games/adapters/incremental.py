"""The observation vector of ``codec.ObservationEncoder``, re-encoded only where the
observation changed since the last one of the same view (a seat, the spectator).

The vector is a sum over the observation's top-level keys (every feature's path starts
with its key, so the keys' slots never overlap, but for the hashed overflow block). Each
view remembers, per key, the value it last encoded and that value's raw features:

- a key whose value equals the last one (same type) keeps its slots as they are;
- a list that only grew at its end (a hand's history, past games) and that the layout
  treats as a bag adds the new items' features to the old sums, when every sum involved
  is a whole number (so the order of the additions cannot change a bit); otherwise
- the key's value is walked again, as the full encoder would.

The numbers are exactly ``ObservationEncoder.encode``'s (tests/games/adapters/
test_fingerprints.py). It relies on the protocol's contract that an engine never
changes an observation it handed out: a value met again as the very same object is
taken as unchanged.
"""

from __future__ import annotations

import zlib
from array import array
from collections import Counter

import numpy as np

from games.adapters.codec import SMALL_INT, ObservationEncoder, squash

# Only the observation's own keys get a place each: measured on the slowest games, a
# deeper tree of places costs more in bookkeeping than it saves in walking.
DEPTH = 1


class _Node:
    """One place of a view's observation: the value last encoded there and either its
    children (a dict, or a list the layout keeps positional, outside any bag) or its raw
    features and those of them outside the layout as (hashed slot, value), in walk order."""

    __slots__ = ("value", "path", "pattern", "depth", "children", "features", "overflow", "slots")

    def __init__(self, path: str, pattern: str, depth: int):
        self.path = path
        self.depth = depth
        self.pattern = pattern
        self.value = None
        self.children: dict | None = None
        self.features: dict[str, float] = {}
        self.overflow: list = []
        self.slots: list = []  # (slot, value) pairs when _fast encoded it (features None)


class _View:
    __slots__ = ("root", "slots", "vector", "overflowing")

    def __init__(self, size: int):
        self.root: _Node | None = None
        # The places write their slots one by one into a plain array (a C store each) that
        # the numpy vector views without a copy: cheaper than collecting the writes and
        # assigning them with numpy's fancy indexing, which converts both lists per call.
        self.slots = array("d", bytes(8 * size))
        self.vector = np.frombuffer(self.slots, np.float64)
        self.overflowing = False  # some place has features in the overflow block


class IncrementalEncoder:
    """``encode(observation, view)``: the float64 vector of ``observation`` (the view's own
    array, updated in place: copy or cast it before the next call for that view)."""

    def __init__(self, encoder: ObservationEncoder):
        self.encoder = encoder
        self.size = encoder.size
        self._slot = encoder._slot
        self._base = len(encoder.slots)
        self._positional = encoder.positional
        self._memo = encoder._memo
        self._views: dict = {}
        # squash(x) per sum met (sums are mostly small whole numbers); -0.0 == 0.0 as a key
        # is harmless: the slot gets 0.0 + value either way.
        self._squashed: dict[float, float] = {}
        self._scratch: dict[str, float] = {}  # one walker, bound to a dict emptied per use
        self._walk = encoder.walker(self._scratch)
        # Slots per path for the fast path (_fast): a number's, a token's, a bag's sum and
        # its tokens', and the paths of a positional list's items.
        self._numbers: dict[str, int | None] = {}
        self._tokens: dict[tuple, int | None] = {}
        self._bags: dict[str, tuple] = {}
        self._positions: dict[str, list[str]] = {}
        self._items: dict[tuple, tuple] = {}  # (bag path, repr of an item) -> its features

    def forget(self) -> None:
        """Drop every view's memory."""
        self._views.clear()

    def encode(self, observation, view=None) -> np.ndarray:
        state = self._views.get(view)
        if state is None:
            state = self._views[view] = _View(self.size)
        if len(self._memo) > 200_000:  # as the encoder's walker does, between walks
            self._memo.clear()
        if len(self._squashed) > 100_000:
            self._squashed.clear()
        if len(self._tokens) > 100_000:
            self._tokens.clear()
        if len(self._items) > 100_000:
            self._items.clear()
        writes = state.slots
        if state.root is None:
            state.root = _Node("", "", 0)
            self._build(state.root, observation, writes)
            moved = True
        else:
            moved = self._update(state.root, observation, writes)
        vector = state.vector
        if moved or state.overflowing:
            block = [0.0] * self.encoder.overflow
            state.overflowing = self._overflow(state.root, block)
            vector[self._base :] = block
        return vector

    # -- one place -------------------------------------------------------------------
    def _update(self, node: _Node, value, writes: array) -> bool:
        """Bring ``node`` to ``value``; True when the overflow block may have changed."""
        old = node.value
        kind = value.__class__
        if old is value:
            return False
        if old.__class__ is kind:
            children = node.children
            if children is not None and (kind is dict or node.pattern in self._positional):
                moved = False
                fast = self._fast
                items = value.items() if kind is dict else enumerate(value)
                for key, item in items:
                    child = children.get(key)
                    if child is None:
                        child = children[key] = self._child(node, key, kind)
                        moved |= self._build(child, item, writes)
                    else:
                        last = child.value
                        if last is item or (last.__class__ is item.__class__ and last == item):
                            child.value = item
                            continue
                        if child.features is None:  # was encoded by _fast: try it again
                            slots: list = []
                            if fast(child.path, child.pattern, item, slots):
                                for i, _ in child.slots:
                                    writes[i] = 0.0
                                for i, number in slots:
                                    writes[i] = 0.0 + number
                                child.slots = slots
                                child.value = item
                                continue
                        moved |= self._update(child, item, writes)
                if len(children) != len(value):
                    present = value if kind is dict else range(len(value))
                    for key in [key for key in children if key not in present]:
                        moved |= self._clear(children.pop(key), writes)
                node.value = value
                return moved
            if old == value:
                node.value = value
                return False
            if (
                kind is list
                and 0 < len(old) < len(value)
                and value[: len(old)] == old
                and self._append(node, value, writes)
            ):
                return bool(node.overflow)
        moved = self._clear(node, writes)
        return self._build(node, value, writes) or moved

    def _child(self, node: _Node, key, kind) -> _Node:
        if kind is dict:
            return _Node(f"{node.path}.{key}", f"{node.pattern}.{key}", node.depth + 1)
        return _Node(f"{node.path}[{key}]", node.pattern + "[]", node.depth + 1)

    def _build(self, node: _Node, value, writes: array) -> bool:
        """Encode ``value`` at an empty ``node``; True when it has overflow features."""
        node.value = value
        kind = value.__class__
        if node.depth < DEPTH and (
            kind is dict or (kind is list and node.pattern in self._positional)
        ):
            node.children = children = {}
            moved = False
            items = value.items() if kind is dict else enumerate(value)
            for key, item in items:
                child = children[key] = self._child(node, key, kind)
                moved |= self._build(child, item, writes)
            return moved
        node.children = None
        slots: list = []
        if self._fast(node.path, node.pattern, value, slots):
            node.features = None
            node.overflow = []
            node.slots = slots
            for i, value in slots:
                writes[i] = 0.0 + value
            return False
        if kind is int or kind is float or kind is bool:  # one feature: the number
            feature = node.path + "#"
            features = {feature: 0.0 + value}
        elif kind is str or value is None:  # one feature: the token
            feature = node.path + ("=none" if value is None else f"=s:{value}")
            features = {feature: 1.0}
        else:
            features = self._flat(node, value) if kind is list and value else None
            if features is None:
                scratch = self._scratch
                self._walk(value, node.path, node.pattern, False)
                features = scratch.copy()
                scratch.clear()
        node.features = features
        node.overflow = self._write(features, features, writes)
        return bool(node.overflow)

    def _fast(self, path: str, pattern: str, value, out: list) -> bool:
        """Append the (slot, value) pairs of ``value`` at ``path`` outside any bag to
        ``out`` when every feature has a slot of its own in the layout and the value is a
        number, a token, a bag of plain integers, booleans or strings, or a positional
        list of those; False for anything else (``out`` may hold partial pairs)."""
        kind = value.__class__
        if kind is int or kind is float or kind is bool:
            i = self._number_slot(path)
            if i is None:
                return False
            out.append((i, self._squash(0.0 + value)))
            return True
        if kind is str or value is None:
            i = self._token_slot(path, value)
            if i is None:
                return False
            out.append((i, 1.0))
            return True
        if kind is not list:
            return False
        if not value:
            return True
        if pattern in self._positional:
            inner = pattern + "[]"
            paths = self._positions.get(path)
            if paths is None or len(paths) < len(value):
                paths = self._positions[path] = [f"{path}[{i}]" for i in range(len(value))]
            fast = self._fast
            for i, item in enumerate(value):
                if not fast(paths[i], inner, item, out):
                    return False
            return True
        bag = self._bags.get(path)
        if bag is None:
            bag = self._bags[path] = (self._slot.get(path + "[*]#"), {})
        total, tokens = bag
        first = value[0].__class__
        if first is not int and first is not str and first is not bool:
            return False
        for item in value:
            if item.__class__ is not first:
                return False
        counts: dict = {}
        get = counts.get
        for item in value:
            counts[item] = get(item, 0) + 1
        if first is int or first is bool:
            if total is None:
                return False
            out.append((total, self._squash(float(sum(value)))))
            if first is bool:
                return True
            for item, count in counts.items():
                if 0 <= item <= SMALL_INT:
                    i = tokens.get(item)
                    if i is None:
                        i = tokens[item] = self._slot.get(f"{path}[*]=i:{item}")
                        if i is None:
                            del tokens[item]
                            return False
                    out.append((i, float(count)))
            return True
        if first is str:
            for item, count in counts.items():
                i = tokens.get(item)
                if i is None:
                    i = self._slot.get(f"{path}[*]=s:{item}")
                    if i is None:
                        return False
                    tokens[item] = i
                out.append((i, float(count)))
            return True
        return False

    def _squash(self, raw: float) -> float:
        """``squash(raw)``, remembered (the same few numbers recur every decision)."""
        squashed = self._squashed.get(raw)
        if squashed is None:
            squashed = self._squashed[raw] = squash(raw)
        return squashed

    def _number_slot(self, path: str) -> int | None:
        numbers = self._numbers
        if path in numbers:
            return numbers[path]
        i = numbers[path] = self._slot.get(path + "#")
        return i

    def _token_slot(self, path: str, value) -> int | None:
        key = (path, value)
        found = self._tokens
        if key in found:
            return found[key]
        text = "none" if value is None else f"s:{value}"
        i = found[key] = self._slot.get(f"{path}={text}")
        return i

    def _flat(self, node: _Node, value: list) -> dict[str, float] | None:
        features: dict[str, float] = {}
        return features if self._flat_into(features, node.path, node.pattern, value) else None

    def _flat_into(self, out: dict[str, float], path: str, pattern: str, value: list) -> bool:
        """Add the walk's features of a list outside any bag to ``out``, counted in C, when
        it holds plain integers, numbers or strings (cards, ranks, chips per seat) or, kept
        positional, such lists (a hand per seat); False (``out`` left as it was) for any
        other list."""
        if not value:
            return True
        kinds = set(map(type, value))
        if len(kinds) != 1:
            return False
        kind = kinds.pop()
        if pattern in self._positional:  # one place per position
            if kind is int or kind is float or kind is bool:
                out.update({f"{path}[{i}]#": 0.0 + item for i, item in enumerate(value)})
                return True
            if kind is str:
                out.update({f"{path}[{i}]=s:{item}": 1.0 for i, item in enumerate(value)})
                return True
            if kind is list:
                inner = pattern + "[]"
                part: dict[str, float] = {}
                for i, item in enumerate(value):
                    if not self._flat_into(part, f"{path}[{i}]", inner, item):
                        return False
                out.update(part)
                return True
            return False
        bag = path + "[*]"
        if kind is int:  # the sum, then each small integer counted (first seen first)
            out[bag + "#"] = float(sum(value))
            for item, count in Counter(value).items():
                if 0 <= item <= SMALL_INT:
                    out[f"{bag}=i:{item}"] = float(count)
            return True
        if kind is bool:
            out[bag + "#"] = float(sum(value))
            return True
        if kind is str:
            out.update({f"{bag}=s:{item}": float(count) for item, count in Counter(value).items()})
            return True
        return False

    def _clear(self, node: _Node, writes: array) -> bool:
        """Zero ``node``'s slots; True when it had overflow features."""
        if node.children is not None:
            moved = False
            for child in node.children.values():
                moved |= self._clear(child, writes)
            node.children = None
            return moved
        if node.features is None:  # encoded by _fast: every pair is inside the layout
            for i, _ in node.slots:
                writes[i] = 0.0
            node.features = {}
            node.slots = []
            return False
        slot = self._slot
        for feature in node.features:
            i = slot.get(feature)
            if i is not None:
                writes[i] = 0.0
        node.features = {}
        had = bool(node.overflow)
        node.overflow = []
        return had

    def _append(self, node: _Node, value: list, writes: array) -> bool:
        """Add the features of a bag's new items to the node's sums; False (nothing done)
        when a sum involved is not a whole number or the node was encoded by _fast."""
        if node.features is None:
            return False
        # Each new item's features, walked once per distinct item (history entries recur:
        # the same draw, bid or play): whole amounts only, so that summing them item by
        # item gives the walk's sums exactly, in any order.
        scratch = self._scratch
        walk = self._walk
        items = self._items
        bag = node.path + "[*]"
        inner = node.pattern + "[]"
        delta: dict[str, float] = {}
        add = delta.get
        for item in value[len(node.value) :]:
            key = (bag, repr(item))
            found = items.get(key)
            if found is None:
                walk(item, bag, inner, True)
                found = tuple(scratch.items())
                scratch.clear()
                if not all(amount.is_integer() for _, amount in found):
                    return False
                items[key] = found
            for feature, amount in found:
                delta[feature] = add(feature, 0.0) + amount
        features = node.features
        get = features.get
        for feature in delta:
            if not get(feature, 0.0).is_integer():
                return False
        for feature, amount in delta.items():
            features[feature] = get(feature, 0.0) + amount
        node.value = value
        overflow = self._write(delta, features, writes)
        if overflow or node.overflow:  # hashed slots are summed in walk order: redo them
            node.overflow = self._write(features, features, {})
        return True

    def _write(self, changed, features: dict[str, float], writes: array | dict[int, float]) -> list:
        """Slot values of the ``changed`` features into ``writes``; the ones outside the
        layout as (hashed slot, value) in walk order."""
        slot = self._slot
        squashed = self._squashed
        overflow = []
        for feature in changed:
            value = features[feature]
            if feature[-1] == "#":
                raw = value
                value = squashed.get(raw)
                if value is None:
                    value = squashed[raw] = squash(raw)
            i = slot.get(feature)
            if i is None:
                overflow.append((zlib.crc32(feature.encode()) % self.encoder.overflow, value))
            else:
                writes[i] = 0.0 + value
        return overflow

    def _overflow(self, node: _Node, block: list[float]) -> bool:
        """Add the overflow features under ``node`` to ``block`` in walk order."""
        children = node.children
        if children is None:
            for i, value in node.overflow:
                block[i] += value
            return bool(node.overflow)
        found = False
        keys = node.value if node.value.__class__ is dict else range(len(node.value))
        for key in keys:
            found |= self._overflow(children[key], block)
        return found
