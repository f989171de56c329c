"""The check of simultaneous moves compiled from games/_moves.c accepts exactly what the
protocol's Python loop accepts, building the same moves by seat and by name; everything
else it hands back to the loop (None), which refuses as it always did. games.protocol
uses it where it can be built, and the loop where it cannot."""

import os
import shutil
import subprocess
import sys

import pytest

from games import protocol, registry
from games.native import MOVES
from games.protocol import IllegalAction, is_legal
from games.rng import Rng

Compiled = MOVES.load()
needs_compiled = pytest.mark.skipif(Compiled is None, reason="games/_moves.c could not be built")


def reference(actions, seats, table, legal_of):
    """What the loop accepts, as ``checked`` answers it: (by seat, by name) or None."""
    ordered, record = {}, {}
    for seat, name in seats:
        if type(actions) is not dict or seat not in actions:
            return None
        action = actions[seat]
        try:
            legal = table[seat]
        except (TypeError, LookupError):
            legal = legal_of(seat)
        if not is_legal(action, legal):
            return None
        ordered[seat] = action
        record[name] = action
    return ordered, record


def test_compiled_where_a_compiler_is():
    """A machine with a C compiler builds it (a broken build would fall back silently)."""
    if not (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here")
    assert Compiled is not None
    assert Compiled.SOURCE in MOVES.target().name
    told = bool(os.environ.get("ARENA_PYTHON_MOVES"))
    assert (protocol._checked is None) == told


def _checked_in_child(env: dict, code: str = "") -> str:
    run = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport games.protocol as p; print(p._checked is None)"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_the_python_loop_when_told():
    assert _checked_in_child({"ARENA_PYTHON_MOVES": "1"}) == "True"


def test_the_python_loop_when_the_build_fails(tmp_path):
    """A copy of games/ with no builds, and no working compiler: the loop serves (and the
    Python generator and fire), and matches play."""
    shutil.copytree(
        MOVES.source.parent,
        tmp_path / "games",
        ignore=shutil.ignore_patterns("*.so", "__pycache__"),
    )
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from games import registry\n"
        f"assert registry.__file__.startswith({str(tmp_path)!r})\n"
        "state = registry.get('pairs-venture').new_match(players=4, seed=1)\n"
        "while not state.is_over():\n"
        "    state.apply({s: state.legal_actions(s)[0] for s in state.to_act()})\n"
        "import games.pairs.venture as venture\n"
        "assert venture._compiled_fire is None\n"
    )
    assert _checked_in_child({"CC": "false", "PYTHONPATH": ""}, code) == "True"
    assert not list((tmp_path / "games").glob("_moves-*"))


SEATS = ((0, "0"), (1, "1"), (2, "2"))
LEGALS = [
    ["hit", "fold"],
    [1, 2, 3],
    [True, 2],
    [True, 1],
    [False, 0],
    [1.0, 2.0],
    [None, 0],
    [0, False, ""],
    [[1, 2], [1, 3], [], [2]],
    [[1, True], [1, 1]],
    [[1, True]],
    [["7H", 2], ["7H", 3]],
    [[[1], 2], [[1], 3]],
    [[(1,), 2]],
    [{"bid": 3}, {"bid": True}],
    (1, 2, "hit"),
    [],
]
ACTIONS = [
    "hit",
    "stand",
    1,
    2,
    0,
    True,
    False,
    1.0,
    None,
    [1, 2],
    [1, 1],
    [1, True],
    [],
    ["7H", 2],
    [[1], 2],
    [(1,), 2],
    [[1.0], 2],
    {"bid": 3},
    {"bid": 1},
    (1, 2),
]


@needs_compiled
def test_each_move_is_judged_as_the_loop_judges_it():
    for legal in LEGALS:
        for action in ACTIONS:
            for table in (None, [legal] * 3, {seat: legal for seat in range(3)}):
                actions = {0: legal[0] if legal else "hit", 1: action, 2: "hit"}
                lists = {0: legal, 1: legal, 2: ["hit"]}
                if table is not None:
                    table = [lists[seat] for seat in range(3)] if type(table) is list else lists
                got = Compiled.checked(actions, SEATS, table, lists.__getitem__, is_legal)
                want = reference(actions, SEATS, table, lists.__getitem__)
                # A list of legal moves is judged here; another sequence goes to the loop.
                assert got == want or (got is None and type(legal) is not list)
                if got is not None:
                    assert [list(part) for part in got] == [list(part) for part in want]


