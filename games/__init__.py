"""Pure-Python card-game engines. Nothing here imports Django or the apps."""

from games.protocol import Game, IllegalAction, InvalidOptions, Option, State

__all__ = ["Game", "IllegalAction", "InvalidOptions", "Option", "State"]
