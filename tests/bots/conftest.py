"""Fixtures for the bot-running tests: the toy games, bot folders from source, leak checks."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from bots import sandbox
from games import registry
from tests.support import leaks, toygame


@pytest.fixture
def toy_games(monkeypatch):
    """Register the toy games for the duration of a test (they are not in games/); not
    autouse, so the other tests under tests/bots never see them in the registry."""
    games = registry._load()
    monkeypatch.setitem(games, "toy", toygame.GAME)
    monkeypatch.setitem(games, "toy-teams", toygame.TEAM_GAME)


@pytest.fixture
def make_bot(tmp_path):
    """make_bot(source, name="bot", **extra_files) -> a bot folder with main.py."""

    def make(source: str, name: str = "bot", **files: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "main.py").write_text(textwrap.dedent(source))
        for filename, text in files.items():
            (folder / filename).write_text(textwrap.dedent(text))
        return folder

    return make


@pytest.fixture
def no_leaks():
    """Asserts after the test that no sandbox process, child or descriptor was left."""
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    fds_before = set(os.listdir("/proc/self/fd"))
    # Children started before the test (a session's worker, say) are not its leaks, nor are
    # processes some other run left before it started.
    children_before = set(leaks.own_children())
    strays_before = set(leaks.slot_processes())
    yield
    # Only what this process launched: a worker another test process stopped leaves its
    # sandboxes for a moment (tests/support/leaks.py).
    left = leaks.left_here(strays_before)
    assert sandbox.wait_gone(left), f"sandbox processes left: {left}"
    left = set(leaks.own_children()) - children_before
    assert not left, f"child processes left: {sorted(left)}"
    leaked = set(os.listdir("/proc/self/fd")) - fds_before
    assert not leaked, f"descriptors left open: {leaked}"


@pytest.fixture(scope="session")
def repo_reachable_by_others():
    """Tests that drop to an unprivileged uid run this checkout's code and virtualenv as
    that user. A clone under a private folder (mkdtemp's 0700, as a fresh CI clone may
    be) hides both from it, so every folder above them gains search permission (x, not
    read) for the session and gets its own mode back afterwards."""
    import stat
    import sys

    roots = [Path(__file__).resolve().parents[2], Path(sys.prefix).resolve()]
    changed: dict[Path, int] = {}
    for root in roots:
        for folder in [root, *root.parents]:
            mode = stat.S_IMODE(folder.stat().st_mode)
            if folder not in changed and not mode & stat.S_IXOTH:
                changed[folder] = mode
                folder.chmod(mode | stat.S_IXOTH)
    try:
        yield
    finally:
        for folder, mode in changed.items():
            folder.chmod(mode)
