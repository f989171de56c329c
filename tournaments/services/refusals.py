"""Why a tournament's settings are refused, by field, in words that say what to do.

The form and the API show the same messages: the API under ``errors`` (field names as the
API spells them; a game option as ``options.<name>``), the form beside each input. The
formats' and engines' own checks stay the authority: a refusal they raise that is not
foreseen here still refuses, under the format's or the options' field.
"""

from __future__ import annotations

import re
from collections import defaultdict

from django.contrib.auth.models import AbstractBaseUser

from bots.models import Bot
from bots.selectors import current_version
from games import registry
from games.protocol import Game, InvalidOptions
from tournaments import formats
from tournaments.formats import Event
from tournaments.models import Tournament

MAX_MATCHES = 5000
MAX_MOVE_MS = 60_000
MAX_BANK_MS = 600_000
MAX_ROUNDS = 100
MAX_GAMES_PER_PAIRING = 100

FORMAT_NAMES = {
    "round_robin": "A round robin",
    "swiss": "A Swiss event",
    "single_elimination": "Single elimination",
    "double_elimination": "Double elimination",
    "gauntlet": "A gauntlet",
}


class Refusals:
    """Messages by field, in the order found (the form focuses the first)."""

    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = defaultdict(list)

    def add(self, field: str, message: str) -> None:
        self.by_field[field].append(message)

    def __bool__(self) -> bool:
        return bool(self.by_field)

    def __contains__(self, field: str) -> bool:
        return field in self.by_field

    def as_dict(self) -> dict[str, list[str]]:
        return dict(self.by_field)


def _names(bots: list[str]) -> str:
    return ", ".join(bots[:5]) + (f" and {len(bots) - 5} more" if len(bots) > 5 else "")


def players_refusal(engine: Game, players) -> str | None:
    try:
        engine.check_players(players)
    except InvalidOptions:
        low, high = engine.min_players, engine.max_players
        if low == high:
            return f"{engine.title} is played by {low} players: give {low}, or leave it empty"
        return f"{engine.title} is played by {low} to {high} players: give a number from {low} to {high}"
    return None


def option_refusal(engine: Game, exc: InvalidOptions) -> tuple[str, str]:
    """The field and plain words for a refused game option (or combination of them)."""
    option = engine.options.get(exc.option) if exc.option else None
    if option is None:
        return "options", _sentence(str(exc))
    field = f"options.{exc.option}"
    name = exc.option.replace("_", " ").capitalize()
    text = str(exc)
    if "must be bool" in text:
        return field, f"{name} is on or off (true or false)"
    if option.choices is not None and "must be one of" in text:
        allowed = ", ".join(map(str, option.choices))
        return field, f"{name} must be one of {allowed}: pick one of those"
    if "must be int" in text:
        return field, f"{name} must be a whole number"
    if "must be str" in text:
        return field, f"{name} must be text"
    low, high = option.minimum, option.maximum
    if low is not None and high is not None and re.search(rf"at (least {low}|most {high}),", text):
        return field, f"{name} must be from {low} to {high}: give a number in that range"
    if limit := re.search(r"must be at (least|most) (\d+)", text):
        word, bound = limit.groups()
        rest = "or more" if word == "least" else "or fewer"
        return field, f"{name} must be at {word} {bound}: try {bound} {rest}"
    # The engine's own words, led by the option's name as the form labels it.
    prefix = f"option '{exc.option}' "
    if text.startswith(prefix):
        return field, f"{name} {text.removeprefix(prefix)}"
    if text.startswith(exc.option):
        return field, f"{name}{text.removeprefix(exc.option)}"
    return field, f"{name}: {text}"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def entrant_refusals(
    refusals: Refusals,
    *,
    organiser: AbstractBaseUser,
    game: str,
    bot_ids: list[int],
    kept: frozenset[int] = frozenset(),
    pinned: frozenset[int] = frozenset(),
) -> None:
    """The entrants' refusals; ``kept``: bots already entered, whose owners' entry policy
    is not asked again; ``pinned``: bots entered with a version fixed already (a
    competition's frozen one), whose policy and current version are not asked."""
    engine = registry.get(game)
    twice = sorted({b for b in bot_ids if bot_ids.count(b) > 1})
    bots = {bot.pk: bot for bot in Bot.objects.filter(pk__in=bot_ids)}
    if twice:
        named = [bots[b].name if b in bots else f"id {b}" for b in twice]
        refusals.add("bots", f"Each bot may be entered once: {_names(named)} entered twice")
    missing, other_game, closed, inactive = [], [], [], []
    for bot_id in dict.fromkeys(bot_ids):
        bot = bots.get(bot_id)
        if bot is None:
            missing.append(str(bot_id))
        elif bot.game != game:
            other_game.append(f"{bot.name} plays {bot.game}")
        elif bot_id in pinned:
            continue
        elif bot.owner_id != organiser.pk and not bot.accepts_entries and bot_id not in kept:
            closed.append(bot.name)
        elif current_version(bot=bot) is None:
            inactive.append(bot.name)
    if missing:
        refusals.add("bots", f"There is no bot with id {_names(missing)}: leave it out")
    if other_game:
        refusals.add("bots", f"{_names(other_game)}, not {game}: pick only bots of {engine.title}")
    for name in closed:
        refusals.add(
            "bots",
            f"{name}'s owner does not accept entries in other organisers' tournaments: "
            "leave it out, or ask its owner to allow entries",
        )
    for name in inactive:
        refusals.add(
            "bots",
            f"{name} has no active version yet: leave it out, or wait until one passes validation",
        )


