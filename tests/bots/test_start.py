"""A match's seats start together: every program is released and sent "start" before the
runner waits for any "ready", and each seat keeps its own start-up allowance and faults."""

from __future__ import annotations

import pytest

from bots.players import BuiltinPlayer, ProgramPlayer
from bots.runner import play_match
from bots.sandbox import Limits
from tests.support import toygame
from tests.support.raw_bot import raw_bot

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")


class Watched(ProgramPlayer):
    """A real sandboxed seat that notes, when the runner waits for its "ready", which seats'
    programs had been released by then (released: the sandbox no longer holds it back)."""

    def __init__(self, *args, table: list, seen: list, **kwargs):
        super().__init__(*args, **kwargs)
        self.table, self.seen = table, seen

    def finish_start(self):
        released = [p.box is not None and not p.box.held for p in self.table]
        self.seen.append((self.label, released))
        return super().finish_start()


def play(players, rounds=2):
    return play_match(game_slug="toy", players=players, options={"rounds": rounds}, seed=7)


def test_every_seat_is_released_before_the_runner_waits_for_a_ready(make_bot):
    table: list = []
    seen: list = []
    for name in ("a", "b", "c"):
        bot = raw_bot(make_bot, name=name)
        table.append(Watched(bot, Limits(), label=name, table=table, seen=seen))
    outcome = play(table)
    assert seen == [("a", [True] * 3), ("b", [True] * 3), ("c", [True] * 3)]
    assert all(seat["fault"] is None for seat in outcome.result["seats"])
    assert len(outcome.moves) == 2 * 3


@pytest.mark.parametrize("bad", [0, 1])
def test_a_seat_that_exits_before_ready_is_its_own_fault(make_bot, bad):
    """Whichever seat fails to start, the fault is that seat's, before the first move; the
    other seat started beside it and plays the match out."""
    sources = [raw_bot(make_bot, name="good")]
    failing = make_bot("import sys\nprint('bye', file=sys.stderr)\nsys.exit(4)\n", name="bad")
    sources.insert(bad, failing)
    players = [ProgramPlayer(folder, Limits(), label=folder.name) for folder in sources]
    players.append(BuiltinPlayer(toygame.GAME, "random", 3))
    outcome = play(players)
    seats = outcome.result["seats"]
    fault = seats[bad]["fault"]
    assert fault["kind"] == "crashed" and fault["move"] is None, fault
    assert "exit code 4" in fault["reason"] and "before it was ready" in fault["reason"]
    assert [s["fault"] is None for s in seats] == [i != bad for i in range(3)]
    assert seats[bad]["rank"] == 3
    good = 1 - bad
    assert not any(good in m["defaulted"] for m in outcome.moves)
    assert all(m["defaulted"] == [bad] for m in outcome.moves if str(bad) in m["actions"])


def test_a_seat_that_never_answers_start_times_out_alone(make_bot):
    """Seat 0 never says "ready": it times out after its own allowance. Seat 1, ready long
    before, is not blamed for the wait, although the runner looked at it only after its own
    (shorter) allowance had run out: its "ready" was waiting."""
    silent = raw_bot(make_bot, on_start="import time; time.sleep(30)", name="silent")
    quick = raw_bot(make_bot, name="quick")
    players = [
        ProgramPlayer(silent, Limits(start_ms=1500), label="silent"),
        ProgramPlayer(quick, Limits(start_ms=800), label="quick"),
    ]
    outcome = play(players)
    seats = outcome.result["seats"]
    assert seats[0]["fault"]["kind"] == "timeout", seats[0]["fault"]
    assert "before it was ready after 1500 ms" in seats[0]["fault"]["reason"]
    assert seats[1]["fault"] is None
    assert all(m["defaulted"] == [0] for m in outcome.moves if "0" in m["actions"])


def test_both_seats_failing_to_start_are_both_faulted(make_bot):
    players = [
        ProgramPlayer(make_bot("import sys\nsys.exit(3)\n", name="x"), Limits(), label="x"),
        ProgramPlayer(make_bot("def broken(:\n", name="y"), Limits(), label="y"),
    ]
    outcome = play(players)
    seats = outcome.result["seats"]
    assert seats[0]["fault"]["kind"] == "crashed" and "exit code 3" in seats[0]["fault"]["reason"]
    assert seats[1]["fault"]["kind"] == "crashed" and "exit code 1" in seats[1]["fault"]["reason"]
    assert "SyntaxError" in outcome.fault_details[1]  # its traceback: its owner's to read
    assert seats[0]["rank"] == seats[1]["rank"]  # faulted seats share the last rank
