"""Forced Punk deals for the rules tests: hands dealt round the table from seat 0."""

from __future__ import annotations

from games.punk.engine import GAME

ONE_OF_EACH = [1, 2, 3, 4, 5, 6, 7]


def dealt(hands: list[list[int]]) -> list[int]:
    """The forced deck that deals ``hands`` (equal sizes) round the table from seat 0."""
    return [hand[i] for i in range(len(hands[0])) for hand in hands]


def four_player_game(**options) -> object:
    """Four players, everyone holding one card of each rank."""
    return GAME.new_match(4, options, seed=3, deck=dealt([ONE_OF_EACH] * 4))


def trick_events(state) -> list[dict]:
    return [e for e in state.events(None) if e["type"] == "trick"]
