"""Punk: the engine, the table arithmetic it plays by and its heuristic policy."""

from games.punk.engine import GAME

__all__ = ["GAME"]
