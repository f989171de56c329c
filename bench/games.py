"""Random-playout speed of every registered game, beside OpenSpiel as a yardstick.

    .venv/bin/python bench/games.py                 # every game and player count, 3 s each
    .venv/bin/python bench/games.py --seconds 1 --games pairs,punk
    .venv/bin/python bench/games.py --one-count     # one row per game (4 players or near)
    .venv/bin/python bench/games.py --no-openspiel
    .venv/bin/python bench/games.py --soak 10000 --games pairs   # matches, over every case

Each engine is driven in this process exactly as a host would drive it, minus
the bots: ``to_act()``, ``legal_actions(seat)``, a uniformly random legal
action per acting seat, ``apply()``. An "action" is one ``apply`` call, the
engine's automatic steps (deals, scoring, reshuffles) included in its cost.

OpenSpiel's ``python_liars_poker`` (a game written in Python on pyspiel's
Python API) is driven the same way in a child process: this interpreter when
the training extras (``make extras``) are installed, else its own virtualenv,
bench/.venv-openspiel, created on first use with ``pip install open-spiel``
(the server never depends on OpenSpiel). If it cannot be installed the bench
says why and goes on, without ratios.

The goal is a ratio, not an absolute figure, so that it holds on any machine:
every game at every player count at least ``GOAL_RATIO`` times OpenSpiel's
actions/s measured in the same run. Each row is played in slices between
slices of OpenSpiel (``interleaved``), and its ratio is the median of each
slice's ratio to the yardstick beside it: on a shared machine whose speed
drifts within a run, a figure measured once before the games could be a third
off by the time a row runs. OpenSpiel alone before and after the games shows
how far the machine drifted.
See bench/README.md for what the figures mean.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import registry  # noqa: E402
from games.rng import Rng  # noqa: E402

# Every engine's random-playout actions/s, at every table size, over OpenSpiel's
# python_liars_poker's in the same run.
GOAL_RATIO = 2.0
# Slices of each row, each between two slices of OpenSpiel's (see ``interleaved``).
SLICES = 4
OPENSPIEL_VENV = ROOT / "bench" / ".venv-openspiel"
OPENSPIEL_GAME = "python_liars_poker"

# Runs inside the OpenSpiel virtualenv for the whole bench: for each budget (CPU seconds)
# read from stdin, plays random matches that long and prints one JSON line.
OPENSPIEL_DRIVER = r"""
import json, random, sys, time
import pyspiel
from open_spiel.python import games  # noqa: F401  (registers the python_* games)

game = pyspiel.load_game(sys.argv[1])
rng = random.Random(1)
for line in sys.stdin:
    budget = float(line)
    actions = chances = matches = 0
    start = time.process_time()
    while time.process_time() - start < budget:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                chances += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                actions += 1
        matches += 1
    elapsed = time.process_time() - start
    print(json.dumps({"actions": actions, "chances": chances, "matches": matches,
                      "seconds": elapsed, "players": game.num_players(),
                      "version": getattr(pyspiel, "__version__", "?")}), flush=True)
