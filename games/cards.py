"""Decks and draw piles shared by every game.

Notation (docs/engines.md, "Card notation"): Pairs cards are the integers 1-10; standard
cards are two-character strings, rank ``A23456789TJQK`` then suit ``CDHS``.
"""

from __future__ import annotations

from collections import Counter

from games.rng import Rng

RANKS = "A23456789TJQK"
SUITS = "CDHS"


_PAIRS_DECK = tuple(rank for rank in range(1, 11) for _ in range(rank))


def pairs_deck() -> list[int]:
    """The triangular Pairs deck: one 1, two 2s, ... ten 10s (55 cards), a new list."""
    return list(_PAIRS_DECK)


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

    ``lazy=True`` shuffles as cards are drawn: each Fisher-Yates step of
    ``Rng.shuffle`` settles the card on top of the pile, so doing that step just
    before the card is drawn gives exactly the order of an eager shuffle, and a
    game that uses ten cards of a deck pays for ten steps, not the whole deck.
    The same cards come out only if nothing else draws from ``rng`` meanwhile:
    pass ``lazy=True`` only with an Rng the shoe alone uses. A game may give the
    shoe a new ``rng`` for its later reshuffles (a stream per hand): the pending
    steps still draw from the Rng of the shuffle they belong to, as an eager
    shuffle would have.
    """

    __slots__ = ("_pile", "discards", "rng", "burn", "shuffles", "lazy", "_unshuffled", "_stepper")

    def __init__(
        self,
        composition: list,
        rng: Rng,
        forced: list | None = None,
        burn: int = 0,
        lazy: bool = False,
    ) -> None:
        self.rng = rng
        self.burn = burn
        self.lazy = lazy
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
        # Positions [0, _unshuffled) of the pile still wait for their shuffle step, to
        # be drawn from ``_stepper``.
        self._unshuffled = len(rest) if lazy else 0
        self._stepper = rng
        if not lazy:
            rng.shuffle(rest)
        # The pile's top is the end of the list.
        self._pile = rest + list(reversed(forced)) if forced else rest
        self._burn()

    def __len__(self) -> int:
        return len(self._pile)

    def _pop(self):
        """The top card, after the shuffle step that settles it if that is still due."""
        pile = self._pile
        top = len(pile) - 1
        if top < self._unshuffled:
            # The Fisher-Yates step of ``Rng.shuffle`` for position ``top``.
            if top > 0:
                j = self._stepper.below(top + 1)
                pile[top], pile[j] = pile[j], pile[top]
            self._unshuffled = top
        return pile.pop()

    def draw_many(self, count: int) -> list:
        """The top ``count`` cards, top first: ``count`` draws from a pile that holds
        them (the caller checks; no reshuffle here), settled with one call."""
        pile = self._pile
        size = len(pile)
        if count > size:
            raise IndexError("draw_many() past the end of the pile")
        stop = size - count
        if stop < self._unshuffled:
            self._stepper.shuffle_steps(pile, self._unshuffled - 1, stop)
            self._unshuffled = stop
        cards = pile[stop:]
        del pile[stop:]
        cards.reverse()
        return cards

    def draw_until(self, count: int, card, times: int) -> list:
        """Up to ``count`` cards, top first, stopping after the ``times``-th ``card``:
        draws one by one (each settled as ``_pop`` would) from a pile that holds
        ``count`` cards (the caller checks; no reshuffle here)."""
        pile = self._pile
        size = len(pile)
        if count > size:
            raise IndexError("draw_until() past the end of the pile")
        stop = size - count
        unshuffled = self._unshuffled
        # Cards at or above ``unshuffled`` are settled already: only looked at.
        top = size - 1
        while top >= stop and top >= unshuffled:
            if pile[top] == card:
                times -= 1
                if not times:
                    break
            top -= 1
        else:
            if top >= stop:
                top = self._stepper.shuffle_steps_until(pile, top, stop, card, times)
                self._unshuffled = top
            else:
                top = stop
        drawn = pile[top:]
        del pile[top:]
        drawn.reverse()
        return drawn

    def settle(self) -> None:
        """Do every pending shuffle step now (same Rng calls, same order): before
        anything reads or rearranges the pile other than by drawing."""
        if self._unshuffled > 0:
            self._stepper.shuffle_steps(self._pile, self._unshuffled - 1, 0)
            self._unshuffled = 0

    def drop_pending(self) -> None:
        """Draw from the Rng what the pending shuffle steps would, without doing them: for
        a shoe about to be thrown away whose Rng goes on (its pile is left unshuffled)."""
        if self._unshuffled > 0:
            self._stepper.skip_shuffle_steps(self._unshuffled - 1, 0)
            self._unshuffled = 0

    def _burn(self) -> None:
        for _ in range(min(self.burn, len(self._pile))):
            self.discards.append(self._pop())

    def reshuffle(self) -> None:
        """Shuffle the discards into a new pile, under what is left of the old one."""
        self.settle()
        cards = self.discards
        self.discards = []
        if self.lazy:
            self._unshuffled = len(cards)
            self._stepper = self.rng
        else:
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
        return self._pop()

    def pile_counts(self, cards) -> list[int]:
        """How many copies of each of ``cards`` the pile holds: its order does not matter,
        so a lazy pile's pending steps stay pending."""
        return list(map(self._pile.count, cards))

    def peek_count(self) -> int:
        return len(self._pile)

    def discard(self, *cards) -> None:
        self.discards.extend(cards)

    def cards(self) -> list:
        """Every card of the pile, top first (for conservation checks and tests)."""
        self.settle()
        return list(reversed(self._pile))

    def to_json(self) -> dict:
        self.settle()
        return {"pile": list(self._pile), "discards": list(self.discards)}
