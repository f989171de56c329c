"""The PRNG's stream is part of every recorded match: it must never drift."""

from games.rng import Rng, derive_seed


def reference_shuffle(rng: Rng, items: list) -> None:
    """Fisher-Yates spelled out on top of ``below``, the definition ``shuffle`` inlines."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


def test_shuffle_is_fisher_yates_over_below():
    for seed in range(300):
        fast, slow = Rng(seed), Rng(seed)
        a, b = list(range(seed % 60)), list(range(seed % 60))
        fast.shuffle(a)
        reference_shuffle(slow, b)
        assert a == b
        assert fast.next_u64() == slow.next_u64()  # and both streams stay in step


def test_splitmix64_reference_values():
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
