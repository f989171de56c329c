"""Finds every engine module in ``games/`` (a module defining ``GAME``).

Discovery keeps adding a game to one file: drop ``games/<name>.py`` with a
``GAME = Game(...)`` and it is registered everywhere (API, ``manage.py
play``, conformance tests, bench).
"""

from __future__ import annotations

import importlib
import pkgutil

import games
from games.protocol import Game, InvalidOptions, State


class UnknownGame(LookupError):
    pass


_GAMES: dict[str, Game] | None = None


def _load() -> dict[str, Game]:
    global _GAMES
    if _GAMES is None:
        found: dict[str, Game] = {}
        for info in pkgutil.iter_modules(games.__path__):
            module = importlib.import_module(f"games.{info.name}")
            game = getattr(module, "GAME", None)
            if isinstance(game, Game):
                if game.slug in found:
                    raise RuntimeError(f"two engines claim the slug {game.slug!r}")
                found[game.slug] = game
        _GAMES = dict(sorted(found.items()))
    return _GAMES


def slugs() -> list[str]:
    return list(_load())


def get(slug: str) -> Game:
    try:
        return _load()[slug]
    except (KeyError, TypeError):
        known = ", ".join(_load())
        raise UnknownGame(f"no game {slug!r}; known games: {known}") from None


def all_games() -> list[Game]:
    return list(_load().values())


def replay(record: dict) -> State:
    """Rebuild a state from ``State.to_json()``: same inputs, same moves, same state."""
    game = get(record["game"])
    if record.get("version", game.version) != game.version:
        raise InvalidOptions(
            f"recorded with {game.slug} version {record['version']}, engine is version {game.version}"
        )
    state = game.new_match(
        players=record["players"],
        options=record.get("options"),
        seed=record.get("seed", 0),
        deck=record.get("deck"),
    )
    for move in record.get("moves", []):
        state.apply({int(seat): action for seat, action in move.items()})
    return state
