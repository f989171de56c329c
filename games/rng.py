"""The engine-owned pseudo-random generator.

Python's ``random`` may change its algorithms between releases, which would
silently change every recorded deal. This generator is fixed: SplitMix64 for
the stream, BLAKE2b for deriving child seeds. Changing either is a breaking
change and must bump ``RNG_VERSION`` (and with it every game's version).

``Rng`` is the generator compiled from ``games/_rng.c`` (``games.native`` builds it on
first use) where that can be built, else ``PythonRng``: the same values, permutations and
states (tests/games/test_rng.py runs both). ``ARENA_PYTHON_RNG=1`` in the environment
picks ``PythonRng`` whatever is built.
"""

from __future__ import annotations

import hashlib
import struct
from operator import mod

from games.native import RNG

RNG_VERSION = 1
_MASK = (1 << 64) - 1
_SPAN = 1 << 64
_GAMMA = 0x9E3779B97F4A7C15
# Rejection limits of ``below(n)`` for the small bounds every game uses.
_SMALL = 256
_LIMITS = [0] + [_SPAN - _SPAN % n for n in range(1, _SMALL)]
# Below this every bound under ``_SMALL`` accepts an output: no rejection possible.
_ALWAYS_ACCEPTED = _SPAN - _SMALL
# Shorter runs of shuffle steps go one output at a time (packing costs more there).
_PACKED_FROM = 8
# Run length of ``shuffle_steps_until``'s packed outputs.
_UNTIL_RUN = 12
# Outputs ``below`` computes at once when it runs out: a first run once it is called
# again, doubling up to the most (an Rng drawn from a few times wastes little).
_FIRST_RUN = 8
_MOST_AHEAD = 32
# Outputs computed together, one per 128-bit lane of one integer (see ``_outputs``).
_LANE = 128
_PACKINGS: dict[int, tuple[int, int, int, struct.Struct]] = {}


def _packing(count: int) -> tuple[int, int, int, struct.Struct]:
    packing = _PACKINGS.get(count)
    if packing is None:
        ones = sum(1 << (_LANE * lane) for lane in range(count))
        steps = sum((lane + 1) << (_LANE * lane) for lane in range(count))
        # Each lane's low 64 bits, its high half skipped as padding (never unpacked).
        layout = struct.Struct("<" + "Q8x" * count)
        packing = (ones, _GAMMA * steps, _MASK * ones, layout)
        _PACKINGS[count] = packing
    return packing


def _outputs(state: int, count: int) -> tuple[int, ...]:
    """The next ``count`` SplitMix64 outputs after ``state``, computed side by side.

    SplitMix64's k-th state is ``state + k * gamma``, so the outputs do not depend
    on each other: each sits in its own 128-bit lane of one integer (a 64-bit value
    times a 64-bit constant fits its lane), masked back to 64 bits after every step
    that could spill into the next lane, and the big-integer arithmetic runs in C
    once for all of them instead of once per output.
    """
    ones, stepped, masks, layout = _packing(count)
    x = (state * ones + stepped) & masks
    x = ((x ^ (x >> 30)) & masks) * 0xBF58476D1CE4E5B9 & masks
    x = ((x ^ (x >> 27)) & masks) * 0x94D049BB133111EB & masks
    x ^= x >> 31
    # Each lane's low 64 bits are the output; its high half holds spill from the next.
    return layout.unpack(x.to_bytes(16 * count, "little"))


def derive_seed(seed: int, *path: int | str) -> int:
    """A 64-bit seed for a sub-stream, e.g. ``derive_seed(match_seed, "hand", 3)``.

    Each hand of a match gets its own stream so it can be replayed or dealt
    again (duplicate play) without playing the hands before it.
    """
    text = ":".join(["arena-rng", str(RNG_VERSION), str(int(seed))] + [str(p) for p in path])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def seed_text(seed: int, *path: int | str) -> str:
    """The text ``derive_seed(seed, *path, last)`` hashes, up to ``last``: built once for a
    family of sub-streams (every hand of a match), each finished by ``derive_seed_after``."""
    return ":".join(["arena-rng", str(RNG_VERSION), str(int(seed))] + [str(p) for p in path]) + ":"


def derive_seed_after(text: str, last: int | str) -> int:
    """``derive_seed(seed, *path, last)``, given ``seed_text(seed, *path)``."""
    return int.from_bytes(hashlib.blake2b(f"{text}{last}".encode(), digest_size=8).digest(), "big")


def _limit(n: int) -> int:
    """``below(n)`` accepts the outputs under this (a bound past 2**64 would accept none)."""
    if n > _SPAN:
        raise ValueError("below() needs a bound of at most 2**64")
    return _SPAN - _SPAN % n


