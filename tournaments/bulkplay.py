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
import math
import random
import shlex
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from itertools import combinations
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
from tournaments import stats
from tournaments.ratings import match as pairing_stats

MODES = ("match", "round-robin", "gauntlet")


@dataclass(frozen=True)
class Entrant:
    """A bot of the event: a built-in policy, or a program unpacked once into ``bot_dir``."""

    spec: str  # as given on the command line
    label: str  # unique within the event
    builtin: bool
    bot_dir: str | None = None


@dataclass(frozen=True)
class Plan:
    """One game to play: its pairing, deal, seed, and which entrant sits in each seat."""

    index: int
    pairing: int
    deal: int
    rotation: int
    seed: int
    lineup: tuple[int, ...]


@dataclass
class GameResult:
    index: int
    pairing: int
    deal: int
    seed: int
    lineup: tuple[int, ...]
    ranks: list[int]
    scores: list[int]
    faults: list[dict | None]
    moves: int
    digest: str  # of every action played: equal digests, equal games


@dataclass
class Settings:
    game: str
    options: dict
    clock: Clock
    limits: Limits | None = None
    fail_on: frozenset[str] = field(default_factory=frozenset)


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


def pairings(mode: str, bots: int, players: int) -> list[tuple[int, ...]]:
    """The groups of entrants that meet: index tuples, first entrant first."""
    if mode == "match":
        return [tuple(range(bots))]
    if mode == "round-robin":
        return list(combinations(range(bots), players))
    return [(0, *rest) for rest in combinations(range(1, bots), players - 1)]


def schedule(*, groups: list[tuple[int, ...]], games: int, seed: int) -> list[Plan]:
    """Every game: per group, ``ceil(games / seats)`` deals, each played in every rotation.

    Deal d has the same seed in every group, so a round robin is duplicate across pairings
    too. A game's seed is its deal's; the built-in bots' seeds derive from it and the seat,
    as in a single ``play --seed``, so any game can be replayed alone.
    """
    plans = []
    for number, group in enumerate(groups):
        seats = len(group)
        for deal in range(math.ceil(games / seats)):
            deal_seed = derive_seed(seed, "deal", deal) % 2**31
            for rotation in range(seats):
                lineup = tuple(group[(seat + rotation) % seats] for seat in range(seats))
                plans.append(Plan(len(plans), number, deal, rotation, deal_seed, lineup))
    return plans


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


# -- statistics -------------------------------------------------------------------------


def fmt_elo(value: float) -> str:
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}".replace("-0.0", "+0.0")


