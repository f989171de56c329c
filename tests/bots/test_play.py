"""``manage.py play`` end to end: bots/cli.py directly and through call_command."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots import cli

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
    call_command("play", "toy", str(bot), "random", "--seed", "1", stdout=out)
    assert "crashed: crashed with exit code 5 before it was ready" in out.getvalue()


def test_call_command_errors():
    with pytest.raises(CommandError, match="unknown option"):
        call_command("play", "toy", "random", "random", "--option", "x=1")
