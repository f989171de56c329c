"""Forced Kitty deals for the rules tests: hands built to order, dealt as the engine deals."""

from __future__ import annotations

from collections import Counter

from games.cards import pairs_deck
from games.pairs.kitty import GAME

KITTY = [8, 5, 9, 7, 10, 6, 4]


def build(players: int, kitty: list[int], fixed: dict[int, list[int]], removed=()) -> tuple:
    """A forced deck: the kitty, the removed cards, then one card at a time from seat 1
    (the first dealer is seat 0). Each hand starts with ``fixed`` and is filled with
    the highest cards left. Returns the deck and the sorted hands.
    """
    size = (55 - len(kitty) - len(removed)) // players
    pool = Counter(pairs_deck())
    pool.subtract(kitty)
    pool.subtract(removed)
    for cards in fixed.values():
        pool.subtract(cards)
    assert min(pool.values()) >= 0, "the fixed cards are not in the deck"
    rest = sorted(pool.elements(), reverse=True)
    hands = {seat: list(fixed.get(seat, [])) for seat in range(players)}
    while rest:
        for seat in range(players):
            if rest and len(hands[seat]) < size:
                hands[seat].append(rest.pop(0))
    order = [(1 + i) % players for i in range(players)]
    deck = list(kitty) + list(removed) + [hands[s][i] for i in range(size) for s in order]
    return deck, {seat: sorted(cards) for seat, cards in hands.items()}


def new(players: int = 4, fixed=None, options=None, kitty=KITTY, removed=(), seed=3):
    deck, hands = build(players, kitty, fixed or {}, removed)
    return GAME.new_match(players, options or {}, seed=seed, deck=deck), hands


def pass_highest(state) -> dict[int, int]:
    moves = {seat: state.hands[seat][-1] for seat in state.to_act()}
    state.apply(moves)
    return moves
