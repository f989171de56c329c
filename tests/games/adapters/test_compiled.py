"""The compiled encoder and action lookup give exactly what the Python codec gives.

``games.adapters.compiled`` walks observations in C; ``codec.ObservationEncoder.encode`` is
the definition (it is what a bot ships). Every game's observations along random matches,
and hand-made observations full of what the layout lacks, must encode to the same bits,
without falling back to Python."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from games import registry
from games.adapters import compiled
from games.adapters.codec import ActionCodec, ObservationEncoder
from games.adapters.compiled import CompiledActions, CompiledEncoder, Layout, as_floats
from games.adapters.spec import spec
from games.rng import Rng, derive_seed
from tests.games.adapters.cases import SLOW, configurations


def test_the_c_module_is_built_here():
    # The Makefile installs a C compiler: the adapters must not run on the Python path.
    assert compiled.available()
    assert compiled.module().SOURCE in compiled._target().name


def _walk_in_c(encoder: CompiledEncoder, observation) -> np.ndarray:
    layout = encoder._layout
    out = np.full(encoder.size, np.nan)  # every entry must be written
    handled = compiled.module().encode(
        layout.root, layout.numbers, layout.features, layout.extend, observation, out
    )
    assert handled, "the C walk gave up on an observation of the engine"
    return out


def _same_bits(a, b) -> bool:
    return np.array_equal(np.asarray(a, np.float64).view(np.uint64), b.view(np.uint64))


def _observations(slug: str, players: int, options: dict, matches: int):
    game = registry.get(slug)
    for n in range(matches):
        seed = derive_seed(players, slug, n) % 10_000
        state = game.new_match(players=players, options=options, seed=seed)
        rng = Rng(derive_seed(seed, "compiled"))
        while not state.is_over():
            moves = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                yield seat, state.observation(seat), legal
                moves[seat] = legal[rng.below(len(legal))]
            state.apply(moves)
        yield None, state.observation(None), []


@pytest.mark.parametrize(
    ("slug", "players", "options"), configurations(variants=False, slow_all_counts=False)
)
def test_every_game_encodes_and_looks_up_as_the_codec(slug, players, options):
    s = spec(slug, players, options)
    encoder = CompiledEncoder(s.encoder)
    lookup = CompiledActions(s.actions)
    every = 7 if slug in SLOW else 1
    for number, (seat, observation, legal) in enumerate(
        _observations(slug, players, options, 1 if slug in SLOW else 3)
    ):
        if number % every:
            continue
        assert _same_bits(s.encoder.encode(observation), _walk_in_c(encoder, observation))
        assert _same_bits(s.encoder.encode(observation), encoder.encode(observation, seat))
        if legal:
            assert lookup.indices(legal) == s.actions.indices(legal)


def _small_encoder() -> ObservationEncoder:
    positional = {".chips": 2, ".hands[]": 3}
    slots = [
        ".chips[0]#",
        ".chips[1]#",
        ".pot#",
        ".open#",
        ".phase=s:bid",
        ".phase=s:play",
        ".phase=none",
        ".pile[*]#",
        *(f".pile[*]=i:{v}" for v in range(21)),
        ".events[*].seat#",
        ".events[*].card=s:AS",
        ".hands[*][0]#",
    ]
    return ObservationEncoder(positional, slots)


UNUSUAL = [
    {},
    {"chips": [], "pile": [], "events": [{}], "extra": {"deep": [[], {}]}},
    {"chips": [3, -4], "pot": 0.1, "open": True, "phase": "bid", "pile": [0, 20, 21, -1, 7, 7]},
    {"chips": [1, 2, 3], "pot": -0.0, "open": False, "phase": None},  # a third chip seat
    {"phase": "deal", "colour": "red", "events": [{"seat": 1, "card": "KH"}, {"seat": 0}]},
    {"pile": [True, False, 1.5, 2**60, -(2**60), 2**53 + 1], "pot": 10**20},
    {"hands": [[1, 2], [3, 4, 5, 6]], "events": [{"card": None}, {"card": ["AS", 2]}]},
    {"new": 5, "other": 7, "again": "x", "more": [1, 2], "pot": -3},  # overflow collisions
    {"pot": 0.1, "extra": 0.2, "tail": 0.3, "pile": [0.5, -0.5]},
    {1: 2, "chips": [0, 0]},  # a key that is not a string
]


@pytest.mark.parametrize("observation", UNUSUAL, ids=range(len(UNUSUAL)))
def test_what_the_layout_lacks_goes_where_python_puts_it(observation):
    plain = _small_encoder()
    encoder = CompiledEncoder(plain)
    expected = plain.encode(observation)
    assert _same_bits(expected, _walk_in_c(encoder, observation))
    assert _same_bits(expected, _walk_in_c(encoder, observation))  # again, tree grown
    assert _same_bits(expected, encoder.encode(copy.deepcopy(observation)))


def test_every_unusual_observation_in_one_encoder_in_turn():
    plain = _small_encoder()
    encoder = CompiledEncoder(plain)
    for observation in UNUSUAL * 2:
        assert _same_bits(plain.encode(observation), encoder.encode(observation))


def _moved(event: dict) -> dict:
    return {"card": event["card"], "seat": event["seat"]}  # the same items, keys swapped


_SHARED = {"seat": 1}
# Sequences of one view's observations whose top-level lists grow, shrink or change in
# ways a remembered prefix must notice: values equal in Python but not in JSON (1, 1.0,
# True), keys in another order, values that are not whole numbers or too big to add in
# any order, features outside the layout. (An item met again as the very same object is
# taken as unchanged: what engines hand out is read-only, docs/engines.md.)
HISTORIES = [
    [
        {"events": [{"seat": 1}]},
        {"events": [{"seat": 1}, {"seat": 0, "card": "AS"}]},
        {"events": [{"seat": 1}, {"seat": 0, "card": "AS"}, {"card": "AS"}], "pot": 2},
        {"events": [{"seat": 1}, {"seat": 0, "card": "AS"}, {"card": "AS"}, {}]},
    ],
    [
        {"events": [{"seat": 1}, {"seat": 2}]},
        {"events": [{"seat": True}, {"seat": 2}, {"seat": 3}]},
        {"events": [{"seat": 1.0}, {"seat": 2}, {"seat": 3}, {"seat": 4}]},
        {"events": [{"seat": 1}, {"seat": 2}, {"seat": 3}, {"seat": 4}]},
    ],
    [
        {"pile": [1, 2]},  # the pile's small integers are tokens too; True and 1.0 are not
        {"pile": [True, 2, 3]},
        {"pile": [1.0, 2, 3, 4]},
        {"pile": [1, 2, 3, 4, 5]},
        {"pile": [1, 2, 3, 4, 5, 6]},
    ],
    [
        {"events": [{"seat": 1, "card": "AS"}]},
        {"events": [_moved({"seat": 1, "card": "AS"}), {"seat": 2}]},
    ],
    [
        {"events": [_SHARED]},  # the same event object in every observation, as engines share
        {"events": [_SHARED, {"seat": 2}]},
        {"events": [{"seat": 1}, _SHARED, {"seat": 2}]},
    ],
    [
        {"events": [{"seat": 0.5}]},
        {"events": [{"seat": 0.5}, {"seat": 0.25}]},
        {"events": [{"seat": 0.5}, {"seat": 0.25}, {"seat": 1}]},
        {"events": [{"seat": 2**52}, {"seat": 2**52}]},
        {"events": [{"seat": 2**52}, {"seat": 2**52}, {"seat": 1}]},
        {"events": [{"seat": 2**52}, {"seat": 2**52}, {"seat": 1}, {"seat": -(2**53)}]},
    ],
    [
        {"events": [{"new": 3}]},
        {"events": [{"new": 3}, {"seat": 1, "other": "x"}], "colour": "red"},
        {"events": [{"new": 3}, {"seat": 1, "other": "x"}, {"seat": 2}]},
    ],
    [
        {"events": [{"seat": 1}, {"seat": 2}, {"seat": 3}], "pile": [1, 2]},
        {"events": [{"seat": 1}], "pile": [1, 2, 3, 25]},
        {"events": [{"seat": 5}, {"card": ["AS", 2]}], "pile": []},
        {"events": [{"seat": 5}, {"card": ["AS", 2]}, {"card": ["AS", 3]}], "pile": [7]},
    ],
    [
        # A key that names the slot of the pile's numbers: a third plus 1, 2 and -3 in
        # turn rounds otherwise than a third plus 3, then -3 (a slot of both keys).
        {"pile[*]": 1 / 3, "pile": [1, 2]},
        {"pile[*]": 1 / 3, "pile": [1, 2, -3]},
    ],
    [
        {"events": [{"seat": 1}], "a.b": 1},  # a key that is no identifier: walked plainly
        {"events": [{"seat": 1}, {"seat": 2}], "a.b": 2},
        {"events": [{"seat": 1}, {"seat": 2}, {"seat": 3}]},
        {"events": [{"seat": 1}, {"seat": 2}, {"seat": 3}], 7: "x"},
    ],
]


# Top-level values other than bags, remembered whole: equal in Python but not in JSON,
# keys reordered, a list becoming a value and back, fractions, what the layout lacks.
HISTORIES += [
    [
        {"pot": 1, "chips": [1, 2], "phase": "bid", "open": True},
        {"pot": 1.0, "chips": [1, 2], "phase": "bid", "open": 1},
        {"pot": True, "chips": [1.0, 2], "phase": "play", "open": True},
        {"pot": 1, "chips": [1, 2], "phase": "bid", "open": True},
    ],
    [
        {"extra": {"a": 1, "b": [1, 2]}, "pot": 2},
        {"extra": {"b": [1, 2], "a": 1}, "pot": 2},
        {"extra": {"a": 1, "b": [1, 2, 3]}, "pot": 2},
        {"extra": {"a": 1, "b": [1, 2, 3]}, "pot": 2},
    ],
    [
        {"pile": [1, 2], "pot": 3},
        {"pile": 5, "pot": 3},
        {"pile": None, "pot": 3},
        {"pile": [1, 2], "pot": 3},
        {"pile": [1, 2, 3], "pot": 3},
    ],
    [
        {"pot": 0.5, "chips": [0.25, 1]},
        {"pot": 0.5, "chips": [0.25, 1]},
        {"pot": 2**52, "chips": [2**53, 1]},
        {"pot": 2**52, "chips": [2**53, 1]},
        {"pot": -(2**60), "chips": [1, 1]},
    ],
    [
        {"new": 3, "phase": "deal"},
        {"new": 3, "phase": "deal"},
        {"new": 4, "phase": "deal", "pot": 1},
        {"phase": "deal", "new": 4},
    ],
]


@pytest.mark.parametrize("history", HISTORIES, ids=range(len(HISTORIES)))
def test_a_view_remembers_its_lists_only_while_they_grow_unchanged(history):
    plain = _small_encoder()
    encoder = CompiledEncoder(plain)
    for observation in history * 2:
        expected = plain.encode(observation)
        assert _same_bits(expected, encoder.encode(observation, "seat"))
        single = np.full(encoder.size, np.nan, np.float32)
        assert encoder.encode(observation, "seat", single) is single
        rounded = np.asarray(expected, np.float64).astype(np.float32)
        assert np.array_equal(rounded.view(np.uint32), single.view(np.uint32))


def test_views_remember_apart():
    plain = _small_encoder()
    encoder = CompiledEncoder(plain)
    mine = [{"seat": 1}, {"seat": 2}]
    theirs = [{"seat": 1}, {"card": "AS"}]
    for n in range(1, 3):
        for view, events in ((0, mine), (1, theirs), (None, mine[:1])):
            observation = {"events": events[:n]}
            assert _same_bits(plain.encode(observation), encoder.encode(observation, view))


def test_a_value_json_never_holds_goes_the_python_way():
    plain = _small_encoder()
    encoder = CompiledEncoder(plain)
    layout = encoder._layout
    for odd in ({"pot": (1, 2)}, {"pot": 10**400}, {"pile": [b"x"]}):
        out = np.zeros(encoder.size)
        assert not compiled.module().encode(
            layout.root, layout.numbers, layout.features, layout.extend, odd, out
        )
    assert _same_bits(plain.encode({"pot": (1, 2)}), encoder.encode({"pot": (1, 2)}))


def test_a_tree_that_grows_too_big_starts_again(monkeypatch):
    plain = _small_encoder()
    encoder = CompiledEncoder(plain)
    monkeypatch.setattr(compiled, "MAX_OUTSIDE", 3)
    for n in range(10):
        observation = {f"key{n}": n, f"other{n}": "x", "pot": n}
        assert _same_bits(plain.encode(observation), encoder.encode(observation))
    assert len(encoder._layout.features) <= 3 + 2


def test_the_layout_tree_names_every_slot_once():
    plain = spec("paks", 2).encoder
    layout = Layout(plain)
    found: list[int] = []

    def collect(node):
        children, items, bag, number, ints, strings, none = node[:7]
        found.extend(x for x in (number, none) if x >= 0)
        found.extend(x for x in (ints or []) if x >= 0)
        found.extend((strings or {}).values())
        for child in [*(children or {}).values(), *(items or []), *([bag] if bag else [])]:
            collect(child)

    collect(layout.root)
    assert sorted(found) == list(range(len(plain.slots)))
    assert sorted(layout.numbers) == [i for i, k in enumerate(plain.slots) if k.endswith("#")]


def test_action_lookup_keeps_json_types_apart():
    catalogue = ["stay", 1, [1, "x"], [True], ["1"], [1.0], {"bid": 2}, True, [[1]]]
    catalogue += [["bid", 2], {"to": 1, "card": "AS"}, {"bid": True}]
    codec = ActionCodec(catalogue)
    lookup = CompiledActions(codec)
    legal = [[True], {"bid": 2}, [1, "x"], "stay", True, 1, ["1"], [1.0], [[1]], ["bid", 2]]
    legal += [{"card": "AS", "to": 1}, {"bid": True}]
    assert lookup.indices(legal) == codec.indices(legal) == list(range(12))
    assert lookup.indices([[1, "x"], 1]) == [1, 2]
    assert lookup.indices([{"card": "AS", "to": 1}, ["bid", 2], {"bid": 2}]) == [6, 9, 10]
    with pytest.raises(KeyError):
        lookup.indices([["bid", 3]])  # a pair whose first item is known, its second not
    with pytest.raises(KeyError):
        lookup.indices([["bid", True]])
    with pytest.raises(KeyError):
        lookup.indices([[2, "x"]])
    with pytest.raises(KeyError):
        lookup.indices([{"bid": 3}])
    with pytest.raises(KeyError):
        lookup.indices([{"to": 1}])
    with pytest.raises(KeyError):
        lookup.indices([[1]])  # [1] is not in the catalogue; [True] is
    with pytest.raises(KeyError):
        lookup.indices(["hit"])
    assert lookup.indices([]) == []


def test_long_legal_lists_met_again_give_the_same_fresh_answer():
    codec = ActionCodec([[a, b] for a in range(6) for b in range(6)])
    lookup = CompiledActions(codec)
    kept = [[a, b] for a in range(6) for b in range(6) if a != b][::-1]  # 30, unsorted
    legal = list(kept)  # items held elsewhere too, as an engine's kept lists are
    first = lookup.indices(legal)
    assert first == codec.indices(legal)
    again = lookup.indices(legal)  # the very same items: remembered
    assert again == first and again is not first
    again.append(99)  # the caller's own list
    assert lookup.indices(legal) == first
    # The same first item with other items, or an equal copy in place of an item.
    assert lookup.indices(legal[:20]) == codec.indices(legal[:20])
    copied = [*legal[:5], list(legal[5]), *legal[6:]]
    assert lookup.indices(copied) == first
    with pytest.raises(KeyError):
        lookup.indices([*legal[:19], [9, 9]])  # outside the catalogue, whatever came first


def test_as_floats_matches_numpy_and_replaces_only_what_changed():
    rng = np.random.default_rng(1)
    vector = rng.normal(size=50) * 1e3
    vector[:5] = [0.0, -0.0, 1e-50, 3.0, np.inf]
    values = [0.0] * 50
    as_floats(values, vector)
    assert values == vector.astype(np.float32).tolist()
    kept = values[10]
    vector[0] = -0.0  # only the sign of a zero changes
    as_floats(values, vector)
    assert np.signbit(values[0]) and values[10] is kept
    with pytest.raises(ValueError):
        as_floats([0.0] * 3, vector)
    # With a mirror of the list's floats: the same list, and the mirror kept equal to it.
    mirror = np.asarray(values, np.float32)
    vector[7] = 12.5
    vector[1] = 0.0
    as_floats(values, vector, mirror)
    assert values == vector.astype(np.float32).tolist()
    assert mirror.tolist() == values and not np.signbit(values[1])
    with pytest.raises(ValueError):
        as_floats(values, vector, np.zeros(3, np.float32))


def test_copies_and_pickles_start_afresh_and_agree():
    s = spec("pairs", 2)
    encoder = CompiledEncoder(s.encoder)
    observation = s.new_state(5).observation(0)
    first = encoder.encode(observation, 0).copy()
    for other in (copy.deepcopy(encoder), pickle.loads(pickle.dumps(encoder))):
        assert _same_bits(first, other.encode(observation, 0))
    lookup = pickle.loads(pickle.dumps(CompiledActions(s.actions)))
    legal = s.actions.actions[::-1]
    assert lookup.indices(legal) == s.actions.indices(legal) == [0, 1]


def test_move_mask_in_c_clears_then_sets():
    mask = np.zeros(8, np.int8)
    move_mask = compiled.module().move_mask
    move_mask(mask, [], [1, 3, 5])
    move_mask(mask, [1, 3, 5], [3, 7])
    assert mask.tolist() == [0, 0, 0, 1, 0, 0, 0, 1]
    with pytest.raises(IndexError):
        move_mask(mask, [], [8])
    with pytest.raises(TypeError):
        move_mask(np.zeros(8), [], [1])
