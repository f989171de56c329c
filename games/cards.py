"""Decks and draw piles shared by every game.

Notation (fixed by DESIGN.md): Pairs cards are the integers 1-10; standard
cards are two-character strings, rank ``A23456789TJQK`` then suit ``CDHS``.
"""

from __future__ import annotations

from collections import Counter

from games.rng import Rng

RANKS = "A23456789TJQK"
SUITS = "CDHS"


def pairs_deck() -> list[int]:
    """The triangular Pairs deck: one 1, two 2s, ... ten 10s (55 cards)."""
    return [rank for rank in range(1, 11) for _ in range(rank)]


def standard_deck(decks: int = 1) -> list[str]:
    """``decks`` 52-card decks; with two or more, each string repeats."""
    return [r + s for _ in range(decks) for s in SUITS for r in RANKS]


def rank_of(card: str) -> str:
    return card[0]


def suit_of(card: str) -> str:
    return card[1]


def check_forced(forced: list, composition: list) -> None:
    """Refuse a forced deck holding cards the game's deck does not have."""
    missing = Counter(forced) - Counter(composition)
    if missing:
        extra = ", ".join(f"{card!r} x{n}" for card, n in sorted(missing.items(), key=str))
        raise ValueError(f"forced deck has cards the deck does not hold: {extra}")


class Shoe:
    """A face-down draw pile with its discard pile.

    ``forced`` puts those cards on top, in order (top first), with the rest
    of ``composition`` shuffled underneath; tests use it to replay the rule
    books' exact deals. When the pile runs out, ``draw`` reshuffles the
    discards and burns ``burn`` of them face down into the new discard pile
    (Pairs burns five on every shuffle).
    """

    __slots__ = ("_pile", "discards", "rng", "burn", "shuffles")

    def __init__(
        self,
        composition: list,
        rng: Rng,
        forced: list | None = None,
        burn: int = 0,
    ) -> None:
        self.rng = rng
        self.burn = burn
        self.discards: list = []
        self.shuffles = 0
        rest = list(composition)
        if forced:
            check_forced(forced, composition)
            remaining = Counter(composition)
            remaining.subtract(forced)
            rest = []
            for card in composition:
                if remaining[card] > 0:
                    remaining[card] -= 1
                    rest.append(card)
            rng.shuffle(rest)
            # The pile's top is the end of the list.
            self._pile = rest + list(reversed(forced))
        else:
            rng.shuffle(rest)
            self._pile = rest
        self._burn()

    def __len__(self) -> int:
        return len(self._pile)

    def _burn(self) -> None:
        for _ in range(min(self.burn, len(self._pile))):
            self.discards.append(self._pile.pop())

    def reshuffle(self) -> None:
        """Shuffle the discards into a new pile (under nothing: the pile is empty)."""
        cards = self.discards
        self.discards = []
        self.rng.shuffle(cards)
        self._pile = cards + self._pile
        self.shuffles += 1
        self._burn()

    def draw(self):
        """The top card; reshuffles the discards first when the pile is empty.

        Raises ``IndexError`` when pile and discards are both empty: each game
        decides what that means (most cannot reach it).
        """
        if not self._pile:
            self.reshuffle()
            if not self._pile:
                raise IndexError("no cards left to draw")
        return self._pile.pop()

    def peek_count(self) -> int:
        return len(self._pile)

    def discard(self, *cards) -> None:
        self.discards.extend(cards)

    def cards(self) -> list:
        """Every card of the pile, top first (for conservation checks and tests)."""
        return list(reversed(self._pile))

    def to_json(self) -> dict:
        return {"pile": list(self._pile), "discards": list(self.discards)}
