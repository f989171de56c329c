"""``manage.py play`` end to end: bots/cli.py directly and through call_command."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots import cli, wire

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")


def test_cli_summary(capsys):
    code = cli.main(["toy", str(EXAMPLES / "sdk_bot.py"), "random", "heuristic", "--seed", "7",
                     "--option", "rounds=2", "--option", "simultaneous=true"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "seed 7" in out and '"rounds": 2' in out and '"simultaneous": true' in out
    assert "sdk_bot.py" in out and "heuristic" in out and "2 moves" in out


def test_cli_errors(capsys):
    assert cli.main(["nope", "random", "random"]) == 2
    assert "no game 'nope'" in capsys.readouterr().err
    assert cli.main(["toy", "random"]) == 2
    assert "takes 2 to 6 players, got 1 (one bot per player)" in capsys.readouterr().err
    assert cli.main(["toy", "random", "random", "--option", "colour=red"]) == 2
    assert "unknown option(s) colour" in capsys.readouterr().err
    assert cli.main(["toy", "random", "random", "--option", "rounds=many"]) == 2
    assert "option 'rounds' must be int" in capsys.readouterr().err
    assert cli.main(["toy", "random", "nobody.txt"]) == 2
    assert "neither a built-in bot" in capsys.readouterr().err


def test_cli_refuses_bad_upload(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n")
    assert cli.main(["toy", str(bad), "random"]) == 2
    assert "bot refused: bad.py: SyntaxError line 1" in capsys.readouterr().err


def test_parse_option():
    assert cli.parse_option("a=true") == ("a", True)
    assert cli.parse_option("a=3") == ("a", 3)
    assert cli.parse_option("a=seattle") == ("a", "seattle")
    with pytest.raises(cli.PlayError):
        cli.parse_option("novalue")


def test_call_command_json(tmp_path):
    import zipfile

    archive = tmp_path / "zip_bot.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        for path in (EXAMPLES / "zip_bot").iterdir():
            handle.write(path, path.name)
    out = io.StringIO()
    call_command("play", "toy", str(archive), "random", "--seed", "3", "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["seed"] == 3 and data["players"] == ["zip_bot.zip", "random"]
    assert [s["fault"] for s in data["result"]["seats"]] == [None, None]
    assert data["result"]["seats"][0]["score"] == 9  # zip_bot plays the max (3) each round


def test_call_command_reports_faults(make_bot):
    bot = make_bot("import sys\nsys.exit(5)\n")
    out = io.StringIO()
    with pytest.raises(CommandError, match="faulted") as raised:
        call_command("play", "toy", str(bot), "random", "--seed", "1", stdout=out)
    assert raised.value.returncode == 1
    assert "crashed: crashed with exit code 5 before it was ready" in out.getvalue()


LOGGER = """
import sys
import arena_sdk

def act(observation, legal):
    arena_sdk.log(f"turn {observation['turn']}: I pick {max(legal)}")
    return max(legal)

