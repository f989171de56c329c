"""The configurations the adapter tests run: every registered game at every player count
with its defaults, and each game's main option sets (every value of every option, one at
a time, at the fewest players). Slow games get fewer cycles."""

from __future__ import annotations

import pytest

from games import InvalidOptions, registry

# Games whose matches are long or whose observations are big: shorter PettingZoo runs.
SLOW = {"paks", "paiute", "pairs-five-cards", "stax", "pairs-venture", "pairs-troll-guts"}


def configurations(*, variants: bool = True, slow_all_counts: bool = True) -> list:
    """``slow_all_counts=False``: the slow games at their fewest players only."""
    cases = []
    for game in registry.all_games():
        counts = game.player_counts()
        if game.slug in SLOW and not slow_all_counts:
            counts = counts[:1]
        for players in counts:
            cases.append(pytest.param(game.slug, players, {}, id=f"{game.slug}-p{players}"))
        if not variants:
            continue
        for name, option in game.options.items():
            for value in option.allowed_values():
                if value == option.default and type(value) is type(option.default):
                    continue
                options = {name: value}
                players = game.min_players
                try:
                    game.new_match(players=players, options=options, seed=1)
                except InvalidOptions:
                    continue
                cases.append(
                    pytest.param(
                        game.slug, players, options, id=f"{game.slug}-p{players}-{name}={value}"
                    )
                )
    return cases


def cycles(slug: str, fast: int, slow: int) -> int:
    return slow if slug in SLOW else fast