def setting_refusals(
    refusals: Refusals,
    *,
    format: str,
    players: int,
    games_per_pairing: int,
    rotate_seats: bool,
    move_ms: int,
    bank_ms: int,
    rounds: int | None,
    record_visibility: str,
    bot_ids: list[int],
    challengers: list[int],
) -> None:
    """Every setting checked alone (and the challengers against the entrants)."""
    if format not in Tournament.Format.values:
        known = ", ".join(Tournament.Format.values)
        refusals.add("format", f"There is no format {format!r}: pick one of {known}")
    if record_visibility not in Tournament.RecordVisibility.values:
        known = ", ".join(Tournament.RecordVisibility.values)
        refusals.add(
            "record_visibility",
            f"There is no record visibility {record_visibility!r}: pick one of {known}",
        )
    if not 1 <= games_per_pairing <= MAX_GAMES_PER_PAIRING:
        refusals.add(
            "games_per_pairing",
            f"Games per pairing must be from 1 to {MAX_GAMES_PER_PAIRING}",
        )
    elif rotate_seats and games_per_pairing % players and "players_per_match" not in refusals:
        lower = max(players, games_per_pairing - games_per_pairing % players)
        tries = sorted({lower, lower + players})
        refusals.add(
            "games_per_pairing",
            f"Games per pairing must be a multiple of {players} when seats rotate (one game "
            f"per seat rotation): try {' or '.join(map(str, tries))}, or leave it empty",
        )
    if not 10 <= move_ms <= MAX_MOVE_MS:
        refusals.add("move_ms", f"Give a move time from 10 to {MAX_MOVE_MS} ms")
    if not 0 <= bank_ms <= MAX_BANK_MS:
        refusals.add("bank_ms", f"Give a time bank from 0 to {MAX_BANK_MS} ms")
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        refusals.add(
            "rounds",
            f"Rounds must be from 1 to {MAX_ROUNDS}, or empty for enough rounds to "
            "separate the field",
        )
    if format == Tournament.Format.GAUNTLET:
        if not challengers:
            refusals.add(
                "challengers",
                "A gauntlet needs at least one challenger: pick the entrants who play "
                "everyone else",
            )
        strangers = [str(c) for c in challengers if c not in bot_ids]
        if strangers:
            names = dict(Bot.objects.filter(pk__in=challengers).values_list("pk", "name"))
            shown = [names.get(int(c), f"id {c}") for c in strangers]
            refusals.add(
                "challengers",
                f"Challengers must be entrants: {_names(shown)} is not among the bots; "
                "enter it too or leave it out",
            )
        if len(set(challengers)) != len(challengers):
            refusals.add("challengers", "Each challenger may be named once")
    elif challengers:
        refusals.add(
            "challengers",
            "Challengers belong to a gauntlet only: pick the gauntlet format, or leave "
            "challengers empty",
        )


def format_refusals(refusals: Refusals, *, format: str, event: Event) -> None:
    """What the format would refuse of this event, said per field: foreseen cases first,
    then the format's own check for anything else."""
    seats, entrants, advance = event.players_per_match, event.entrants, event.advance
    name = FORMAT_NAMES.get(format, format)
    two_seats = format in ("double_elimination", "gauntlet") or (
        format == "single_elimination" and event.third_place
    )
    if two_seats and seats != 2:
        if format == "single_elimination":
            refusals.add(
                "third_place",
                "A series for third place needs two-seat games: untick it, or set players "
                "per match to 2",
            )
        else:
            refusals.add(
                "players_per_match",
                f"{name} plays two-seat games: set players per match to 2, or pick another format",
            )
        return
    least = max(seats, 2)
    if entrants < least:
        words = "two" if least == 2 else str(least)
        why = "" if least == 2 else f": each game seats {seats}"
        refusals.add("bots", f"Pick at least {words} bots{why} (you picked {entrants})")
        return
    if format == "single_elimination":
        if seats == 2 and advance != 1:
            refusals.add(
                "advance", "With two seats one bot goes through each series: leave it at 1"
            )
            return
        if seats > 2 and not 1 <= advance < seats:
            refusals.add(
                "advance",
                f"From 1 to {seats - 1} of each table of {seats} can go through",
            )
            return
        if seats > 2 and (entrants - seats) % (seats - advance):
            step = seats - advance
            fits = [seats + step * k for k in range(4)]
            refusals.add(
                "bots",
                f"With tables of {seats} and {advance} going through each, the field must "
                f"be {', '.join(map(str, fits))}… bots (you picked {entrants}): change the "
                "bots, or how many go through",
            )
            return
    if refusals:
        return  # the format's own check would trip on what is refused already
    try:
        formats.next_matches(format, event, [])
    except ValueError as exc:
        refusals.add("format", f"{name}: {exc}")
