"""The logic of ``python manage.py play``: one match on your machine, in the server's sandbox.

::

    python manage.py play pairs mybot.py random random --seed 7 --option continuous=true
    python manage.py play pairs mybot.zip heuristic --json > match.json

Bots are built-in policy names of the game (``random``, ``heuristic``, ...) or paths to a
``.py`` file, a ``.zip`` or a bot folder with ``main.py``; as many bots as players.
What the bots given as files write on stderr is shown after the result (and is in ``--json``).
Exit status: 0, or 1 when a bot given as a file faulted (``--fail-on`` picks the fault kinds
that count), or 2 for a mistake on the command line or a refused bot.
``python -m bots.cli ...`` does the same without Django (one match; bulk play needs
``manage.py play``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import TextIO

from bots.players import FAULT_KINDS, Player, resolve_player
from bots.runner import Clock, MatchOutcome, play_match
from bots.sandbox import Limits, SandboxUnavailable
from bots.validation import UploadRejected
from games import registry
from games.protocol import InvalidOptions

EXIT_OK, EXIT_FAULT, EXIT_ERROR = 0, 1, 2


class PlayError(Exception):
    """A mistake on the command line: unknown game, bad option, wrong number of bots..."""


def parse_fail_on(text: str) -> frozenset[str]:
    """``--fail-on``: "all", "none" or a comma list of fault kinds."""
    words = {w.strip() for w in text.split(",") if w.strip()}
    if words == {"all"}:
        return frozenset(FAULT_KINDS)
    if words == {"none"} or not words:
        return frozenset()
    unknown = sorted(words - set(FAULT_KINDS))
    if unknown:
        raise PlayError(
            f"--fail-on: unknown fault kind(s) {', '.join(unknown)}; "
            f"known: all, none, {', '.join(FAULT_KINDS)}"
        )
    return frozenset(words)


def is_file_bot(spec: str, game_slug: str) -> bool:
    """A bot given as a file or folder, not a built-in policy of the game."""
    try:
        return spec not in registry.get(game_slug).policies
    except registry.UnknownGame:
        return True


def counted_faults(outcome: MatchOutcome, specs: list[str], kinds: frozenset[str]) -> list[int]:
    """Seats of bots given as files whose fault is of one of ``kinds``."""
    return [
        seat
        for seat, fault in sorted(outcome.faults.items())
        if fault["kind"] in kinds and is_file_bot(specs[seat], outcome.game)
    ]


def parse_option(text: str) -> tuple[str, object]:
    """``name=value``; the value is JSON when it parses (``true``, ``3``) and a string otherwise."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise PlayError(f"--option takes name=value, got {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def option_text(value: object) -> str:
    """The text after ``name=`` that :func:`parse_option` reads back as ``value``."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value  # plain text stays plain: gambling=seattle
    return json.dumps(value, separators=(",", ":"))


def play(
    game_slug: str,
    bots: list[str],
    *,
    seed: int | None = None,
    options: list[str] | None = None,
    move_ms: int = 1000,
    bank_ms: int = 10000,
    limits: Limits | None = None,
) -> MatchOutcome:
    try:
        game = registry.get(game_slug)
    except registry.UnknownGame as exc:
        raise PlayError(str(exc)) from None
    parsed = dict(parse_option(o) for o in options or [])
    try:
        game.check_players(len(bots))
        game.new_match(players=len(bots), options=parsed, seed=0)  # checks options early
    except InvalidOptions as exc:
        raise PlayError(
            f"{exc} (one bot per player)" if "players" in str(exc) else str(exc)
        ) from None
    seed = random.randrange(2**31) if seed is None else seed
    players: list[Player] = []
    try:
        for seat, spec in enumerate(bots):
            players.append(resolve_player(spec, game=game, seat=seat, seed=seed, limits=limits))
        return play_match(
            game_slug=game.slug, players=players, options=parsed, seed=seed,
            clock=Clock(move_ms=move_ms, bank_ms=bank_ms),
        )  # fmt: skip
    except UploadRejected as exc:
        raise PlayError(f"bot refused: {exc.reason}") from None
    except (ValueError, SandboxUnavailable) as exc:
        raise PlayError(str(exc)) from None
    finally:
        for player in players:
            player.close()


def summary(outcome: MatchOutcome) -> str:
    """A readable table: seat, bot, score, rank, fault."""
    lines = [
        f"{outcome.game} v{outcome.version}  seed {outcome.seed}  "
        f"options {json.dumps(outcome.options)}  {len(outcome.moves)} moves",
    ]
    seats = outcome.result["seats"]
    width = max(len(s["bot"]) for s in seats)
    lines.append(f"{'seat':>4}  {'bot':<{width}}  {'score':>6}  {'rank':>4}  fault")
    for i, seat in enumerate(seats):
        fault = seat["fault"]
        text = f"{fault['kind']}: {one_line(fault['reason'])}" if fault else "-"
        lines.append(
            f"{i:>4}  {seat['bot']:<{width}}  {seat['score']:>6}  {seat['rank']:>4}  {text}"
        )
    if outcome.result.get("teams"):
        lines.append(f"teams: {outcome.result['teams']}")
    return "\n".join(lines)


def one_line(text: str) -> str:
    """``text`` on one line (a table's row), its runs of whitespace made single spaces."""
    return " ".join(text.split())


def logs_text(outcome: MatchOutcome) -> str:
    """What each program seat wrote on stderr, under a header per seat; then what a
    faulted seat wrote that its log does not end with (the line or action it answered: a
    crash's stderr tail is the end of its log, shown once)."""
    parts = []
    details = outcome.fault_details or [""] * len(outcome.logs)
    for seat, log in enumerate(outcome.logs):
        if log is None:
            continue  # a built-in policy: no program, no log
        label = outcome.players[seat]
        if not log.strip():
            parts.append(f"--- log of seat {seat} ({label}): empty ---")
        else:
            parts.append(f"--- log of seat {seat} ({label}), {len(log.encode())} bytes ---")
            parts.append(log.rstrip("\n"))
        detail = details[seat] if seat < len(details) else ""
        if detail and not log.rstrip().endswith(detail.rstrip()):
            parts.append(f"--- what seat {seat} ({label}) wrote when it faulted ---")
            parts.append(detail.rstrip("\n"))
    return "\n".join(parts)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game slug, e.g. pairs")
    parser.add_argument(
        "bots", nargs="+", help="one per seat: a built-in name or a .py/.zip/folder"
    )
    parser.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option"
    )
    parser.add_argument("--json", action="store_true", help="print the whole match as JSON")
    parser.add_argument("--move-ms", type=int, default=1000, help="free time per move")
    parser.add_argument("--bank-ms", type=int, default=10000, help="time bank per match")
    parser.add_argument(
        "--fail-on",
        default="all",
        metavar="KINDS",
        help="fault kinds of the bots given as files that make the exit status 1: "
        f"all (default), none, or a comma list of {', '.join(FAULT_KINDS)}",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Play one match and print it; the exit status (EXIT_OK or EXIT_FAULT)."""
    kinds = parse_fail_on(args.fail_on)
    outcome = play(
        args.game, args.bots, seed=args.seed, options=args.option,
        move_ms=args.move_ms, bank_ms=args.bank_ms,
    )  # fmt: skip
    if args.json:
        # "bots": the seats as given on the command line, so that `replay` can run them again.
        out.write(json.dumps({**outcome.to_dict(), "bots": list(args.bots)}, indent=1) + "\n")
    else:
        out.write(summary(outcome) + "\n")
        if logs := logs_text(outcome):
            out.write(logs + "\n")
    return EXIT_FAULT if counted_faults(outcome, list(args.bots), kinds) else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.cli", description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args, sys.stdout)
    except PlayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
