"""Punk's arithmetic, free of any game state: the deck and target for a table, the
rounds of a game, the lowest unique card, the tie-break, the keep choices and the
Play-Again target. The engine is games/punk/engine.py; rules in docs/rules/punk.md.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

MIN_TABLE = 3  # two players add the Dummy to make a 3-player table
MAX_PLAYERS = 8  # "any number": 8 keeps an 88-card deck and a match under ~60 actions
TARGET = 21
BIG_TARGET = 28  # with five or more at the table
BIG_TABLE = 5
THREE_PLAYER_RANKS = 7  # the book's table, not its n + 3 formula
PLAY_AGAIN_MARGIN = 10
MAX_GAMES = 10  # Play-Again: the match stops after this many games even with no winner


def table_size(players: int) -> int:
    """Seats at the table: two players play as three with the Dummy."""
    return max(players, MIN_TABLE)


def rank_count(table: int) -> int:
    """Highest rank in play (cards are 1 to this), with ``table`` copies of each."""
    return THREE_PLAYER_RANKS if table == MIN_TABLE else table + 3


def target_for(table: int) -> int:
    return BIG_TARGET if table >= BIG_TABLE else TARGET


def tricks_in_round(table: int, hand_size: int) -> int:
    """One trick per seat, stopping early so everyone keeps at least one card."""
    return min(table, hand_size - 1)


def next_target(target: int, leader: int) -> int:
    """Play-Again: the leader's score + 10, unless the target is already that far off."""
    return max(target, leader + PLAY_AGAIN_MARGIN)


def tiebreak_key(cards: list[int]) -> tuple[int, list[int]]:
    """Order of two results: score, then the highest cards, one by one."""
    return (sum(cards), sorted(cards, reverse=True))


def round_plan(table: int) -> list[dict]:
    """Cards in play, hand size, tricks and face-up surplus of each round (no play needed)."""
    cards = table * rank_count(table)
    hand = rank_count(table)
    plan = []
    while hand >= 2:
        tricks = tricks_in_round(table, hand)
        plan.append(
            {"cards": cards, "hand_size": hand, "tricks": tricks, "surplus": cards - table * hand}
        )
        cards -= tricks
        hand -= 1
    return plan


def sub_multisets(hand: list[int]) -> list[list[int]]:
    """Every way to keep part of ``hand``, smallest first (the canonical keep actions):
    a new list each time, the inner lists shared (read, never changed)."""
    key = tuple(sorted(hand))
    found = _SUBSETS.get(key)
    if found is None:
        counts = sorted(Counter(key).items())
        found = [
            list(kept)
            for kept in sorted(
                (
                    tuple(card for (card, _), n in zip(counts, picks) for _ in range(n))
                    for picks in product(*(range(n + 1) for _, n in counts))
                ),
                key=lambda kept: (len(kept), kept),
            )
        ]
        _SUBSETS[key] = found
    return found[:]


# Keep decisions repeat the same few small hands over and over: remember their subsets.
_SUBSETS: dict[tuple[int, ...], list[list[int]]] = {}


def lowest_unique(plays: list[int]) -> int | None:
    """The lowest card played exactly once, or None."""
    ordered = sorted(plays)
    last = len(ordered) - 1
    for i, card in enumerate(ordered):
        if (i == 0 or ordered[i - 1] != card) and (i == last or ordered[i + 1] != card):
            return card
    return None