class PythonRng:
    """SplitMix64. Small, fast in pure Python, and identical on every platform."""

    __slots__ = ("_state", "_ahead", "_run")

    def __init__(self, seed: int) -> None:
        self._state = int(seed) & _MASK
        # Outputs ``below`` worked out ahead, the next one last (a list once there are
        # any); ``_state`` is past them.
        self._ahead: list[int] | tuple = ()
        # How many outputs ``below`` works out at once when ``_ahead`` runs dry: none
        # until it is called a second time, so that an Rng used once pays for one.
        self._run = 0

    def __copy__(self) -> PythonRng:
        # Its own list of outputs ahead: a shallow copy sharing one would draw from it too.
        dup = PythonRng.__new__(PythonRng)
        dup._state = self._state
        dup._ahead = self._ahead[:]
        dup._run = self._run
        return dup

    def _give_back(self) -> None:
        """Forget the outputs worked out ahead, stepping the state back before them."""
        self._state = (self._state - len(self._ahead) * _GAMMA) & _MASK
        self._ahead = ()

    def next_u64(self) -> int:
        if self._ahead:
            return self._ahead.pop()
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, without modulo bias.

        Random policies and playouts call this for every move, so from its second
        call on it takes outputs from runs worked out together (``_outputs``); the
        stream is exactly ``next_u64``'s.
        """
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _LIMITS[n] if n < _SMALL else _limit(n)
        ahead = self._ahead
        while True:
            if not ahead:
                run = self._run
                if not run:
                    self._run = _FIRST_RUN
                    return self._below_one_by_one(n, limit)
                state = self._state
                self._ahead = ahead = list(reversed(_outputs(state, run)))
                self._state = (state + run * _GAMMA) & _MASK
                if run < _MOST_AHEAD:
                    self._run = run * 2
            z = ahead.pop()
            if z < limit:
                return z % n

    def _below_one_by_one(self, n: int, limit: int) -> int:
        # SplitMix64 inlined, as in ``shuffle_steps``.
        state = self._state
        while True:
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            z ^= z >> 31
            if z < limit:
                self._state = state
                return z % n

    def choice(self, items: list):
        return items[self.below(len(items))]

    def shuffle(self, items: list) -> None:
        """Fisher-Yates, in place: ``below(i + 1)`` for i from the end, with SplitMix64
        inlined (every deal runs through here; the stream is exactly the same)."""
        self.shuffle_steps(items, len(items) - 1, 1)

    def shuffle_steps(self, items: list, start: int, stop: int) -> None:
        """The steps of ``shuffle`` for positions ``start`` down to ``stop``, both
        included (``shuffle`` is every step, ``len(items) - 1`` down to 1; position 0
        has none). A lazy shoe settles the cards it is about to draw with one call."""
        low, outputs = self._packed_steps(start, stop)
        if outputs is not None:
            # Step i swaps position i with output % (i + 1), the remainders taken in C.
            for i, j in zip(
                range(start, low - 1, -1), map(mod, outputs, range(start + 1, low, -1))
            ):
                items[i], items[j] = items[j], items[i]
            return
        state = self._state
        for i in range(start, low - 1, -1):
            n = i + 1
            limit = _LIMITS[n] if n < _SMALL else _SPAN - _SPAN % n
            while True:
                state = (state + 0x9E3779B97F4A7C15) & _MASK
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                z ^= z >> 31
                if z < limit:
                    break
            j = z % n
            items[i], items[j] = items[j], items[i]
        self._state = state

    def skip_shuffle_steps(self, start: int, stop: int) -> None:
        """Draw what ``shuffle_steps(items, start, stop)`` would, without a list to shuffle:
        for the pending steps of a pile thrown away on a stream that goes on (the outputs
        are still worked out, since one that ``below`` would reject takes another)."""
        if self._packed_steps(start, stop)[1] is None:
            self.shuffle_steps([None] * (start + 1), start, stop)

    def _packed_steps(self, start: int, stop: int) -> tuple[int, list[int] | None]:
        """The lowest position with a step (1 at least) and, where a packed run pays and
        ``below`` would reject none of its outputs, the outputs of the steps ``start`` down
        to ``stop``, taken from the stream (step k takes output k, exactly as the loop of
        ``shuffle_steps`` would); else None, the stream untouched."""
        if self._ahead:
            self._give_back()
        low = max(stop, 1)
        count = start - low + 1
        if count >= _PACKED_FROM and start < _SMALL - 1:
            state = self._state
            outputs = _outputs(state, count)
            if max(outputs) < _ALWAYS_ACCEPTED:
                self._state = (state + count * _GAMMA) & _MASK
                return low, outputs
        return low, None

    def shuffle_steps_until(self, items: list, start: int, stop: int, card, times: int) -> int:
        """The steps of ``shuffle`` for positions ``start`` down to ``stop``, ending early
        with the step that settles the ``times``-th ``card`` there; the last position
        settled. A lazy shoe drawing until a card turns up settles with one call what it
        would settle card by card (position 0 has no step: its card is already settled).
        """
        low = max(stop, 1)
        i = start
        while i >= low:
            # Outputs a run at a time, as in ``shuffle_steps``: a run long enough to pay
            # for packing, short enough not to waste much when the card turns up early.
            count = min(i - low + 1, _UNTIL_RUN)
            if count >= _PACKED_FROM and i < _SMALL - 1:
                if self._ahead:
                    self._give_back()
                state = self._state
                outputs = _outputs(state, count)
                if max(outputs) < _ALWAYS_ACCEPTED:
                    for taken, z in enumerate(outputs, 1):
                        j = z % (i + 1)
                        items[i], items[j] = items[j], items[i]
                        if items[i] == card:
                            times -= 1
                            if not times:
                                self._state = (state + taken * _GAMMA) & _MASK
                                return i
                        i -= 1
                    self._state = (state + count * _GAMMA) & _MASK
                    continue
            # One step: a short tail, not worth a run of ``below``'s outputs.
            if self._ahead:
                self._give_back()
            n = i + 1
            j = self._below_one_by_one(n, _LIMITS[n] if n < _SMALL else _SPAN - _SPAN % n)
            items[i], items[j] = items[j], items[i]
            if items[i] == card:
                times -= 1
                if not times:
                    return i
            i -= 1
        return stop

    def getstate(self) -> int:
        return (self._state - len(self._ahead) * _GAMMA) & _MASK


def _rng_with_state(state: int):
    """A pickled compiled generator, loaded: this process's ``Rng`` at its state."""
    return Rng(state)


def compiled_rng() -> type | None:
    """The generator compiled from ``games/_rng.c``; None where it cannot be built."""
    module = RNG.load()
    return None if module is None else module.Rng


Rng = getattr(RNG.chosen(), "Rng", None) or PythonRng
