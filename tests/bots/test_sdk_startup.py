"""The Python SDK's cost at a bot's start-up: nothing beyond the json module it speaks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bots.sandbox import bot_python

SDK = Path(__file__).resolve().parents[2] / "bots" / "sdk"
MODULES = "import json, sys; print(json.dumps(sorted(sys.modules)))"


def modules_after(statement: str) -> set[str]:
    """The modules a bot's interpreter holds after ``statement`` (started as bots are)."""
    out = subprocess.run(
        [bot_python(), "-s", "-B", "-c", f"{statement}\n{MODULES}"],
        cwd=SDK, env={"PYTHONPATH": str(SDK)}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return set(json.loads(out.stdout))


def test_importing_the_sdk_loads_only_what_json_needs():
    # typing is a measurable part of every SDK bot's start (bench/README.md, "tests"); it is
    # for annotations only, which __future__ (a few lines, no imports of its own) keeps from
    # being evaluated.
    added = modules_after("import arena_sdk") - modules_after("import json")
    assert added == {"arena_sdk", "__future__"}
