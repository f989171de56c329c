"""bench/games.py runs on a fresh clone and prints each row's ratio to OpenSpiel measured
beside it (the extras that `make test` installs bring pyspiel)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from games import registry

ROOT = Path(__file__).resolve().parents[2]


def test_the_games_bench_prints_a_ratio_and_its_goal_per_row():
    run = subprocess.run(
        [sys.executable, "bench/games.py", "--seconds", "0.08", "--games", "pairs-five-cards"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("pairs-five-cards")]
    counts = {int(line.split()[1]) for line in rows}
    assert counts == set(registry.get("pairs-five-cards").player_counts())
    for line in rows:
        found = re.search(r"(\d+\.\d\d)x  >=2\.0x (ok|BELOW)", line)
        assert found, line
        assert (float(found.group(1)) >= 2.0) == (found.group(2) == "ok")
    assert "(alone, before the games)" in run.stdout
    assert "(alone, after the games:" in run.stdout
    assert re.search(r"every row at least 2\.0x|below 2\.0x OpenSpiel \(\d+\)", run.stdout)
