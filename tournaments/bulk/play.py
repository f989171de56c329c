"""``manage.py play --games N``: many local games on paired deals, then a score with its margin.

Every game of a pairing is dealt from a deal seed; each deal is played once per rotation of
the seats (two seats: the same cards twice, seats swapped; n seats: n rotations, so each bot
sits in each seat once per deal). Game seeds derive from ``--seed`` alone and a game never
depends on another, so the same seed gives the same games whether they run one after the
other or ``--concurrency`` at a time (in separate processes, each single-threaded: a sandbox
is started with ``PR_SET_PDEATHSIG``, which follows the thread that started it).

With two seats the pairing is summarised both ways: games as if independent (cutechess-cli's
W-L-D figures, ``tournaments.stats``) and deals as game pairs (fishtest's pentanomial,
``tournaments.ratings.match``), the honest margin when deals are paired. More seats: rank
counts per bot and, from the first bot's side, each head-to-head by rank.

Pure Python: no Django, so the worker processes start quickly.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from multiprocessing import get_context
from pathlib import Path
from typing import TextIO

from bots import cli
from bots.players import BuiltinPlayer, Player, ProgramPlayer, resolve_player
from bots.runner import Clock, play_match
from bots.sandbox import Limits, SandboxUnavailable
from bots.validation import UploadRejected
from games import registry
from games.protocol import InvalidOptions
from games.rng import derive_seed
from tournaments.bulk.plan import (
    MODES,
    Entrant,
    GameResult,
    Plan,
    Settings,
    pairings,
    schedule,
)
from tournaments.bulk.report import fault_lines, report

__all__ = ["MODES", "Entrant", "GameResult", "Plan", "Settings", "pairings", "schedule", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bulk options, beside bots.cli's."""
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        metavar="N",
        help="play N games per pairing on paired deals with the seats rotated, then print "
        "W-D-L, score, Elo and LOS (rounded up to whole deals)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="games played at once, in separate processes (same results as one at a time)",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--round-robin",
        action="store_true",
        help="every group of --players bots plays --games games (default: the bots given "
        "are the seats)",
    )
    group.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first bot plays --games games against every group of the others",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats per game with --round-robin or --gauntlet (default: the game's minimum, "
        "at least 2)",
    )


def wants_bulk(args: argparse.Namespace) -> bool:
    return args.games is not None or args.round_robin or args.gauntlet


def mode_of(args: argparse.Namespace) -> str:
    return "round-robin" if args.round_robin else "gauntlet" if args.gauntlet else "match"


def prepare(game_slug: str, specs: list[str], limits: Limits | None) -> tuple[list[Entrant], list]:
    """Check and unpack each bot once (as ``play`` does); the players to close at the end."""
    game = registry.get(game_slug)
    entrants, keep = [], []
    seen: Counter[str] = Counter()
    for spec in specs:
        player = resolve_player(spec, game=game, seat=0, seed=0, limits=limits)
        label = player.label
        seen[label] += 1
        if seen[label] > 1:  # "random" twice, or two bot.py from different folders
            label = f"{label}#{seen[label]}"
        if isinstance(player, ProgramPlayer):
            keep.append(player)
            entrants.append(Entrant(spec, label, False, str(player.bot_dir)))
        else:
            entrants.append(Entrant(spec, label, True))
    return entrants, keep


def play_one(plan: Plan, entrants: list[Entrant], settings: Settings) -> GameResult:
    """Play one planned game (in this process or a worker's)."""
    game = registry.get(settings.game)
    players: list[Player] = []
    for seat, who in enumerate(plan.lineup):
        entrant = entrants[who]
        if entrant.builtin:
            players.append(BuiltinPlayer(game, entrant.spec, derive_seed(plan.seed, "seat", seat)))
        else:
            assert entrant.bot_dir is not None
            players.append(ProgramPlayer(Path(entrant.bot_dir), settings.limits, entrant.label))
    outcome = play_match(
        game_slug=settings.game, players=players, options=settings.options, seed=plan.seed,
        clock=settings.clock,
    )  # fmt: skip
    seats = outcome.result["seats"]
    actions = json.dumps([m["actions"] for m in outcome.moves], sort_keys=True)
    return GameResult(
        index=plan.index, pairing=plan.pairing, deal=plan.deal, seed=plan.seed,
        lineup=plan.lineup, ranks=[s["rank"] for s in seats], scores=[s["score"] for s in seats],
        faults=[s["fault"] for s in seats], moves=len(outcome.moves),
        digest=hashlib.sha256(actions.encode()).hexdigest()[:16],
        fault_details=list(outcome.fault_details),
    )  # fmt: skip


