"""The generator compiled from games/_rng.c gives exactly what ``PythonRng`` gives: every
output, ``below`` value (rejections included), permutation, stopping place and state,
also after copies and pickles. games.rng uses it where it can be built."""

import copy
import os
import pickle
import shutil
import subprocess
import sys

import pytest

from games import rng as rng_module
from games.native import RNG
from games.rng import PythonRng, compiled_rng

Compiled = compiled_rng()
needs_compiled = pytest.mark.skipif(Compiled is None, reason="games/_rng.c could not be built")

_SPAN = 1 << 64
_GAMMA = 0x9E3779B97F4A7C15
# Bounds small and large: rejection is near impossible for the small ones by chance (the
# tests below force it), frequent for those just past a power of two.
BOUNDS = (1, 2, 3, 7, 10, 55, 255, 256, 257, 1000, 1 << 32, (1 << 62) + 1, 1 << 63)
BOUNDS += ((1 << 63) + 1, 3 << 62, _SPAN - 1, _SPAN)


def _unshift(z: int, shift: int) -> int:
    """The x with ``x ^ (x >> shift) == z``."""
    x = z
    for _ in range(64 // shift + 1):
        x = z ^ (x >> shift)
    return x


def seed_giving(output: int, after: int = 0) -> int:
    """A seed whose output number ``after`` (0 for the first) is ``output``: SplitMix64's
    mixing undone step by step."""
    z = _unshift(output, 31)
    z = z * pow(0x94D049BB133111EB, -1, _SPAN) % _SPAN
    z = _unshift(z, 27)
    z = z * pow(0xBF58476D1CE4E5B9, -1, _SPAN) % _SPAN
    state = _unshift(z, 30)
    return (state - (after + 1) * _GAMMA) % _SPAN


def test_seed_giving_gives_the_output():
    for output in (0, 1, _SPAN - 1, _SPAN - 200, 0x123456789ABCDEF):
        for after in (0, 3, 40):
            rng = PythonRng(seed_giving(output, after))
            assert [rng.next_u64() for _ in range(after + 1)][-1] == output


def test_compiled_where_a_compiler_is():
    """A machine with a C compiler builds it (a broken build would fall back silently)."""
    if not (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here")
    assert Compiled is not None
    assert RNG.load().SOURCE in RNG.target().name


def test_rng_is_the_compiled_one_unless_told_otherwise():
    code = "import games.rng as r; print(r.Rng is r.PythonRng)"
    env = dict(os.environ, ARENA_PYTHON_RNG="1")
    forced = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert forced.stdout.strip() == "True"
    told = bool(os.environ.get("ARENA_PYTHON_RNG"))
    assert (rng_module.Rng is PythonRng) == (Compiled is None or told)


@needs_compiled
def test_construction_and_state():
    for seed in (0, 5, -1, -(1 << 70) + 3, (1 << 64) - 1, 1 << 64, (1 << 90) + 17, True):
        assert Compiled(seed).getstate() == PythonRng(seed).getstate()
    assert Compiled("12").getstate() == PythonRng("12").getstate() == 12
    assert Compiled(seed=9).getstate() == 9
    assert [Compiled(0).next_u64() for _ in range(2)] == [0xE220A8397B1DCDAF] * 2


@needs_compiled
def test_below_takes_what_the_python_below_takes():
    for seed in range(200):
        fast, slow = Compiled(seed), PythonRng(seed)
        for n in BOUNDS * 3:
            assert fast.below(n) == slow.below(n)
        assert fast.getstate() == slow.getstate()
    for bad in (0, -3, _SPAN + 1):
        for rng in (Compiled(1), PythonRng(1)):
            with pytest.raises(ValueError):
                rng.below(bad)
    for rng in (Compiled(1), PythonRng(1)):
        with pytest.raises(TypeError):
            rng.below(2.0)


@needs_compiled
def test_below_rejects_the_outputs_the_python_below_rejects():
    """Outputs at the very top of the range, made to come first: ``below`` must skip
    exactly those at or past ``2**64 - 2**64 % n`` and take the next."""
    rejected = 0
    for n in BOUNDS:
        limit = _SPAN - _SPAN % n
        for output in {_SPAN - 1, limit - 1, limit, min(limit + 1, _SPAN - 1), 0}:
            for warm in (0, 2):  # the Python class works outputs out ahead from its 2nd call
                seed = seed_giving(output, warm)
                fast, slow = Compiled(seed), PythonRng(seed)
                for _ in range(warm):
                    assert fast.below(7) == slow.below(7)
                assert fast.below(n) == slow.below(n)
                assert fast.getstate() == slow.getstate()
                rejected += output >= limit
    assert rejected > 10


@needs_compiled
def test_shuffles_and_steps_give_the_same_permutations():
    for seed in range(120):
        for size in (0, 1, 2, 7, 9, 55, 110, 300):
            fast, slow = Compiled(seed), PythonRng(seed)
            a, b = list(range(size)), list(range(size))
            fast.shuffle(a)
            slow.shuffle(b)
            assert a == b
            fast.shuffle_steps(a, size - 1, size // 3)
            slow.shuffle_steps(b, size - 1, size // 3)
            assert a == b
            fast.skip_shuffle_steps(size + 3, seed % 5)
            slow.skip_shuffle_steps(size + 3, seed % 5)
            assert fast.getstate() == slow.getstate()
            assert fast.choice(a or [None]) == slow.choice(b or [None])


@needs_compiled
def test_steps_past_an_output_at_the_top_give_the_same_permutations():
    """A rejected output inside a run of steps (the Python class then leaves its packed
    path): same permutation, same state."""
    for size in (9, 20, 55, 300):
        for step in (0, 5, 8):
            for output in (_SPAN - 1, _SPAN - 3):
                seed = seed_giving(output, step)
                results = []
                for make in (Compiled, PythonRng):
                    rng = make(seed)
                    items = list(range(size))
                    rng.shuffle(items)
                    skipper = make(seed)
                    skipper.skip_shuffle_steps(size - 1, 1)
                    until = [i % 10 for i in range(size)]
                    last = make(seed).shuffle_steps_until(until, size - 1, 0, 3, 2)
                    results.append((items, rng.getstate(), skipper.getstate(), until, last))
                assert results[0] == results[1]


@needs_compiled
def test_shuffle_steps_until_stops_where_the_python_one_stops():
    for seed in range(150):
        for size, stop in ((55, 0), (55, 30), (9, 0), (12, 5), (30, 18), (300, 100), (3, 0)):
            card, times = seed % 10, seed % 4  # times 0: never stops early
            fast, slow = Compiled(seed), PythonRng(seed)
            if seed % 3:
                assert fast.below(9) == slow.below(9)
                assert fast.below(9) == slow.below(9)
            a = [i % 10 for i in range(size)]
            b = list(a)
            found = fast.shuffle_steps_until(a, size - 1, stop, card, times)
            assert (found, a) == (slow.shuffle_steps_until(b, size - 1, stop, card, times), b)
            assert fast.getstate() == slow.getstate()


@needs_compiled
def test_mixed_draws_copies_and_pickles_stay_in_step():
    """A random script of every call, with copies and pickles taken along the way: each
    copy goes on exactly as the original does."""
    for seed in range(60):
        script = PythonRng(seed + 7000)
        pairs = [(Compiled(seed), PythonRng(seed))]
        for _ in range(150):
            step = script.below(9)
            fast, slow = pairs[script.below(len(pairs))]
            if step == 0:
                assert fast.next_u64() == slow.next_u64()
            elif step <= 2:
                n = BOUNDS[script.below(len(BOUNDS))]
                assert fast.below(n) == slow.below(n)
            elif step == 3:
                size = (2, 9, 40, 55)[script.below(4)]
                a, b = list(range(size)), list(range(size))
                fast.shuffle(a)
                slow.shuffle(b)
                assert a == b
            elif step == 4:
                a = [i % 10 for i in range(55)]
                b = list(a)
                stop = (0, 18, 40)[script.below(3)]
                assert fast.shuffle_steps_until(a, 54, stop, 10 - step, 2) == (
                    slow.shuffle_steps_until(b, 54, stop, 10 - step, 2)
                )
                assert a == b
            elif step == 5:
                fast.skip_shuffle_steps(54, 30)
                slow.skip_shuffle_steps(54, 30)
            elif step == 6:
                pairs.append((copy.copy(fast), copy.copy(slow)))
            elif step == 7:
                pairs.append((copy.deepcopy(fast), copy.deepcopy(slow)))
            else:
                pairs.append((pickle.loads(pickle.dumps(fast)), pickle.loads(pickle.dumps(slow))))
            assert fast.getstate() == slow.getstate()
        for fast, slow in pairs:
            # A pickle loads as this process's Rng (PythonRng when told to use it).
            assert fast.__class__ in (Compiled, rng_module.Rng)
            assert slow.__class__ is PythonRng
            assert [fast.below(1000) for _ in range(20)] == [slow.below(1000) for _ in range(20)]


@needs_compiled
def test_steps_on_other_sequences_and_bad_positions():
    import array

    fast, slow = Compiled(3), PythonRng(3)
    a, b = array.array("q", range(40)), array.array("q", range(40))
    fast.shuffle(a)
    slow.shuffle(b)
    assert a == b
    assert fast.shuffle_steps_until(a, 39, 0, 5, 1) == slow.shuffle_steps_until(b, 39, 0, 5, 1)
    assert a == b
    for rng in (Compiled(3), PythonRng(3)):
        with pytest.raises(IndexError):
            rng.shuffle_steps([1, 2, 3], 3, 1)
        with pytest.raises(TypeError):
            rng.shuffle((1, 2, 3))
