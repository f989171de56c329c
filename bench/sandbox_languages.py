"""bench/sandbox.py's third part: each example bot's start, from launch to "ready" (issue 20)."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from bots import sandbox
from bots.players import ProgramPlayer, resolve_player

LANGUAGE_EXAMPLES = {"python": "pairs_cautious.py", "c": "c_pairs", "cpp": "cpp_pairs",
                     "javascript": "js_pairs", "java": "java_pairs"}  # fmt: skip


def bench_languages(count: int) -> list[tuple[str, float, float]]:
    """(language, build seconds or 0, median ms from launch to "ready") per example bot."""
    from games import registry

    examples = Path(__file__).resolve().parents[1] / "examples" / "bots"
    game = registry.get("pairs")
    out = []
    for language, name in LANGUAGE_EXAMPLES.items():
        began = time.perf_counter()
        player = resolve_player(str(examples / name), game=game, seat=0, seed=1)
        built = time.perf_counter() - began if (examples / name / "build.sh").exists() else 0.0
        folder = player.bot_dir
        samples = []
        for _ in range(count):
            seat = ProgramPlayer(folder, sandbox.Limits(), label=language)
            began = time.perf_counter()
            fault = seat.start({"game": "pairs", "seat": 0, "players": 2})
            samples.append(time.perf_counter() - began)
            seat.close()
            if fault is not None:
                sys.exit(f"{language}: {fault.reason}")
        player.close()  # removes the built tree
        out.append((language, built, statistics.median(samples) * 1000))
    return out
