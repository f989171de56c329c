"""Forced Paks deals for the rules tests, and short ways to play and read a hand."""

from __future__ import annotations

from games.paks.engine import GAME


def deck(hands: dict[int, list[str]], board: list[str], stock: list[str]) -> list[str]:
    """The forced deck dealing ``hands`` from the first dealer's left, then board and stock."""
    players = len(hands)
    order = [(1 + step) % players for step in range(players)]
    return [hands[seat][i] for i in range(5) for seat in order] + board + stock


def new(hands: dict, board: list[str], stock: list[str], **options):
    return GAME.new_match(len(hands), options, seed=3, deck=deck(hands, board, stock))


def act(state, *actions) -> None:
    for action in actions:
        (seat,) = state.to_act()
        state.apply({seat: action})


def types(state, seat=None) -> list[str]:
    return [event["type"] for event in state.events(seat, state.hand_events_start)]


def after(state, kind: str) -> list[dict]:
    """The public events after the last one of type ``kind``."""
    events = state.events(None)
    last = max(i for i, event in enumerate(events) if event["type"] == kind)
    return events[last + 1 :]