"""


def measure(game, players: int, options: dict, budget: float) -> dict:
    """Play random matches for ``budget`` CPU seconds; count apply() calls and matches.

    CPU time, here and for OpenSpiel, so that other work on the machine moves the
    figures less than wall-clock time would (2 shared cores here)."""
    rng = Rng(12345)
    actions = matches = 0
    seed = 0
    start = time.process_time()
    deadline = start + budget
    while True:
        state = game.new_match(players=players, options=options, seed=seed)
        seed += 1
        to_act = state.to_act
        legal_actions = state.legal_actions
        apply = state.apply
        acting = to_act()
        while acting:
            moves = {}
            for seat in acting:
                legal = legal_actions(seat)
                moves[seat] = legal[rng.below(len(legal))]
            apply(moves)
            actions += 1
            acting = to_act()
        matches += 1
        now = time.process_time()
        if now >= deadline:
            break
    elapsed = now - start
    return {
        "actions": actions,
        "matches": matches,
        "seconds": elapsed,
        "actions_per_s": actions / elapsed,
        "matches_per_s": matches / elapsed,
        "actions_per_match": actions / matches,
    }


def option_sets(game) -> list[tuple[str, dict]]:
    """The defaults, then each option changed alone to each of its other values."""
    sets = [("defaults", {})]
    for name, option in game.options.items():
        for value in option.allowed_values():
            if value != option.default:
                sets.append((f"{name}={value}", {name: value}))
    return sets


def soak(game, matches: int) -> None:
    """``matches`` random matches of ``game``, dealt round every (option set, table size).

    Conservation is checked after every action, termination against
    ``max_actions``; any failure raises with the case and seed.
    """
    cases = [
        (label, options, players)
        for label, options in option_sets(game)
        for players in game.player_counts(options)
    ]
    rng = Rng(99)
    start = time.perf_counter()
    actions = longest = 0
    for seed in range(matches):
        label, options, players = cases[seed % len(cases)]
        state = game.new_match(players=players, options=options, seed=seed)
        conserved = state.conserved()
        count = 0
        while not state.is_over():
            moves = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                moves[seat] = legal[rng.below(len(legal))]
            state.apply(moves)
            count += 1
            if state.conserved() != conserved:
                raise AssertionError(f"{game.slug} {label} p{players} seed {seed}: leak")
            if count > game.max_actions:
                raise AssertionError(f"{game.slug} {label} p{players} seed {seed}: endless")
        state.result()
        actions += count
        longest = max(longest, count)
    print(
        f"soak {game.slug:20} {matches} matches ok over {len(cases)} cases "
        f"(option sets x table sizes), {actions:,} actions, longest {longest}, "
        f"conserved {sorted(conserved)}, {time.perf_counter() - start:.1f} s",
        flush=True,
    )


def openspiel_python() -> Path | str:
    """An interpreter that imports pyspiel (this one, with the extras), or why none does."""
    here = subprocess.run([sys.executable, "-c", "import pyspiel"], capture_output=True)
    if here.returncode == 0:
        return Path(sys.executable)
    python = OPENSPIEL_VENV / "bin" / "python"
    if not python.exists():
        print(f"(creating {OPENSPIEL_VENV.relative_to(ROOT)} and installing open-spiel...)")
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(OPENSPIEL_VENV)], capture_output=True, text=True
        )
        if made.returncode != 0:
            return f"could not create the virtualenv: {made.stderr.strip()[-300:]}"
    check = subprocess.run([str(python), "-c", "import pyspiel"], capture_output=True)
    if check.returncode != 0:
        pip = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "open-spiel"],
            capture_output=True,
            text=True,
        )
        if pip.returncode != 0:
            return f"pip install open-spiel failed: {pip.stderr.strip()[-300:]}"
    return python


class OpenSpiel:
    """OpenSpiel's driver in a child process kept for the whole run, asked for a slice of
    random play at a time (pyspiel is imported once)."""

    def __init__(self, python: Path):
        self.child = subprocess.Popen(
            [str(python), "-c", OPENSPIEL_DRIVER, OPENSPIEL_GAME],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": ""},
        )

    def measure(self, budget: float) -> dict | str:
        """OpenSpiel's figures for ``budget`` CPU seconds, or the reason there are none."""
        try:
            self.child.stdin.write(f"{budget}\n")
            self.child.stdin.flush()
            line = self.child.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            return f"the OpenSpiel run failed: {self.child.stderr.read().strip()[-300:]}"
        figures = json.loads(line)
        seconds = figures["seconds"]
        figures["actions_per_s"] = figures["actions"] / seconds
        figures["matches_per_s"] = figures["matches"] / seconds
        figures["actions_per_match"] = figures["actions"] / figures["matches"]
        return figures

    def close(self) -> None:
        self.child.stdin.close()
        self.child.wait(timeout=30)