def fmt_margin(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else "inf"


def head_to_head(
    results: list[GameResult], first: int, second: int
) -> tuple[list[float], list[int]]:
    """``first``'s score against ``second`` per game (by rank), and the pentanomial counts of
    the deals in which both games of a swapped pair were played (two seats only)."""
    scores: list[float] = []
    by_deal: dict[tuple[int, int], list[float]] = defaultdict(list)
    for game in results:
        if first in game.lineup and second in game.lineup:
            a, b = game.lineup.index(first), game.lineup.index(second)
            score = pairing_stats.rank_score(game.ranks[a], game.ranks[b])
            scores.append(score)
            if len(game.lineup) == 2:
                by_deal[(game.pairing, game.deal)].append(score)
    pairs = [(s[0], s[1]) for s in by_deal.values() if len(s) == 2]
    return scores, pairing_stats.pentanomial_counts(pairs) if pairs else []


def pairing_figures(wins: int, draws: int, losses: int, pentanomial: list[int]) -> dict:
    """The figures printed for a head-to-head (the reference vectors' formulas)."""
    games = wins + draws + losses
    trinomial = pairing_stats.trinomial(wins=wins, draws=draws, losses=losses)
    elo, margin = stats.elo_margin(wins, losses, draws)
    figures = {
        "games": games, "wins": wins, "draws": draws, "losses": losses,
        "score": trinomial.score, "score_margin": pairing_stats.Z95 * trinomial.stdev,
        "elo": elo, "elo_margin": margin, "los": stats.los(wins, losses),
    }  # fmt: skip
    if pentanomial:
        paired = pairing_stats.pentanomial(pentanomial)
        figures["pentanomial"] = {
            "counts": list(pentanomial), "pairs": int(paired.units), "elo": paired.elo,
            "elo_margin": paired.margin, "los": paired.los,
        }  # fmt: skip
    return figures


def pairing_lines(first: str, second: str, figures: dict) -> list[str]:
    f = figures
    lines = [
        f"{first} vs {second}: {f['games']} games",
        f"  W-D-L {f['wins']}-{f['draws']}-{f['losses']}   "
        f"score {100 * f['score']:.1f}% +- {100 * f['score_margin']:.1f}%",
        f"  Elo {fmt_elo(f['elo'])} +- {fmt_margin(f['elo_margin'])}   LOS {f['los']:.1f}%"
        "   (games counted as independent)",
    ]
    if p := f.get("pentanomial"):
        counts = "-".join(str(c) for c in p["counts"])
        lines.append(
            f"  Elo {fmt_elo(p['elo'])} +- {fmt_margin(p['elo_margin'])}   LOS {p['los']:.1f}%"
            f"   ({p['pairs']} deal pairs, pentanomial {counts})"
        )
    return lines


def rank_lines(results: list[GameResult], group: tuple[int, ...], labels: list[str]) -> list[str]:
    """Rank counts per bot of a multi-seat group (rank 1 = best; faults rank last)."""
    seats = len(group)
    width = max(len(labels[b]) for b in group)
    header = "  ".join(f"{'#' + str(r):>5}" for r in range(1, seats + 1))
    lines = [f"  {'bot':<{width}}  {header}  mean rank"]
    for bot in group:
        counts = Counter(g.ranks[g.lineup.index(bot)] for g in results if bot in g.lineup)
        total = sum(counts.values())
        mean = sum(r * c for r, c in counts.items()) / total if total else 0.0
        cells = "  ".join(f"{counts.get(r, 0):>5}" for r in range(1, seats + 1))
        lines.append(f"  {labels[bot]:<{width}}  {cells}  {mean:.2f}")
    return lines


def report(
    results: list[GameResult],
    groups: list[tuple[int, ...]],
    labels: list[str],
) -> tuple[list[str], list[dict]]:
    """The printed lines and the figures of every head-to-head."""
    lines: list[str] = []
    figures_list: list[dict] = []
    for number, group in enumerate(groups):
        games = [g for g in results if g.pairing == number]
        if len(group) > 2:
            lines.append(f"{' / '.join(labels[b] for b in group)}: {len(games)} games, ranks")
            lines += rank_lines(games, group, labels)
        first = group[0]
        for other in group[1:]:
            scores, pentanomial = head_to_head(games, first, other)
            wins, draws, losses = pairing_stats.wdl(scores)
            figures = pairing_figures(wins, draws, losses, pentanomial)
            figures_list.append({"bot": labels[first], "opponent": labels[other], **figures})
            lines += pairing_lines(labels[first], labels[other], figures)
    if len(groups) > 1:
        lines += table(results, labels)
    return lines, figures_list


def table(results: list[GameResult], labels: list[str]) -> list[str]:
    """The result table of a round robin or gauntlet: points by rank against each opponent."""
    count = len(labels)
    points = [[0.0] * count for _ in range(count)]
    met = [[0] * count for _ in range(count)]
    for game in results:
        for a, b in combinations(range(len(game.lineup)), 2):
            x, y = game.lineup[a], game.lineup[b]
            score = pairing_stats.rank_score(game.ranks[a], game.ranks[b])
            points[x][y] += score
            points[y][x] += 1 - score
            met[x][y] += 1
            met[y][x] += 1
    order = sorted(range(count), key=lambda i: -sum(points[i]) / max(1, sum(met[i])))
    width = max(len(label) for label in labels)
    lines = ["", "table: score % by rank against each opponent (columns in the rows' order)"]
    lines.append(
        f"  {'#':>2}  {'bot':<{width}}  {'games':>6}  {'score':>6}  "
        + "  ".join(f"{n:>5}" for n in range(1, count + 1))
    )
    for n, bot in enumerate(order, start=1):
        total = sum(met[bot])
        cells = []
        for other in order:
            if other == bot or not met[bot][other]:
                cells.append(f"{'-':>5}")
            else:
                cells.append(f"{100 * points[bot][other] / met[bot][other]:>5.1f}")
        games = sum(1 for g in results if bot in g.lineup)
        score = 100 * sum(points[bot]) / total if total else 0.0
        lines.append(
            f"  {n:>2}  {labels[bot]:<{width}}  {games:>6}  {score:>5.1f}%  " + "  ".join(cells)
        )
    return lines


def replay_command(settings: Settings, entrants: list[Entrant], game: GameResult) -> str:
    """The ``manage.py play`` line that plays this one game again."""
    words = ["python", "manage.py", "play", settings.game]
    words += [entrants[who].spec for who in game.lineup]
    words += ["--seed", str(game.seed)]
    for name, value in sorted(settings.options.items()):
        words += ["--option", f"{name}={cli.option_text(value)}"]
    words += ["--move-ms", str(settings.clock.move_ms), "--bank-ms", str(settings.clock.bank_ms)]
    return shlex.join(words)


def fault_lines(
    results: list[GameResult], entrants: list[Entrant], settings: Settings, shown: int = 3
) -> tuple[list[str], int]:
    """Faults per bot and the first few faulted games with the command that replays each;
    and how many faults of bots given as files are of the kinds that fail the run."""
    kinds: dict[int, Counter[str]] = defaultdict(Counter)
    examples: list[str] = []
    counted = 0
    for game in results:
        for seat, fault in enumerate(game.faults):
            if fault is None:
                continue
            who = game.lineup[seat]
            kinds[who][fault["kind"]] += 1
            if not entrants[who].builtin and fault["kind"] in settings.fail_on:
                counted += 1
            if len(examples) < shown:
                examples.append(
                    f"  game {game.index + 1}, seat {seat} ({entrants[who].label}): "
                    f"{fault['kind']}: {fault['reason']}\n"
                    f"    again: {replay_command(settings, entrants, game)}"
                )
    if not kinds:
        return ["faults: none"], 0
    lines = ["faults:"]
    for who, counter in sorted(kinds.items()):
        detail = ", ".join(f"{kind} {n}" for kind, n in counter.most_common())
        lines.append(f"  {entrants[who].label}: {sum(counter.values())} ({detail})")
    lines.append("first faulted games:")
    lines += examples
    return lines, counted


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
    faults, counted = fault_lines(results, entrants, settings)
    if getattr(args, "json", False):
        out.write(
            json.dumps(
                {
                    "game": game.slug,
                    "version": game.version,
                    "seed": seed,
                    "mode": mode,
                    "options": options,
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
            f"{game.slug} v{game.version}  seed {seed}  options {json.dumps(options)}  "
            f"{len(plans)} games ({mode})"
        )
        out.write("\n".join([header, *lines, *faults]) + "\n")
    return cli.EXIT_FAULT if counted else cli.EXIT_OK
