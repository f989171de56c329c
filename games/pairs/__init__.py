"""The Pairs family: the basic game, its variants, their shared mechanics and policies.

Every variant module defines its own ``GAME`` (its own slug); the package
exports the basic game's, so ``games.pairs.GAME`` is Pairs itself.
"""

from games.pairs.basic import GAME

__all__ = ["GAME"]
