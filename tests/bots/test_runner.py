"""Real matches through the real runner and the real sandbox: happy paths and every fault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots.players import BuiltinPlayer, ProgramPlayer, resolve_player
from bots.runner import Clock, play_match, rank_with_faults, validation_match
from bots.sandbox import Limits, slots
from games import registry
from tests.support import toygame
from tests.support.raw_bot import raw_bot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")


def play(bot_dir, *, rounds=4, clock=None, limits=None, others=("random", "heuristic"), **opts):
    game = toygame.GAME
    players = [ProgramPlayer(bot_dir, limits or Limits(), label="candidate")]
    players += [BuiltinPlayer(game, name, 10 + i) for i, name in enumerate(others)]
    return play_match(
        game_slug="toy", players=players, options={"rounds": rounds, **opts}, seed=5,
        clock=clock or Clock(move_ms=1000, bank_ms=1000),
    )  # fmt: skip


def assert_faulted(outcome, kind, *fragments, wrote=()):
    """Seat 0 faulted with ``kind``: ``fragments`` in its public reason, what it ``wrote``
    in its detail (its owner's only) and not in the reason."""
    seats = outcome.result["seats"]
    fault = seats[0]["fault"]
    assert fault is not None and fault["kind"] == kind, fault
    for fragment in fragments:
        assert fragment in fault["reason"], fault["reason"]
    for fragment in wrote:
        assert fragment in outcome.fault_details[0], outcome.fault_details[0]
        assert fragment not in fault["reason"], fault["reason"]
    assert seats[0]["rank"] == len(seats)  # faulted seat ranks last
    assert all(s["fault"] is None for s in seats[1:])
    assert len(outcome.moves) == 4 * len(seats)  # the match was played out
    later = [m for m in outcome.moves if "0" in m["actions"] and m not in outcome.moves[:1]]
    assert all(m["actions"]["0"] == 0 for m in later if 0 in m["defaulted"])
    json.dumps(outcome.to_dict())
    return fault


@pytest.mark.parametrize("path", ["sdk_bot.py", "raw_bot.py", "zip_bot"])
def test_examples_play_a_full_match(path):
    game = toygame.GAME
    players = [resolve_player(str(EXAMPLES / path), game=game, seat=0, seed=1)]
    players.append(resolve_player("random", game=game, seat=1, seed=1))
    outcome = play_match(game_slug="toy", players=players, options={"rounds": 5}, seed=2)
    seats = outcome.result["seats"]
    assert [s["fault"] for s in seats] == [None, None]
    assert seats[0]["bot"] == path and seats[1]["bot"] == "random"
    assert len(outcome.moves) == 10 and all(m["defaulted"] == [] for m in outcome.moves)
    assert all(isinstance(m["cpu_ms"]["0"], int) for m in outcome.moves[::2])
    replayed = registry.rebuild(outcome.record)
    assert replayed.result()["seats"][0]["score"] == seats[0]["score"]


def test_simultaneous_moves_and_outcome_shape(make_bot):
    outcome = play(raw_bot(make_bot), simultaneous=True)
    data = outcome.to_dict()
    assert set(data) >= {
        "game",
        "version",
        "seed",
        "players",
        "options",
        "result",
        "moves",
        "record",
    }
    assert data["moves"][0]["actions"] == {"0": 3, "1": data["moves"][0]["actions"]["1"], "2": 3}
    assert data["result"]["seats"][0]["score"] == 12


def test_timeout_on_move_n(make_bot):
    bot = raw_bot(make_bot, on_act="import time\n        if moves == 3: time.sleep(30)")
    fault = assert_faulted(play(bot, clock=Clock(move_ms=200, bank_ms=100)), "timeout")
    # Seat 0's third turn in a 3-seat turn order: the match's move 7, index 6.
    assert "on move 7" in fault["reason"] and "after 300 ms" in fault["reason"]
    assert fault["move"] == 6


def test_bank_pays_for_slow_moves(make_bot):
    bot = raw_bot(make_bot, on_act="import time\n        time.sleep(0.25)")
    outcome = play(bot, rounds=3, clock=Clock(move_ms=100, bank_ms=1000))
    assert outcome.result["seats"][0]["fault"] is None
    outcome = play(bot, rounds=8, clock=Clock(move_ms=100, bank_ms=400))
    assert outcome.result["seats"][0]["fault"]["kind"] == "timeout"


def test_illegal_action(make_bot):
    bot = raw_bot(make_bot, on_act='send({"type": "action", "action": "9"}); continue')
    fault = assert_faulted(play(bot), "illegal", "not in legal on move 1", wrote=['"9"'])
    assert fault["move"] == 0


def test_crash_reports_exit_code_and_stderr_tail(make_bot):
    bot = raw_bot(
        make_bot, on_act='if moves == 2: print("oops, no more", file=sys.stderr); sys.exit(3)'
    )
    # Seat 0's second turn of three seats: the match's move 4.
    assert_faulted(play(bot), "crashed", "exit code 3", "on move 4", wrote=["oops, no more"])


def test_exception_traceback_in_detail(make_bot):
    bot = raw_bot(make_bot, on_act="if moves == 1: {}['missing']")
    assert_faulted(play(bot), "crashed", "exit code 1", wrote=["KeyError: 'missing'"])


def test_garbage_output(make_bot):
    bot = raw_bot(make_bot, on_act='print("hello there", flush=True); continue')
    assert_faulted(play(bot), "protocol", "not JSON", wrote=["hello there"])


def test_wrong_message_type(make_bot):
    bot = raw_bot(make_bot, on_act='send({"type": "move", "action": 1}); continue')
    assert_faulted(play(bot), "protocol", "other than", wrote=['{"type":"move"'])


def test_too_long_line(make_bot):
    bot = raw_bot(make_bot, on_act='sys.stdout.write("x" * 200000); sys.stdout.flush()')
    assert_faulted(play(bot), "output", "line longer than 65536 bytes")


def test_replying_twice(make_bot):
    # Both answers in one write: a second answer written after the arena has read the first
    # and paused the bot is seen at its next "act" at the earliest (see docs/bots.md).
    bot = raw_bot(
        make_bot,
        on_act='sys.stdout.write(json.dumps({"type": "action", "action": 1}) + "\\n")',
    )
    assert_faulted(play(bot), "protocol", "nobody asked for")


def test_exit_before_ready(make_bot):
    bot = make_bot("import sys\nprint('bye', file=sys.stderr)\nsys.exit(4)\n")
    fault = assert_faulted(
        play(bot), "crashed", "exit code 4", "before it was ready", wrote=["bye"]
    )
    assert fault["move"] is None
    assert play(bot).moves[0]["defaulted"] == [0]


def test_syntax_error_in_bot_folder(make_bot):
    bot = make_bot("def broken(:\n")
    assert_faulted(play(bot), "crashed", "exit code 1", wrote=["SyntaxError"])


def test_wrong_answer_to_start(make_bot):
    bot = make_bot('import sys\nfor l in sys.stdin: print(\'{"type": "action"}\', flush=True)\n')
    assert_faulted(
        play(bot), "protocol", 'other than {"type":"ready"}', wrote=['{"type":"action"}']
    )


def test_rank_with_faults_teams_and_ties():
    result = {"seats": [{"score": 5, "rank": 1}, {"score": 3, "rank": 2}, {"score": 3, "rank": 2},
                        {"score": 0, "rank": 4}], "teams": []}  # fmt: skip
    from bots.players import Fault

    ranked = rank_with_faults(result, {0: Fault("timeout", "x")}, list("abcd"))
    assert [s["rank"] for s in ranked["seats"]] == [4, 1, 1, 3]
    assert ranked["seats"][0]["engine_rank"] == 1
    teams = {"seats": result["seats"], "teams": [[0, 2], [1, 3]]}
    ranked = rank_with_faults(teams, {3: Fault("crashed", "x")}, list("abcd"))
    assert [s["rank"] for s in ranked["seats"]] == [1, 2, 1, 2]
    ranked = rank_with_faults(
        teams, {3: Fault("crashed", "x"), 0: Fault("crashed", "y")}, list("abcd")
    )
    assert [s["rank"] for s in ranked["seats"]] == [1, 1, 1, 1]


def test_team_game_fault_puts_team_last(make_bot):
    bot = make_bot("import sys\nsys.exit(1)\n")
    game = toygame.TEAM_GAME
    players = [BuiltinPlayer(game, "heuristic", 1), ProgramPlayer(bot, label="bad")]
    players += [BuiltinPlayer(game, "random", 2), BuiltinPlayer(game, "random", 3)]
    outcome = play_match(game_slug="toy-teams", players=players, options={}, seed=1)
    assert [s["rank"] for s in outcome.result["seats"]] == [1, 2, 1, 2]


def test_validation_match(make_bot):
    assert validation_match(EXAMPLES / "zip_bot", game_slug="toy") == (True, "", "")
    ok, reason, _ = validation_match(make_bot("import sys\nsys.exit(2)\n"), game_slug="toy")
    assert not ok and "exit code 2" in reason and "seat 0" in reason


def test_faulted_bot_dies_at_once(make_bot):
    """A faulted seat's whole tree (a daemon child included) is gone before the next move."""
    bot = raw_bot(
        make_bot,
        on_act="if os.fork() == 0:\n            os.setsid(); time.sleep(60)\n"
        '        print("garbage", flush=True); continue',
        on_start="import os, time",
    )
    player = ProgramPlayer(bot, label="bad")
    seen = []

    def after_move(count: int) -> None:
        if count == 1:  # the bot faulted on move 1 (index 0) and was closed
            seen.append(slots.uid_processes(player.box.slot_uid))

    outcome = play_match(
        game_slug="toy", players=[player, BuiltinPlayer(toygame.GAME, "random", 1)],
        options={"rounds": 2}, seed=1, on_move=after_move,
    )  # fmt: skip
    assert outcome.result["seats"][0]["fault"]["kind"] == "protocol"
    assert seen == [[]]


def test_a_match_with_program_seats_times_their_start_up_once_and_one_without_none():
    from bots import metrics

    def observed() -> float:
        return sum(
            s.value
            for s in metrics.SANDBOX_START_SECONDS.collect()[0].samples
            if s.name.endswith("_count")
        )

    game = toygame.GAME
    before = observed()
    builtins = [resolve_player("random", game=game, seat=s, seed=1) for s in (0, 1)]
    play_match(game_slug="toy", players=builtins, options={"rounds": 2}, seed=2)
    assert observed() == before
    players = [resolve_player(str(EXAMPLES / "sdk_bot.py"), game=game, seat=0, seed=1)]
    players.append(resolve_player(str(EXAMPLES / "raw_bot.py"), game=game, seat=1, seed=1))
    play_match(game_slug="toy", players=players, options={"rounds": 2}, seed=2)
    assert observed() == before + 1
