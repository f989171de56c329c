"""The logic of ``python manage.py play``: one match on your machine, in the server's sandbox.

::

    python manage.py play pairs mybot.py random random --seed 7 --option continuous=true
    python manage.py play pairs mybot.zip heuristic --json > match.json

Bots are built-in policy names of the game (``random``, ``heuristic``, ...) or paths to a
``.py`` file, a ``.zip`` or a bot folder with ``main.py``; as many bots as players.
``python -m bots.cli ...`` does the same without Django.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import TextIO

from bots.players import Player, resolve_player
from bots.runner import Clock, MatchOutcome, play_match
from bots.sandbox import Limits, SandboxUnavailable
from bots.validation import UploadRejected
from games import registry
from games.protocol import InvalidOptions


class PlayError(Exception):
    """A mistake on the command line: unknown game, bad option, wrong number of bots..."""


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
        text = f"{fault['kind']}: {fault['reason']}" if fault else "-"
        lines.append(
            f"{i:>4}  {seat['bot']:<{width}}  {seat['score']:>6}  {seat['rank']:>4}  {text}"
        )
    if outcome.result.get("teams"):
        lines.append(f"teams: {outcome.result['teams']}")
    return "\n".join(lines)


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


def run(args: argparse.Namespace, out: TextIO) -> None:
    outcome = play(
        args.game, args.bots, seed=args.seed, options=args.option,
        move_ms=args.move_ms, bank_ms=args.bank_ms,
    )  # fmt: skip
    if args.json:
        out.write(json.dumps(outcome.to_dict(), indent=1) + "\n")
    else:
        out.write(summary(outcome) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.cli", description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        run(args, sys.stdout)
    except PlayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
