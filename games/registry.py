"""Finds every engine in ``games/``: a module defining ``GAME``.

An engine is a top-level module (``games/stax.py``) or a module of a game
package (``games/pairs/kitty.py``); a package counts as a game package when
its ``__init__`` exports ``GAME``, and only then are its modules searched
(so ``games.adapters``, whose extras may be missing, is never imported).
Drop a module with a ``GAME = Game(...)`` there and it is registered everywhere
(API, ``manage.py play``, conformance tests, bench).
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
            if not info.name.isidentifier():
                continue  # a compiled build (games/native.py), loaded by its own user
            module = importlib.import_module(f"games.{info.name}")
            if not _claim(found, module):
                continue
            if info.ispkg:
                for inner in pkgutil.iter_modules(module.__path__):
                    if inner.name.isidentifier():  # not a compiled build either
                        _claim(found, importlib.import_module(f"{module.__name__}.{inner.name}"))
        _GAMES = dict(sorted(found.items()))
    return _GAMES


def _claim(found: dict[str, Game], module) -> bool:
    """Register ``module.GAME`` if it has one; whether it has one.

    A package's ``__init__`` re-exports one of its modules' ``GAME``: the same
    object seen twice is one engine, two objects with one slug are an error.
    """
    game = getattr(module, "GAME", None)
    if not isinstance(game, Game):
        return False
    known = found.setdefault(game.slug, game)
    if known is not game:
        raise RuntimeError(f"two engines claim the slug {game.slug!r}")
    return True


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


def rebuild(record: dict) -> State:
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


# The name outside code calls (a fixed name of the registry); in this project "replay" is
# what viewers are shown, so the project itself calls ``rebuild``.
replay = rebuild
