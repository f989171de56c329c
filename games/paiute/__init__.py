"""Paiute: the engine and the evaluation of its wild-card combinations."""

from games.paiute.engine import GAME

__all__ = ["GAME"]
