"""The C launcher (bots/sandbox/launch.c): built on first use, failures told as the host's,
and the Python preexec whenever it cannot be had. What the sandbox itself gets either way
is test_sandbox.py's test_containment, run both ways."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bots import sandbox
from bots.sandbox import Limits, jail, launcher, slots

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.fixture
def fresh_build(monkeypatch):
    """A state folder of the test's own (nothing built yet) and no launcher found yet. In
    /tmp, not tmp_path: a sandbox's uid must reach what is staged there."""
    state = Path(tempfile.mkdtemp(prefix="arena-sandbox-test-"))
    monkeypatch.setattr(slots, "STATE_DIR", state)
    monkeypatch.setattr(launcher, "_FOUND", {})
    monkeypatch.delenv("ARENA_SANDBOX_LAUNCHER", raising=False)
    yield state
    slots._remove_tree(state)


def run_launcher(*steps: str, parent: int | None = None, program: list[str]) -> tuple[int, str]:
    """The launcher run by hand: its exit status and what it reported."""
    built = launcher.path()
    assert built is not None
    read, write = os.pipe()
    try:
        proc = subprocess.run(
            [str(built), str(parent or os.getpid()), str(write), *steps, "--", *program],
            pass_fds=(write,), capture_output=True, timeout=10,
        )  # fmt: skip
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as report:
        return proc.returncode, report.read().decode()


def test_built_once_per_source_and_rebuilt_when_it_changes(fresh_build, tmp_path, monkeypatch):
    first = launcher.path()
    assert first is not None and first.parent == fresh_build / "launcher"
    assert launcher.describe() == f"launch: vfork and the C launcher ({first})"
    changed = tmp_path / "launch.c"
    changed.write_text(launcher.SOURCE.read_text() + "/* a change */\n")
    monkeypatch.setattr(launcher, "SOURCE", changed)
    monkeypatch.setattr(launcher, "_FOUND", {})
    second = launcher.path()
    assert second is not None and second != first  # never the stale build of another source
    assert os.access(first, os.X_OK) and os.access(second, os.X_OK)
    assert not [p for p in first.parent.iterdir() if p.name.startswith(".build-")]


def test_built_again_when_removed_under_a_running_process(fresh_build):
    """A /tmp cleaner may remove the build under a long-lived worker."""
    built = launcher.path()
    slots._remove_tree(fresh_build / "launcher")
    assert launcher.path() == built and os.access(built, os.X_OK)
    box = sandbox.launch(None, Limits(), ["/usr/bin/true"])
    try:
        assert box.wait(10) == 0
    finally:
        box.close()


def test_without_a_compiler_the_preexec_starts_the_sandbox(fresh_build, monkeypatch, caplog):
    monkeypatch.setattr(launcher, "COMPILERS", ("no-such-compiler",))
    with caplog.at_level(logging.WARNING, logger="arena.sandbox"):
        assert launcher.path() is None
    assert "could not be built (no C compiler" in caplog.text
    assert "fork with a Python preexec" in launcher.describe()
    box = sandbox.launch(None, Limits(), ["/usr/bin/true"])
    try:
        assert box.wait(10) == 0
    finally:
        box.close()


@pytest.mark.parametrize("setting", ["python", "/no/such/launcher"])
def test_the_setting_turns_it_off(fresh_build, monkeypatch, caplog, setting):
    monkeypatch.setenv("ARENA_SANDBOX_LAUNCHER", setting)
    with caplog.at_level(logging.WARNING, logger="arena.sandbox"):
        assert launcher.path() is None
    assert ("is not an executable" in caplog.text) == setting.startswith("/")


def test_a_launcher_built_elsewhere_is_used(fresh_build, tmp_path, monkeypatch):
    copy = tmp_path / "arena-launch"
    shutil.copy(launcher.path(), copy)
    monkeypatch.setattr(launcher, "_FOUND", {})
    monkeypatch.setenv("ARENA_SANDBOX_LAUNCHER", str(copy))
    assert launcher.path() == copy


def test_runs_the_program_after_its_steps(fresh_build, tmp_path):
    marker = tmp_path / "ran"
    status, report = run_launcher(
        "oom", "900", "rlimit", "7", "40", "40",
        program=[sys.executable, "-c", "import os, resource, sys; "
                 "open(sys.argv[1], 'w').write(open('/proc/self/oom_score_adj').read().strip()"
                 " + ' ' + str(resource.getrlimit(resource.RLIMIT_NOFILE)[0]))", str(marker)],
    )  # fmt: skip
    assert (status, report) == (0, "")
    assert marker.read_text() == "900 40"


def test_a_parent_gone_before_the_exec_runs_nothing(fresh_build, tmp_path):
    """As the preexec: started for a worker that is no longer its parent, it exits 70."""
    marker = tmp_path / "ran"
    status, report = run_launcher(parent=1, program=["/usr/bin/touch", str(marker)])
    assert (status, report) == (70, "")
    assert not marker.exists()


@pytest.mark.parametrize(
    "steps, told",
    [
        (["rlimit", "7", "x", "64"], "rlimit soft: not a number"),
        (["cgroup", "/no/such/cgroup.procs"], "/no/such/cgroup.procs: No such file or directory"),
        (["fly"], "arguments: fly"),
        (["oom"], "oom score: not a number"),  # it took "--" for the score
    ],
)
def test_a_step_that_fails_is_reported_and_runs_nothing(fresh_build, tmp_path, steps, told):
    marker = tmp_path / "ran"
    status, report = run_launcher(*steps, program=["/usr/bin/touch", str(marker)])
    assert (status, report) == (71, told + "\n")
    assert not marker.exists()


@pytest.mark.parametrize("steps", ["", "python"], ids=["C-launcher", "preexec"])
def test_a_failing_launch_is_the_hosts_error_and_leaves_nothing(monkeypatch, tmp_path, steps):
    """A step that fails (here the /tmp mount, given options the kernel refuses) raises
    SubprocessError at launch, as a preexec's failure always did: the host's trouble, never
    a bot's fault. The slot, cgroup, staged copy and descriptors are given back (no_leaks)."""
    if not sandbox.sandbox_available() or not jail._SCRATCH_BOUNDED:
        pytest.skip("no bounded /tmp here: the launcher mounts nothing")
    monkeypatch.setenv("ARENA_SANDBOX_LAUNCHER", steps)
    monkeypatch.setattr(jail, "scratch_options", lambda limits: b"size=lots")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text("print('never')\n")
    jail._staged_sdk()  # staged once per process and kept: not this launch's to give back
    before = ours_staged()
    with pytest.raises(subprocess.SubprocessError) as raised:
        sandbox.launch(bot, Limits())
    if steps == "":
        message = "the sandbox launcher failed: mounting the sandbox's /tmp: Invalid argument"
        assert str(raised.value) == message
    assert ours_staged() == before


def ours_staged() -> set[str]:
    """This process's staged copies (other test processes stage theirs beside them)."""
    stage = slots.STATE_DIR / "stage"
    prefix = f"bot-{os.getpid()}-"
    return {p.name for p in stage.iterdir() if p.name.startswith(prefix)}
