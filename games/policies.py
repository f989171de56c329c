"""Built-in policies every game gets. A policy is ``(observation, legal, rng) -> action``."""

from __future__ import annotations

from games.rng import Rng


def random_policy(observation: dict, legal: list, rng: Rng):
    """Uniform over the legal actions."""
    return legal[rng.below(len(legal))]
