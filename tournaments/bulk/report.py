"""The figures and tables printed after a bulk local run: each head-to-head with its Elo
margin (games as independent, and deals as pentanomial pairs), rank counts of multi-seat
groups, the round robin's table, and the faults with a command that plays each game again."""

from __future__ import annotations

import math
import shlex
from collections import Counter, defaultdict
from itertools import combinations

from bots import cli
from tournaments import stats
from tournaments.bulk.plan import Entrant, GameResult, Settings
from tournaments.ratings import match as pairing_stats


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
    """Faults per bot and the first few faulted games, a line each with the command that
    plays it again, then what the bots wrote when they faulted in those games (a crash's
    stderr tail...), each text once; and how many faults of bots given as files are of
    the kinds that fail the run."""
    kinds: dict[int, Counter[str]] = defaultdict(Counter)
    examples: list[str] = []
    # (bot, what it wrote) -> the numbers of the games shown in which it wrote that
    details: dict[tuple[int, str], list[int]] = {}
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
                    f"{fault['kind']}: {cli.one_line(fault['reason'])}\n"
                    f"    again: {replay_command(settings, entrants, game)}"
                )
                written = game.fault_details[seat] if seat < len(game.fault_details) else ""
                if written.strip():
                    details.setdefault((who, written.rstrip("\n")), []).append(game.index + 1)
    if not kinds:
        return ["faults: none"], 0
    lines = ["faults:"]
    for who, counter in sorted(kinds.items()):
        detail = ", ".join(f"{kind} {n}" for kind, n in counter.most_common())
        lines.append(f"  {entrants[who].label}: {sum(counter.values())} ({detail})")
    lines.append("first faulted games:")
    lines += examples
    for (who, written), games in details.items():
        numbers = ", ".join(str(n) for n in games)
        lines.append(
            f"--- what {entrants[who].label} wrote when it faulted"
            f" (game{'s' if len(games) > 1 else ''} {numbers}) ---"
        )
        lines.append(written)
    return lines, counted
