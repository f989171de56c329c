"""``manage.py replay``: an exported match plays again move for move; a tampered record is
reported at its first differing move."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"
pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")


def export(tmp_path: Path, *bots: str, seed: int = 7) -> tuple[Path, dict]:
    out = io.StringIO()
    call_command("play", "toy", *bots, "--seed", str(seed), "--option", "rounds=4", "--json",
                 stdout=out)  # fmt: skip
    path = tmp_path / "match.json"
    path.write_text(out.getvalue())
    return path, json.loads(out.getvalue())


def replay(path: Path, *args: str) -> tuple[int, str, dict]:
    out = io.StringIO()
    try:
        call_command("replay", str(path), *args, "--json", stdout=out)
        code = 0
    except CommandError as exc:
        code = exc.returncode
    text = out.getvalue()
    return code, text, json.loads(text) if text.startswith("{") else {}


def tamper(path: Path, data: dict, move: int, seat: int, action) -> None:
    data["moves"][move]["actions"][str(seat)] = action
    path.write_text(json.dumps(data))


def test_an_exported_match_replays_the_same(tmp_path):
    path, data = export(tmp_path, str(EXAMPLES / "sdk_bot.py"), "random")
    code, _, report = replay(path)
    assert code == 0 and report["same"] and report["differences"] == []
    assert report["seats"] == [str(EXAMPLES / "sdk_bot.py"), "built-in random"]
    assert report["replayed"]["moves"][3]["actions"] == data["moves"][3]["actions"]
    out = io.StringIO()
    call_command("replay", str(path), stdout=out)
    assert f"same: all {len(data['moves'])} moves and the result" in out.getvalue()


@pytest.mark.parametrize("seat", [0, 1])  # the file bot's seat, then the built-in's
def test_a_tampered_record_is_reported_at_its_first_differing_move(tmp_path, seat):
    path, data = export(tmp_path, str(EXAMPLES / "sdk_bot.py"), "random")
    index = next(i for i, m in enumerate(data["moves"]) if i >= 3 and str(seat) in m["actions"])
    played = data["moves"][index]["actions"][str(seat)]
    forged = (played + 1) % 4
    tamper(path, data, index, seat, forged)
    code, _, report = replay(path)
    assert code == 1 and not report["same"]
    assert report["first_move"] == index + 1
    assert report["differences"][0] == (
        f"move {index + 1}: seat {seat} played {played} here, the record has {forged}"
    )
    with pytest.raises(CommandError, match=f"move {index + 1}: seat {seat} played") as raised:
        call_command("replay", str(path), stdout=io.StringIO())
    assert raised.value.returncode == 1


def test_seats_without_a_file_play_their_recorded_moves(tmp_path):
    path, data = export(tmp_path, str(EXAMPLES / "sdk_bot.py"), "random")
    # As the server exports it: no command line, bots named by version.
    data.pop("bots")
    data["players"] = ["mine@v3", "theirs@v1"]
    path.write_text(json.dumps(data))
    code, _, report = replay(path, "--bot", f"0={EXAMPLES / 'sdk_bot.py'}")
    assert code == 0, report["differences"]
    assert report["seats"][1] == "its recorded moves (theirs@v1)"
    # A recorded seat replays whatever the record says: a forged legal move shows in the
    # result; a forged illegal one where it was played.
    tamper(path, data, 1, 1, 3 if data["moves"][1]["actions"]["1"] != 3 else 2)
    code, _, report = replay(path, "--bot", f"0={EXAMPLES / 'sdk_bot.py'}")
    assert code == 1 and report["first_move"] is None
    assert any(d.startswith("result: seat 1 score") for d in report["differences"])
    tamper(path, data, 1, 1, 9)
    code, _, report = replay(path)
    assert code == 1 and report["first_move"] == 2
    assert report["differences"][0] == "move 2: seat 1 played 0 here, the record has 9"


def test_bad_records(tmp_path):
    cases = {
        "not json {": "is not JSON",
        "[1, 2]": "no JSON object",
        '{"game": "toy", "seed": 1}': "no moves, result",
        '{"game": "nope", "seed": 1, "moves": [], "result": {"seats": [{}, {}]}}': "no game 'nope'",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(CommandError, match=message) as raised:
            call_command("replay", str(path), stdout=io.StringIO())
        assert raised.value.returncode == 2
    path, _ = export(tmp_path, "random", "random")
    for bad in ("5=random", "x=random", "0"):
        with pytest.raises(CommandError, match="--bot") as raised:
            call_command("replay", str(path), "--bot", bad, stdout=io.StringIO())
        assert raised.value.returncode == 2
    with pytest.raises(CommandError, match="cannot read"):
        call_command("replay", str(tmp_path / "missing.json"), stdout=io.StringIO())