arena_sdk.run(act, on_end=lambda result: arena_sdk.log("the end:", result["seats"][0]["score"]))
"""


def test_logs_of_file_bots_are_shown_and_in_json(make_bot, capsys):
    bot = make_bot(LOGGER)
    assert cli.main(["toy", str(bot), "random", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "--- log of seat 0 (bot)" in out
    assert "turn 0: I pick 3" in out and "turn 4: I pick 3" in out
    assert "the end: 9" in out  # written after "end": the arena waits a moment for it
    assert "log of seat 1" not in out  # a built-in bot has no log

    assert cli.main(["toy", "random", str(bot), "--seed", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["logs"][0] is None
    assert data["logs"][1].splitlines()[0] == "turn 1: I pick 3"
    assert data["bots"] == ["random", str(bot)]
    assert "log" not in json.dumps(data["result"])  # the public result never holds a log


def test_log_is_bounded_and_marks_what_it_dropped(make_bot, capsys):
    # 2 MB over the match, with a first and a last line to find again.
    bot = make_bot("""
    import sys
    import arena_sdk

    def act(observation, legal):
        if observation["turn"] == 0:
            arena_sdk.log("FIRST LINE")
        for _ in range(64):
            sys.stderr.write("x" * 8191 + "\\n")
        if observation["turn"] == 4:
            arena_sdk.log("LAST LINE")
        return legal[0]

    arena_sdk.run(act)
    """)
    assert cli.main(["toy", str(bot), "random", "--seed", "1", "--json"]) == 0
    log = json.loads(capsys.readouterr().out)["logs"][0]
    assert len(log.encode()) <= wire.LOG_BYTES
    assert log.startswith("FIRST LINE\n") and log.rstrip().endswith("LAST LINE")
    assert re.search(r"\[\.\.\. \d+ bytes of log dropped: at most 65536 bytes are kept", log)


def test_bounded_log_unit():
    log = wire.BoundedLog(limit=1000)
    log.append(b"a" * 500)
    assert log.text() == "a" * 500  # under the limit: all of it, no mark
    log.append(b"\x00b" * 1000 + b"\xff")
    text = log.text()
    assert len(text.encode()) <= 1000 and "dropped" in text
    assert "\x00" not in text  # PostgreSQL stores no NUL in text
    assert text.startswith("a" * 500) and text.endswith("\ufffd")
    before = len(log.head), log.tail_len
    log.append(b"z" * 10_000_000)  # a flood costs the kept size, not the flood's
    assert len(log.head) == before[0] and log.tail_len <= 1000
    assert log.text().endswith("z" * 100)


def test_exit_status_counts_the_chosen_faults_of_file_bots(make_bot, capsys):
    crasher = make_bot("import sys\nsys.exit(3)\n", name="crasher")
    assert cli.main(["toy", str(crasher), "random", "--seed", "1"]) == 1
    assert cli.main(["toy", str(crasher), "random", "--seed", "1", "--fail-on", "crashed"]) == 1
    assert cli.main(["toy", str(crasher), "random", "--fail-on", "timeout,illegal"]) == 0
    assert cli.main(["toy", str(crasher), "random", "--fail-on", "none"]) == 0
    assert cli.main(["toy", str(crasher), "random", "--fail-on", "slow"]) == 2
    assert "unknown fault kind(s) slow" in capsys.readouterr().err
    assert cli.main(["toy", str(EXAMPLES / "sdk_bot.py"), "random", "--seed", "1"]) == 0


def test_call_command_errors():
    with pytest.raises(CommandError, match="unknown option"):
        call_command("play", "toy", "random", "random", "--option", "x=1")


def test_a_match_left_open_is_closed_by_its_caller_with_the_same_logs(make_bot):
    """``leave_open``: the seats told "end" are left to exit while the caller works (a worker
    records the result); ``seat_logs`` then gives the logs the runner would have, the line
    written after "end" included, and ``close_players`` closes the seats."""
    from bots.players import BuiltinPlayer, ProgramPlayer
    from bots.runner import close_players, play_match, seat_logs
    from games import registry

    bot = make_bot(LOGGER)

    def players():
        return [ProgramPlayer(bot, label="bot"), BuiltinPlayer(registry.get("toy"), "random", 1)]

    closed = play_match(game_slug="toy", players=players(), options={}, seed=2)
    seats = players()
    left = play_match(game_slug="toy", players=seats, options={}, seed=2, leave_open=True)
    assert left.logs == [] and seats[0].log is None  # not closed yet
    assert left.result == closed.result
    logs = seat_logs(seats)
    assert logs == closed.logs and "the end: 9" in logs[0]
    assert not seats[0].box._closed  # the sandbox is still the caller's to close
    assert close_players(seats) == logs
    assert seats[0].box._closed
    assert close_players(seats) == logs  # closing again changes nothing
