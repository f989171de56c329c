"""Rating pools: which matches are rated together.

A pool is a game, a player count and the options that change play. Continuous
Pairs is not basic Pairs and a 3-seat table is not a 2-seat one, so each gets its
own ratings. The key is a short stable string:

    pairs:2                      the standard configuration (defaults, fewest players)
    pairs:3:continuous=true      only options that differ from their default appear
    pairs-rocket:2:decks=4,max_bet=20

Writing only the options that differ from their defaults keeps a pool's key
stable when a game gains a new option (its default is how the game was played
before), and keeps the standard configuration's key short. Option values are
written as JSON scalars (``true``, ``4``) except strings, which are written bare;
the game's option types read them back.

Options that do not change play for the given configuration are folded to their
default, so they never split a pool (``PLAY_NEUTRAL``). Today every option of
every game changes play except Pairs' ``stake``, which only Tacoma gambling pays.

Pure: no Django. ``tournaments.models`` stores the key; ``parse`` and ``label``
read it back for pages and the API.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from games import registry
from games.protocol import Game, InvalidOptions

# Bare string values: what option choices look like (slugs). Anything else is JSON.
_BARE = re.compile(r"[a-z0-9_-]+")
_KEY = re.compile(r"(?P<game>[a-z0-9-]+):(?P<players>[0-9]{1,2})(?::(?P<options>[^:]*))?")


class InvalidPool(ValueError):
    """A pool key that names no game, a table size it does not take, or unknown options."""


def _pairs_neutral(options: dict) -> dict:
    # The stake is what a Tacoma loser pays; every other rule ignores it.
    if options.get("gambling") != "tacoma":
        options.pop("stake", None)
    return options


# Per game: drop the options that cannot change play given the others.
PLAY_NEUTRAL: dict[str, Callable[[dict], dict]] = {"pairs": _pairs_neutral}


def standard_players(game: Game) -> int:
    """The table size of a game's standard configuration: its smallest, as tournaments default."""
    return game.player_counts()[0] if game.player_counts() else game.min_players


def _play_options(game: Game, players: int, options: dict | None) -> dict:
    """The options that change play and differ from their defaults, checked."""
    try:
        game.check_players(players)
        resolved = game.resolve_options(options)
        game.state_class.check_players_with_options(players, resolved)
    except InvalidOptions as exc:
        raise InvalidPool(str(exc)) from None
    changed = {
        name: value for name, value in resolved.items() if value != game.options[name].default
    }
    neutral = PLAY_NEUTRAL.get(game.slug)
    return neutral(changed) if neutral else changed


def _write(value) -> str:
    if isinstance(value, str) and _BARE.fullmatch(value) and value not in ("true", "false"):
        return value
    return json.dumps(value, separators=(",", ":"))


def pool_key(game: str, players: int, options: dict | None = None) -> str:
    """The pool a match of ``game`` with ``players`` seats and ``options`` is rated in."""
    try:
        engine = registry.get(game)
    except registry.UnknownGame as exc:
        raise InvalidPool(str(exc.args[0])) from None
    changed = _play_options(engine, players, options)
    key = f"{engine.slug}:{players}"
    if changed:
        key += ":" + ",".join(f"{name}={_write(changed[name])}" for name in sorted(changed))
    return key


def default_pool(game: str) -> str:
    """The game's standard configuration: default options at its smallest table."""
    engine = registry.get(game)
    return pool_key(game, standard_players(engine), {})


@dataclass(frozen=True)
class Pool:
    key: str
    game: str
    players: int
    options: dict  # the options that change play and differ from the defaults

    @property
    def label(self) -> str:
        return label(self.key)


def _read(game: Game, name: str, raw: str):
    option = game.options.get(name)
    if option is None:
        raise InvalidPool(f"{game.slug} has no option {name!r}")
    if option.kind is str:
        if raw.startswith('"'):
            try:
                return json.loads(raw)
            except ValueError:
                raise InvalidPool(f"option {name!r} has an unreadable value") from None
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        raise InvalidPool(f"option {name!r} has an unreadable value {raw!r}") from None


def parse(key: str) -> Pool:
    """Read a pool key back; ``InvalidPool`` for anything that is not a canonical key."""
    found = _KEY.fullmatch(key or "")
    if not found:
        raise InvalidPool(f"{key!r} is not a pool key (game:players[:name=value,...])")
    try:
        engine = registry.get(found["game"])
    except registry.UnknownGame as exc:
        raise InvalidPool(str(exc.args[0])) from None
    players = int(found["players"])
    options = {}
    for item in filter(None, (found["options"] or "").split(",")):
        name, sep, raw = item.partition("=")
        if not sep:
            raise InvalidPool(f"option {item!r} needs a value (name=value)")
        options[name] = _read(engine, name, raw)
    canonical = pool_key(engine.slug, players, options)
    if canonical != key:
        raise InvalidPool(f"{key!r} is not canonical; the pool's key is {canonical!r}")
    return Pool(key=key, game=engine.slug, players=players, options=options)


def label(key: str) -> str:
    """A readable name: "Pairs, 3 players, continuous" or "Rocket, 2 players, decks 4"."""
    pool = parse(key)
    engine = registry.get(pool.game)
    parts = [engine.title, f"{pool.players} players"]
    for name in sorted(pool.options):
        value = pool.options[name]
        words = name.replace("_", " ")
        if value is True:
            parts.append(words)
        elif value is False:
            parts.append(f"no {words}")
        else:
            parts.append(f"{words} {value}")
    return ", ".join(parts)


def is_pool_of(key: str, game: str) -> bool:
    return key.split(":", 1)[0] == game
