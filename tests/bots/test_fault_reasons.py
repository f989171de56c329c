"""A fault's reason says what happened, for everyone; what the bot wrote that explains it
(its stderr's end, the line or the action it answered) is the fault's ``detail``, its
owner's only. A fault names its move as the replay viewer numbers the match's moves."""

from __future__ import annotations

import json

import pytest

from bots import cli
from bots.players import BuiltinPlayer, Fault, ProgramPlayer
from bots.runner import Clock, MatchOutcome, play_match, validation_match
from bots.sandbox import Limits
from tests.support import toygame
from tests.support.raw_bot import raw_bot

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")
SECRET = "secret strategy note: k=1.0"


def play(bot_dir, *, rounds=3, clock=None):
    """The bot in seat 0 of three, turns in seat order: its n-th turn is move 3n - 2."""
    game = toygame.GAME
    players = [ProgramPlayer(bot_dir, Limits(), label="candidate")]
    players += [BuiltinPlayer(game, name, 10 + i) for i, name in enumerate(("random", "random"))]
    return play_match(
        game_slug="toy", players=players, options={"rounds": rounds}, seed=5,
        clock=clock or Clock(move_ms=1000, bank_ms=1000),
    )  # fmt: skip


def fault_of(outcome: MatchOutcome) -> tuple[dict, str]:
    """Seat 0's public fault and its detail; the bot's words are nowhere public."""
    fault = outcome.result["seats"][0]["fault"]
    assert fault is not None
    assert SECRET not in json.dumps(outcome.result)
    return fault, outcome.fault_details[0]


def test_a_crash_says_how_and_when_and_its_stderr_tail_is_the_detail(make_bot):
    bot = raw_bot(
        make_bot,
        on_act=f"if moves == 2: print({SECRET!r}, file=sys.stderr); sys.exit(101)",
    )
    fault, detail = fault_of(play(bot))
    assert fault == {"kind": "crashed", "reason": "crashed with exit code 101 on move 4", "move": 3}
    assert detail == SECRET


def test_a_traceback_is_the_detail_not_the_reason(make_bot):
    bot = raw_bot(make_bot, on_act=f"if moves == 1: raise KeyError({SECRET!r})")
    fault, detail = fault_of(play(bot))
    assert fault["reason"] == "crashed with exit code 1 on move 1"
    assert "Traceback" in detail and f"KeyError: {SECRET!r}" in detail


def test_a_crash_before_ready_keeps_its_tail_for_the_owner(make_bot):
    bot = make_bot(f"import sys\nprint({SECRET!r}, file=sys.stderr)\nsys.exit(4)\n")
    fault, detail = fault_of(play(bot))
    assert fault == {
        "kind": "crashed",
        "reason": "crashed with exit code 4 before it was ready",
        "move": None,
    }
    assert detail == SECRET


@pytest.mark.parametrize(
    "on_act, kind, reason",
    [
        (
            f'print("hello " + {SECRET!r}, flush=True); continue',
            "protocol",
            "wrote a line that is not JSON on move 1",
        ),
        (
            f'send({{"type": "move", "note": {SECRET!r}}}); continue',
            "protocol",
            'answered something other than {"type":"action","action":...} on move 1',
        ),
        (
            f"send([{SECRET!r}]); continue",
            "protocol",
            'wrote JSON that is not an object with a "type" on move 1',
        ),
        (
            f'send({{"type": "action", "action": {SECRET!r}}}); continue',
            "illegal",
            "answered an action not in legal on move 1",
        ),
    ],
)
def test_what_the_bot_answered_is_the_detail(make_bot, on_act, kind, reason):
    fault, detail = fault_of(play(raw_bot(make_bot, on_act=on_act)))
    assert (fault["kind"], fault["reason"], fault["move"]) == (kind, reason, 0)
    assert SECRET in detail


def test_a_wrong_answer_to_start_is_the_detail(make_bot):
    bot = make_bot(
        f"import json, sys\nfor l in sys.stdin: print(json.dumps({{'type': {SECRET!r}}}), flush=True)\n"
    )
    fault, detail = fault_of(play(bot))
    assert fault["reason"] == 'answered something other than {"type":"ready"} to "start"'
    assert SECRET in detail


def test_a_fault_names_its_move_as_the_viewer_numbers_them(make_bot):
    """Seat 0's third turn is the match's seventh move (index 6): "on move 7" in the
    reason, 6 in ``move``, and the viewer's move 7 is the one played by default."""
    bot = raw_bot(make_bot, on_act="import time\n        if moves == 3: time.sleep(30)")
    outcome = play(bot, clock=Clock(move_ms=200, bank_ms=100))
    fault = outcome.result["seats"][0]["fault"]
    assert fault["kind"] == "timeout" and fault["move"] == 6
    assert fault["reason"] == "timed out on move 7 after 300 ms"
    assert 0 in outcome.moves[fault["move"]]["defaulted"]
    assert all(0 not in m["defaulted"] for m in outcome.moves[: fault["move"]])


def test_the_runners_own_faults_number_moves_the_same_way(make_bot):
    bot = raw_bot(make_bot, on_act='if moves == 2: send({"type": "action", "action": 9}); continue')
    fault = play(bot).result["seats"][0]["fault"]
    assert (fault["kind"], fault["move"]) == ("illegal", 3)
    assert fault["reason"] == "answered an action not in legal on move 4"


def test_a_failed_validation_match_gives_the_detail_apart(make_bot):
    bot = make_bot(f"import sys\nprint({SECRET!r}, file=sys.stderr)\nsys.exit(2)\n")
    ok, reason, detail = validation_match(bot, game_slug="toy")
    assert not ok
    assert (
        reason == "in a test match as seat 0, the bot crashed with exit code 2 before it was ready"
    )
    assert detail == SECRET


def test_a_fault_holds_only_text_a_database_stores():
    """PostgreSQL refuses NUL in text and JSON, and lone surrogates cannot be encoded."""
    fault = Fault("protocol", "wrote \x00 on move 1", detail="a\x00b\ud800c")
    assert fault.reason == "wrote \ufffd on move 1"
    assert fault.detail == "a\ufffdb\ufffdc"
    fault.detail.encode()


# -- the command line: one line per seat in the table, the tail once in the logs ----------


def test_the_summary_keeps_one_line_per_seat_and_the_tail_once(make_bot, capsys):
    tail = "first line of the end\nsecond line of the end\nlast words"
    bot = raw_bot(make_bot, on_act=f"if moves == 2: print({tail!r}, file=sys.stderr); sys.exit(3)")
    assert cli.main(["toy", str(bot), "random", "--seed", "1", "--option", "rounds=3"]) == 1
    out = capsys.readouterr().out
    table = out.split("--- log of seat")[0].rstrip("\n").splitlines()
    assert len(table) == 4  # the heading, the columns, two seats
    assert table[2].split()[:2] == ["0", "bot"]
    assert table[2].endswith("crashed: crashed with exit code 3 on move 3")
    for line in tail.splitlines():
        assert out.count(line) == 1, out


def test_a_reason_on_several_lines_stays_on_its_row():
    seats = [
        {"bot": "a", "score": 0, "rank": 2, "fault": {"kind": "crashed", "reason": "x\ny\r\nz"}},
        {"bot": "b", "score": 1, "rank": 1, "fault": None},
    ]
    outcome = MatchOutcome("toy", 1, 1, ["a", "b"], {}, {}, {"seats": seats})
    rows = cli.summary(outcome).splitlines()
    assert len(rows) == 4 and rows[2].endswith("crashed: x y z")
