"""The per-install secret key: made once, whole, and the same for every process."""

from __future__ import annotations

import stat
from pathlib import Path

from arena.install_key import install_key


def test_a_fresh_install_gets_one_private_key_that_stays(tmp_path):
    path = tmp_path / "secret_key"
    key = install_key(path)
    assert len(key) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert install_key(path) == key
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]  # no draft left behind


def test_a_key_already_there_is_read_not_replaced(tmp_path):
    path = tmp_path / "secret_key"
    path.write_text("kept-key\n")
    assert install_key(path) == "kept-key"


def test_a_process_that_loses_the_race_reads_the_winners_key(tmp_path, monkeypatch):
    # Another process makes the key between this one's look and its write.
    path = tmp_path / "secret_key"
    path.write_text("winner")
    monkeypatch.setattr(Path, "exists", lambda self: False if self == path else True)
    assert install_key(path) == "winner"
    assert path.read_text() == "winner"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret_key"]
