"""Bots in any offered language: the entry point an upload names, the build step in the
sandbox (its verdicts and its log), and the example bots of each language playing Pairs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bots import build, validation
from bots.players import BuiltinPlayer, ProgramPlayer, resolve_player
from bots.runner import play_match
from bots.sandbox import languages
from bots.validation import UploadRejected, validate_upload
from games import registry
from tests.support.archives import make_zip, zip_folder

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
ELF = (REPO / ".venv" / "bin" / "python").resolve().read_bytes()[:64]  # any x86-64 binary


@pytest.mark.parametrize(
    "main, language",
    [
        (b"#!/usr/bin/env node\nconsole.log(1)\n", "javascript"),
        (b"#!/usr/bin/node --stack-size=500\n", "javascript"),
        (b"#!/usr/bin/env python3\nprint(1)\n", "python"),
        (b"#!/bin/sh\nexec java -cp classes Main\n", "shell"),
        (b"#!/usr/bin/bash\n", "shell"),
        (ELF, "native"),
    ],
)
def test_an_executable_main_names_its_language(main, language):
    upload = validate_upload("bot.zip", make_zip({"main": main, "lib/x.txt": b""}))
    assert upload.language == language and not upload.needs_build


@pytest.mark.parametrize(
    "files, reason",
    [
        ({"main": b"#!/usr/bin/env ruby\n"}, "bot.zip: main: its #! line names 'ruby', which"),
        ({"main": b"#!/opt/node/bin/node\n"}, "only programs under /usr or /bin"),
        ({"main": b"#!/usr/bin/env -S node --x\n"}, "without options"),
        ({"main": b"console.log(1)\n"}, "neither an ELF binary nor a script starting with #!"),
        ({"main": ELF[:18] + b"\xb7\x00" + ELF[20:]}, "an ELF binary for another machine"),
        ({"mybot/main": b"#!/usr/bin/env perl\n"}, "bot.zip: mybot/main: its #! line names 'perl'"),
        ({"run.sh": b"#!/bin/sh\n"}, "no main.py, main or build.sh"),
    ],
)
def test_an_entry_point_the_sandbox_cannot_run_is_refused_by_its_name(files, reason):
    with pytest.raises(UploadRejected) as refused:
        validate_upload("bot.zip", make_zip(files))
    assert reason in refused.value.reason


def test_the_languages_are_a_setting(monkeypatch):
    monkeypatch.setenv("ARENA_LANGUAGES", "python, javascript")
    assert languages.offered_names() == ["python", "javascript"]
    assert languages.sandbox_env() == {"NODE_PATH": "/sdk"}
    assert validate_upload("b.zip", make_zip({"main": b"#!/usr/bin/env node\n"})).language
    for files, words in (
        ({"main": ELF}, "does not run native binaries"),
        ({"main": b"#!/usr/bin/env java\n"}, "names 'java', which this arena does not offer"),
    ):
        with pytest.raises(UploadRejected, match=words):
            validate_upload("b.zip", make_zip(files))
    monkeypatch.setenv("ARENA_LANGUAGES", "java")
    assert "/etc/alternatives" in languages.sandbox_binds()
    with pytest.raises(UploadRejected, match="does not run Python"):
        validate_upload("bot.py", b"print(1)\n")
    monkeypatch.setenv("ARENA_LANGUAGES", "python,cobol")
    with pytest.raises(ValueError, match="unknown languages"):
        languages.configured()


def test_a_build_step_waits_for_its_build():
    upload = validate_upload(
        "bot.zip", make_zip({"build.sh": b"cc -o main main.c\n", "main.c": b""})
    )
    assert upload.needs_build and upload.language == "build"
    # A Python bot with a build.sh is still a Python bot: main.py wins.
    assert not validate_upload("b.zip", make_zip({"main.py": b"", "build.sh": b""})).needs_build


def materialized(tmp_path: Path, files: dict[str, bytes]) -> Path:
    upload = validate_upload("bot.zip", make_zip(files))
    folder = tmp_path / "source"
    validation.materialize(upload.files, folder, upload.executables)
    return folder


@pytest.mark.parametrize(
    "files, reason, log",
    [
        ({"build.sh": b"echo compiling\ncc -o main main.c\n", "main.c": b"int main( {"},
         "build.sh failed with exit code 1", "compiling\nmain.c:1:11: error:"),
        ({"build.sh": b"echo nothing to do\n"}, "build.sh succeeded but left no file named main",
         "nothing to do"),
        ({"build.sh": b"printf 'no shebang' > main\n"}, "the built tree cannot run: main (left by",
         ""),
        ({"build.sh": b"exec 2>/dev/null; while :; do :; done\n"}, "build.sh took more than 3 s",
         ""),
        ({"build.sh": b"head -c 40000000 /dev/zero > /tmp/big || exit 4\n"},
         "build.sh failed with exit code 4",
         "head: error writing 'standard output': No space left"),
    ],
)  # fmt: skip
def test_a_failed_build_says_why_and_keeps_the_tail_of_its_log_apart(tmp_path, files, reason, log):
    """The reason is for anyone to read; the build's output (the owner's) is its log."""
    limits = build.build_limits(seconds=3, tmp_mb=32)
    result = build.build(materialized(tmp_path, files), limits=limits, seconds=3)
    assert not result.ok and result.archive == b""
    assert result.reason.startswith(reason), result.reason
    assert "\n" not in result.reason and (not log or log not in result.reason)
    assert log in result.log, result.log


def test_a_build_runs_in_the_sandbox_and_leaves_only_its_tree(tmp_path):
    """No network, no writing outside its /tmp, read-only /bot: the build is a bot too."""
    script = b"""set -e
! touch /bot/x 2>/dev/null
! touch /usr/x 2>/dev/null
! (exec 3<>/dev/tcp/1.1.1.1/53) 2>/dev/null
id -u > uid.txt
printf '#!/bin/sh\\necho hi\\n' > main
chmod +x main
mkdir -p sub && echo data > sub/file
ln -s /etc/passwd link
"""
    result = build.build(materialized(tmp_path, {"build.sh": script}))
    assert result.ok, result.reason
    files, executables = validation.unzip_tree(result.archive)
    assert set(files) == {"build.sh", "main", "uid.txt", "sub/file"}  # the link is dropped
    assert files["uid.txt"] == b"1000\n" and executables == {"main", "build.sh"}


@pytest.mark.parametrize("example", ["c_pairs", "cpp_pairs", "js_pairs", "java_pairs"])
def test_each_example_builds_and_plays_pairs_sensibly(example, tmp_path):
    """From its zip, as uploaded: built in the sandbox if it has a build step, then a full
    match against the built-in random bot without a fault."""
    if example == "java_pairs" and not shutil.which("javac"):
        pytest.skip("no JDK (make system installs openjdk-17-jdk-headless)")
    archive = tmp_path / f"{example}.zip"
    archive.write_bytes(zip_folder(EXAMPLES / example))
    game = registry.get("pairs")
    player = resolve_player(str(archive), game=game, seat=0, seed=5)
    assert isinstance(player, ProgramPlayer)
    outcome = play_match(
        game_slug="pairs", players=[player, BuiltinPlayer(game, "random", 1)], options={}, seed=5
    )
    assert [s["fault"] for s in outcome.result["seats"]] == [None, None], outcome.result
    actions = {m["actions"].get("0") for m in outcome.moves} - {None}
    assert {"hit", "fold"} <= actions  # it decides, rather than always answering legal[0]