class Progress:
    """A progress bar on a stream: redrawn in place on a terminal, a line per tenth otherwise
    (a CI log gets ten lines, not a thousand)."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO | None):
        self.total = total
        self.stream = stream
        self.began = time.monotonic()
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.shown = -1

    def update(self, done: int) -> None:
        if self.stream is None or self.total <= 0:
            return
        step = done * 10 // self.total
        if not self.tty and step == self.shown and done != self.total:
            return
        self.shown = step
        filled = done * self.WIDTH // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        text = f"[{bar}] {done}/{self.total} games  {time.monotonic() - self.began:.0f} s"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if done == self.total else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def run_games(
    plans: list[Plan],
    entrants: list[Entrant],
    settings: Settings,
    *,
    concurrency: int = 1,
    progress: Progress | None = None,
) -> list[GameResult]:
    """Every planned game, in plan order whatever order they finished in."""
    results: list[GameResult | None] = [None] * len(plans)
    if concurrency <= 1:
        for done, plan in enumerate(plans, start=1):
            results[plan.index] = play_one(plan, entrants, settings)
            if progress:
                progress.update(done)
    else:
        # spawn: a fresh interpreter per worker, no inherited threads, locks or descriptors.
        with ProcessPoolExecutor(concurrency, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(play_one, plan, entrants, settings) for plan in plans]
            for done, future in enumerate(as_completed(futures), start=1):
                result = future.result()
                results[result.index] = result
                if progress:
                    progress.update(done)
    return [r for r in results if r is not None]


def run(args: argparse.Namespace, out: TextIO, err: TextIO | None) -> int:
    """Bulk play from the parsed command line; the exit status."""
    fail_on = cli.parse_fail_on(args.fail_on)
    try:
        game = registry.get(args.game)
    except registry.UnknownGame as exc:
        raise cli.PlayError(str(exc)) from None
    mode = mode_of(args)
    if args.games is not None and args.games < 1:
        raise cli.PlayError("--games must be at least 1")
    if args.concurrency < 1:
        raise cli.PlayError("--concurrency must be at least 1")
    if mode == "match":
        if args.players is not None and args.players != len(args.bots):
            raise cli.PlayError("--players needs --round-robin or --gauntlet")
        players = len(args.bots)
    else:
        players = args.players or max(2, game.min_players)
        if len(args.bots) < players:
            raise cli.PlayError(
                f"a {mode} of {players}-player games needs at least {players} bots, "
                f"got {len(args.bots)}"
            )
    options = dict(cli.parse_option(o) for o in args.option)
    try:
        game.check_players(players)
        game.new_match(players=players, options=options, seed=0)
    except InvalidOptions as exc:
        raise cli.PlayError(str(exc)) from None
    games = args.games if args.games is not None else players * 10
    seed = random.randrange(2**31) if args.seed is None else args.seed
    groups = pairings(mode, len(args.bots), players)
    plans = schedule(groups=groups, games=games, seed=seed)
    settings = Settings(
        game=game.slug, options=options, clock=Clock(args.move_ms, args.bank_ms),
        fail_on=fail_on,
    )  # fmt: skip
    try:
        entrants, keep = prepare(game.slug, list(args.bots), None)
    except UploadRejected as exc:
        raise cli.PlayError(f"bot refused: {exc.reason}") from None
    except ValueError as exc:
        raise cli.PlayError(str(exc)) from None
    labels = [e.label for e in entrants]
    per_group = len(plans) // len(groups)
    if err is not None:
        note = f" ({games} rounded up to whole deals)" if per_group != games else ""
        err.write(
            f"{game.slug}: {len(groups)} pairing(s) x {per_group} games{note}, seed {seed}, "
            f"concurrency {args.concurrency}\n"
        )
        err.flush()
    try:
        results = run_games(
            plans, entrants, settings, concurrency=args.concurrency,
            progress=Progress(len(plans), err),
        )  # fmt: skip
    except SandboxUnavailable as exc:
        raise cli.PlayError(str(exc)) from None
    finally:
        for player in keep:
            player.close()
    lines, figures = report(results, groups, labels)
    played = game.resolve_options(options)  # every option, defaults included
    faults, counted = fault_lines(results, entrants, settings)
    if getattr(args, "json", False):
        out.write(
            json.dumps(
                {
                    "game": game.slug,
                    "version": game.version,
                    "seed": seed,
                    "mode": mode,
                    "options": played,
                    "clock": settings.clock.to_dict(),
                    "bots": list(args.bots),
                    "labels": labels,
                    "pairings": figures,
                    "games": [asdict(r) for r in results],
                    "failed": counted > 0,
                },
                indent=1,
            )  # fmt: skip
            + "\n"
        )
    else:
        header = (
            f"{game.slug} v{game.version}  seed {seed}  options {json.dumps(played)}  "
            f"{len(plans)} games ({mode})"
        )
        out.write("\n".join([header, *lines, *faults]) + "\n")
    return cli.EXIT_FAULT if counted else cli.EXIT_OK