class Odd(dict):
    pass


@needs_compiled
def test_anything_else_goes_back_to_the_loop():
    lists = {0: [1, 2], 1: [1, 2], 2: [1, 2]}
    legal_of = lists.__getitem__
    good = {0: 1, 1: 2, 2: 1}
    assert Compiled.checked(good, SEATS, None, legal_of, is_legal) == (
        {0: 1, 1: 2, 2: 1},
        {"0": 1, "1": 2, "2": 1},
    )
    # A seat missing, a mapping that is no plain dict, seats not in pairs.
    assert Compiled.checked({0: 1, 1: 2, 3: 1}, SEATS, None, legal_of, is_legal) is None
    assert Compiled.checked(Odd(good), SEATS, None, legal_of, is_legal) is None
    assert Compiled.checked(good, ((0, "0", 1),), None, legal_of, is_legal) is None
    assert Compiled.checked(good, [(0, "0")], None, legal_of, is_legal) is None

    # Errors on the way are left for the loop to raise: a seat the table and ``legal_of``
    # lack, a comparison that fails, an ``is_legal`` that fails.
    def lacking(seat):
        raise KeyError(seat)

    assert Compiled.checked(good, SEATS, [[1, 2]], lacking, is_legal) is None

    class Unequal(int):
        def __eq__(self, other):
            raise RuntimeError("no comparing")

        __hash__ = int.__hash__

    assert Compiled.checked(good, SEATS, [[Unequal(1)]] * 3, legal_of, is_legal) is None

    def failing(action, legal):
        raise RuntimeError("no judging")

    nested = {0: [[1]], 1: [[1]], 2: [[1]]}
    assert Compiled.checked(nested, SEATS, [[[[1]]]] * 3, legal_of, failing) is None
    # A table's seats past its end, or missing from it, are asked of ``legal_of``.
    assert Compiled.checked(good, SEATS, [[1]], legal_of, is_legal) is not None
    assert Compiled.checked(good, SEATS, {0: [1]}, legal_of, is_legal) is not None
    # No seats: nothing to check.
    assert Compiled.checked({}, (), None, legal_of, is_legal) == ({}, {})


def _play(slug: str, players: int, seed: int, monkeypatch, compiled: bool) -> list:
    """A random match with a refused move tried now and then; everything it shows."""
    monkeypatch.setattr(protocol, "_checked", Compiled.checked if compiled else None)
    state = registry.get(slug).new_match(players=players, seed=seed)
    rng = Rng(seed)
    seen = []
    while not state.is_over():
        moves = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            moves[seat] = legal[rng.below(len(legal))]
        if len(moves) > 1 and rng.below(4) == 0:
            bad = dict(moves)
            seat = next(iter(bad))
            bad[seat] = [True, "nothing legal"][rng.below(2)]
            if rng.below(3) == 0:
                del bad[seat]
            with pytest.raises(IllegalAction) as refused:
                state.apply(bad)
            seen.append(str(refused.value))
        state.apply(moves)
        seen.append(state.observation(None))
    seen.append(state.result())
    seen.append(state.to_json())
    return seen


@needs_compiled
@pytest.mark.parametrize(
    "slug, players",
    [
        ("pairs-venture", 8),
        ("punk", 6),
        ("punk", 2),
        ("paks", 4),
        ("pairs-kitty", 5),
        ("pairs-goblin-poker", 4),
        ("pairs-troll-guts", 5),
    ],
)
def test_matches_go_the_same_way_with_either_check(slug, players, monkeypatch):
    for seed in (1, 2):
        compiled = _play(slug, players, seed, monkeypatch, compiled=True)
        python = _play(slug, players, seed, monkeypatch, compiled=False)
        assert compiled == python
