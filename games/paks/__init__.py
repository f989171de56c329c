"""Paks: the engine, its legal moves, its card values and its heuristic policy."""

from games.paks.engine import GAME

__all__ = ["GAME"]