def interleaved(game, players: int, budget: float, yardstick: OpenSpiel) -> tuple[dict, float]:
    """The game's figures over ``budget`` CPU seconds and its ratio to OpenSpiel, measured
    in SLICES alternating with slices of OpenSpiel's: each slice of the game is compared
    with the yardstick's slices either side of it, and the row's ratio is the median of
    those. A machine whose speed drifts within the run (shared hosts do, by a third or
    more within a minute) moves both sides of each comparison together."""
    part = budget / SLICES  # OpenSpiel's slices as long as the game's
    yard = [yardstick.measure(part)]
    played = []
    for _ in range(SLICES):
        played.append(measure(game, players, {}, part))
        yard.append(yardstick.measure(part))
    if any(isinstance(figures, str) for figures in yard):
        raise RuntimeError(next(figures for figures in yard if isinstance(figures, str)))
    ratios = sorted(
        figures["actions_per_s"] / ((yard[i]["actions_per_s"] + yard[i + 1]["actions_per_s"]) / 2)
        for i, figures in enumerate(played)
    )
    return _total(played), ratios[len(ratios) // 2]


def _total(slices: list[dict]) -> dict:
    actions = sum(f["actions"] for f in slices)
    matches = sum(f["matches"] for f in slices)
    seconds = sum(f["seconds"] for f in slices)
    return {
        "actions": actions,
        "matches": matches,
        "seconds": seconds,
        "actions_per_s": actions / seconds,
        "matches_per_s": matches / seconds,
        "actions_per_match": actions / matches,
    }


def row(name: str, players, figures: dict, ratio: float | None, note: str = "") -> str:
    """One line; with a ratio to the yardstick, whether it meets the goal."""
    if ratio is not None:
        mark = "ok" if ratio >= GOAL_RATIO else "BELOW"
        versus = f"{ratio:>6.2f}x  >={GOAL_RATIO:.1f}x {mark:5}"
    else:
        versus = f"{'':>6}   {'':>6} {'':5}"
    return (
        f"{name:34} {players!s:>3} {figures['actions_per_s']:>11,.0f} "
        f"{figures['matches_per_s']:>10,.1f} {figures['actions_per_match']:>9,.1f} {versus}"
        f"  {note}"
    ).rstrip()


def yardstick_row(figures: dict) -> str:
    note = f"pyspiel {figures['version']}, +{figures['chances']:,} chance moves"
    return row(f"openspiel {OPENSPIEL_GAME}", figures["players"], figures, None, note)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per row")
    parser.add_argument("--games", default="", help="comma-separated slugs (default: all)")
    parser.add_argument(
        "--one-count",
        action="store_true",
        help="one row per game (4 players, or the nearest count it takes), not every count",
    )
    parser.add_argument("--no-openspiel", action="store_true", help="skip the yardstick")
    parser.add_argument(
        "--soak",
        type=int,
        default=0,
        help="N random matches per game, spread over every option set and table size",
    )
    args = parser.parse_args()

    wanted = [slug for slug in args.games.split(",") if slug]
    games = [registry.get(slug) for slug in wanted] if wanted else registry.all_games()
    if args.soak:
        for game in games:
            soak(game, args.soak)
        return 0

    yardstick: OpenSpiel | None = None
    if not args.no_openspiel:
        python = openspiel_python()
        reason = python if isinstance(python, str) else None
        if reason is None:
            yardstick = OpenSpiel(python)
            opening = yardstick.measure(args.seconds)
            if isinstance(opening, str):
                reason, yardstick = opening, None
        if reason is not None:
            print(f"openspiel {OPENSPIEL_GAME}: {reason}; no ratios")

    print(
        f"{'game':34} {'p':>3} {'actions/s':>11} {'matches/s':>10} {'act/match':>9} "
        f"{'ratio':>7} {'goal':>6} {'':5}"
    )
    if yardstick:
        print(yardstick_row(opening) + "  (alone, before the games)")
    slow = []
    for game in games:
        if args.one_count:
            counts = [min(max(4, game.min_players), game.max_players)]
        else:
            counts = game.player_counts()
        for players in counts:
            if yardstick:
                figures, ratio = interleaved(game, players, args.seconds, yardstick)
                if ratio < GOAL_RATIO:
                    slow.append(f"{game.slug} p{players} ({ratio:.2f}x)")
            else:
                figures, ratio = measure(game, players, {}, args.seconds), None
            print(row(game.slug, players, figures, ratio), flush=True)
    if yardstick:
        closing = yardstick.measure(args.seconds)
        yardstick.close()
        if isinstance(closing, dict):
            drift = closing["actions_per_s"] / opening["actions_per_s"] - 1
            print(yardstick_row(closing) + f"  (alone, after the games: {drift:+.0%})")
        if slow:
            print(f"\nbelow {GOAL_RATIO:.1f}x OpenSpiel ({len(slow)}): {', '.join(slow)}")
        else:
            print(f"\nevery row at least {GOAL_RATIO:.1f}x OpenSpiel")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
