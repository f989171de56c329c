"""The PRNG's stream is part of every recorded match: it must never drift.

Every test of the stream runs on both generators, the pure-Python one and the one
compiled from games/_rng.c (where it can be built), and ``test_compiled_rng.py`` checks
they agree with each other value for value."""

import pytest

from games.rng import PythonRng, compiled_rng, derive_seed, derive_seed_after, seed_text

GENERATORS = [PythonRng] + [rng for rng in (compiled_rng(),) if rng is not None]


@pytest.fixture(params=GENERATORS, ids=lambda rng: rng.__module__ + "." + rng.__qualname__)
def Rng(request):  # noqa: N802 (named as the class it stands for)
    return request.param


def reference_shuffle(rng, items: list) -> None:
    """Fisher-Yates spelled out on top of ``below``, the definition ``shuffle`` inlines."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


def test_shuffle_is_fisher_yates_over_below(Rng):
    for seed in range(300):
        fast, slow = Rng(seed), Rng(seed)
        a, b = list(range(seed % 60)), list(range(seed % 60))
        fast.shuffle(a)
        reference_shuffle(slow, b)
        assert a == b
        assert fast.next_u64() == slow.next_u64()  # and both streams stay in step


def test_splitmix64_reference_values(Rng):
    # SplitMix64 from seed 0 (Vigna's reference implementation).
    rng = Rng(0)
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_derived_seeds_differ_by_path_and_are_stable():
    assert derive_seed(7, "hand", 0) != derive_seed(7, "hand", 1)
    assert derive_seed(7, "hand", 0) == derive_seed(7, "hand", 0)


def test_seed_text_finished_is_derive_seed():
    for seed, path, last in ((7, ("hand",), 0), (2**63 + 5, ("hand",), 41), (3, (), "shoe")):
        assert derive_seed_after(seed_text(seed, *path), last) == derive_seed(seed, *path, last)


def test_packed_outputs_are_the_stream(Rng):
    """``_outputs`` computes many SplitMix64 outputs at once: the same as one at a time."""
    from games.rng import _outputs

    for seed in (0, 1, 99, (1 << 64) - 1, 0x9E3779B97F4A7C15):
        for count in (1, 8, 55, 200):
            one_by_one = Rng(seed)
            assert list(_outputs(Rng(seed).getstate(), count)) == [
                one_by_one.next_u64() for _ in range(count)
            ]


def test_shuffle_steps_match_below_whatever_the_path(Rng, monkeypatch):
    """Long and short runs of steps, the packed path and its fallback (forced here by
    pretending most outputs could be rejected) all shuffle as ``below`` does."""
    import games.rng

    for fallback in (False, True):
        if fallback:
            monkeypatch.setattr(games.rng, "_ALWAYS_ACCEPTED", 1 << 63)
        for seed in range(60):
            for size in (2, 7, 9, 55, 110, 300):
                fast, slow = Rng(seed), Rng(seed)
                a, b = list(range(size)), list(range(size))
                fast.shuffle(a)
                reference_shuffle(slow, b)
                assert a == b
                # Then a partial run: positions size-1 down to size // 3, as a lazy shoe does.
                fast.shuffle_steps(a, size - 1, size // 3)
                for i in range(size - 1, max(size // 3, 1) - 1, -1):
                    j = slow.below(i + 1)
                    b[i], b[j] = b[j], b[i]
                assert a == b
                assert fast.next_u64() == slow.next_u64()


def test_shuffle_steps_until_match_below_whatever_the_path(Rng, monkeypatch):
    """Steps that stop once the ``times``-th ``card`` is settled: packed runs, their
    fallback (forced as above) and single steps all settle what ``below`` settles, stop
    at the same place and leave the stream where step-by-step drawing leaves it."""
    import games.rng

    for fallback in (False, True):
        if fallback:
            monkeypatch.setattr(games.rng, "_ALWAYS_ACCEPTED", 1 << 63)
        for seed in range(40):
            for size, stop in ((55, 0), (55, 30), (9, 0), (12, 5), (300, 100)):
                card, times = seed % 10, 1 + seed % 3
                fast, slow = Rng(seed), Rng(seed)
                a = [i % 10 for i in range(size)]
                b = list(a)
                last = fast.shuffle_steps_until(a, size - 1, stop, card, times)
                i = size - 1
                while True:
                    if i:
                        j = slow.below(i + 1)
                        b[i], b[j] = b[j], b[i]
                    if b[i] == card:
                        times -= 1
                        if not times:
                            break
                    if i == stop:
                        break
                    i -= 1
                assert (last, a) == (i, b)
                assert fast.next_u64() == slow.next_u64()


def test_below_worked_out_ahead_keeps_the_stream(Rng):
    """``below`` takes its outputs from runs worked out ahead: mixed with every other
    draw, in any order, it still gives what one output at a time gives, and the state
    is where drawing one at a time leaves it."""

    def reference_below(rng, n: int) -> int:
        limit = (1 << 64) - (1 << 64) % n
        while True:
            z = rng.next_u64()
            if z < limit:
                return z % n

    for seed in range(40):
        script = Rng(seed + 1000)
        fast, slow = Rng(seed), Rng(seed)
        for _ in range(300):
            step = script.below(5)
            if step <= 1:
                n = (1, 2, 7, 55, 255, 256, 1000, 1 << 62)[script.below(8)]
                assert fast.below(n) == reference_below(slow, n)
            elif step == 2:
                assert fast.next_u64() == slow.next_u64()
            elif step == 3:
                size = (2, 9, 40)[script.below(3)]
                a, b = list(range(size)), list(range(size))
                fast.shuffle(a)
                for i in range(size - 1, 0, -1):
                    j = reference_below(slow, i + 1)
                    b[i], b[j] = b[j], b[i]
                assert a == b
            else:
                # A packed run, or single steps (fewer than a run's worth).
                stop = (18, 25)[script.below(2)]
                a = [i % 10 for i in range(30)]
                b = list(a)
                last = fast.shuffle_steps_until(a, 29, stop, 3, 1)
                i = 29
                while True:
                    j = reference_below(slow, i + 1)
                    b[i], b[j] = b[j], b[i]
                    if b[i] == 3 or i == stop:
                        break
                    i -= 1
                assert (last, a) == (i, b)
            assert fast.getstate() == slow.getstate()


def test_copies_draw_the_same_stream_on_their_own(Rng):
    import copy

    for make_copy in (copy.copy, copy.deepcopy):
        rng = Rng(5)
        rng.below(10)
        rng.below(10)  # outputs are now worked out ahead
        dup = make_copy(rng)
        assert [dup.below(1000) for _ in range(50)] == [rng.below(1000) for _ in range(50)]
        assert dup.getstate() == rng.getstate()


def test_skipped_shuffle_steps_leave_the_stream_where_the_steps_do(Rng, monkeypatch):
    """``skip_shuffle_steps`` draws exactly what ``shuffle_steps`` draws (its packed path
    and the fallback for an output that could be rejected, forced as above), also after
    ``below`` has worked outputs out ahead."""
    import games.rng

    for fallback in (False, True):
        if fallback:
            monkeypatch.setattr(games.rng, "_ALWAYS_ACCEPTED", 1 << 63)
        for seed in range(40):
            for start, stop in ((54, 0), (54, 30), (9, 3), (5, 0), (300, 10)):
                skipped, stepped = Rng(seed), Rng(seed)
                if seed % 2:
                    assert skipped.below(7) == stepped.below(7)
                    assert skipped.below(9) == stepped.below(9)
                skipped.skip_shuffle_steps(start, stop)
                stepped.shuffle_steps(list(range(start + 1)), start, stop)
                assert skipped.next_u64() == stepped.next_u64()
                assert skipped.below(55) == stepped.below(55)


def test_below_past_an_output_that_could_be_rejected(Rng, monkeypatch):
    """``below`` rejects an output worked out ahead exactly where one at a time would
    (outputs near the top forced here by pretending most outputs could be rejected)."""
    import games.rng

    monkeypatch.setattr(games.rng, "_ALWAYS_ACCEPTED", 1 << 63)
    for seed in range(40):
        fast, slow = Rng(seed), Rng(seed)
        for n in (3, 55, 7, 255, 2, 9, 1, 54, 10, 6) * 4:
            limit = (1 << 64) - (1 << 64) % n
            while True:
                z = slow.next_u64()
                if z < limit:
                    break
            assert fast.below(n) == z % n
        assert fast.getstate() == slow.getstate()
