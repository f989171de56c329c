"""What a sandboxed program sees and may do; the no-bubblewrap rules."""

from __future__ import annotations

import json
import logging

import pytest

from bots import sandbox
from bots.players import ProgramPlayer
from bots.sandbox import Limits, SandboxUnavailable

pytestmark = pytest.mark.usefixtures("no_leaks", "toy_games")

PROBE = r"""
import json, os, socket, sys
facts = {"env": dict(os.environ), "uid": os.getuid(), "pid": os.getpid(),
         "fds": sorted(os.listdir("/proc/self/fd")), "root": sorted(os.listdir("/")),
         "pids": sorted(p for p in os.listdir("/proc") if p.isdigit()),
         "environ1": open("/proc/1/environ", "rb").read().decode(),
         "status": {l.split(":")[0]: l.split(":", 1)[1].strip()
                    for l in open("/proc/self/status") if ":" in l}}
def attempt(name, fn):
    try:
        fn(); facts[name] = "ok"
    except Exception as exc:
        facts[name] = type(exc).__name__
attempt("write_bot", lambda: open("/bot/x", "w"))
attempt("write_usr", lambda: open("/usr/x", "w"))
attempt("write_root", lambda: open("/x", "w"))
attempt("write_tmp", lambda: open("/tmp/x", "w").write("hi"))
attempt("fill_tmp", lambda: open("/tmp/big", "wb").write(b"\0" * (64 << 20)))
attempt("inet", lambda: socket.create_connection(("1.1.1.1", 53), timeout=1))
attempt("unix", lambda: socket.socket(socket.AF_UNIX).close())
attempt("home", lambda: os.listdir("/root"))
attempt("sdk", lambda: __import__("arena_sdk"))
print(json.dumps(facts), flush=True)
"""


def run_probe(tmp_path, limits=None) -> dict:
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "main.py").write_text(PROBE)
    box = sandbox.launch(folder, limits or Limits(tmpfs_mb=8, file_size_mb=32))
    try:
        out, err = box.proc.communicate(timeout=20)
    finally:
        box.close()
    assert out, err.decode()
    return json.loads(out)


def test_containment(tmp_path):
    facts = run_probe(tmp_path)
    assert set(facts["env"]) <= {"PYTHONPATH", "HOME", "LANG", "PATH", "PWD", "LC_CTYPE"}
    assert facts["environ1"].split("\0")[0].startswith("PYTHONPATH=")  # pid 1 is the bot itself
    assert facts["pid"] == 1 and facts["pids"] == ["1"]
    assert facts["uid"] == sandbox.SANDBOX_UID
    assert facts["fds"] == ["0", "1", "2", "3"]  # 3 = the listdir itself
    assert facts["status"]["NoNewPrivs"] == "1"
    assert facts["status"]["Seccomp"] == "2"
    assert facts["status"]["CapEff"] == "0000000000000000"
    assert facts["root"] == sorted(["bin", "bot", "dev", "etc", "lib", "lib64", "proc", "sbin",
                                    "sdk", "tmp", "usr"])  # fmt: skip
    assert facts["write_bot"] == facts["write_usr"] == facts["write_root"] == "OSError"
    assert facts["write_tmp"] == "ok"
    assert facts["fill_tmp"] == "OSError"  # the tmpfs is 8 MB
    assert facts["inet"] == "OSError" and facts["unix"] == "ok"
    assert facts["home"] == "FileNotFoundError"
    assert facts["sdk"] == "ok"


def test_describe_enforcement():
    text = sandbox.describe_enforcement()
    assert "bubblewrap" in text and "seccomp on" in text


def test_refuses_without_bubblewrap(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "_AVAILABLE", False)
    monkeypatch.delenv("ARENA_TRUSTED_BOTS_ONLY", raising=False)
    with pytest.raises(SandboxUnavailable, match="ARENA_TRUSTED_BOTS_ONLY=1"):
        sandbox.launch(tmp_path, Limits())
    assert "uploaded bots are refused" in sandbox.describe_enforcement()


def test_trusted_only_mode_runs_plain(monkeypatch, make_bot, caplog):
    monkeypatch.setattr(sandbox, "_AVAILABLE", False)
    monkeypatch.setattr(sandbox, "_WARNED", False)
    monkeypatch.setenv("ARENA_TRUSTED_BOTS_ONLY", "1")
    bot = make_bot("import arena_sdk\narena_sdk.run(lambda observation, legal: legal[0])\n")
    from bots.players import BuiltinPlayer
    from bots.runner import play_match
    from tests.bots import toygame

    with caplog.at_level(logging.WARNING, logger="arena.sandbox"):
        outcome = play_match(
            game_slug="toy", players=[ProgramPlayer(bot), BuiltinPlayer(toygame.GAME, "random", 1)],
            options={}, seed=1,
        )  # fmt: skip
    assert outcome.result["seats"][0]["fault"] is None
    assert "WITHOUT A SANDBOX" in caplog.text
    assert "NO SANDBOX" in sandbox.describe_enforcement()
