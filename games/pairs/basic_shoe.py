"""The Pairs draw pile with the bookkeeping the basic game needs.

Besides what ``games.cards.Shoe`` does (burn five on every shuffle), it knows
which discards are face-down burns (hidden from everyone) and which were
seen face up since the last shuffle (public: anyone could have counted them),
and it can shuffle the hidden cards for ``perturb_hidden``.

It shuffles lazily (``Shoe(lazy=True)``): the same order an eager shuffle
gives for the same seed (tests check it), without paying for cards that are
never drawn.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.rng import Rng

BURN = 5


class OutOfCards(IndexError):
    """No card to draw: every card is in play or kept for points."""


class PairsShoe(Shoe):
    """A Pairs deck in play: draw pile, burned cards, face-up discards."""

    __slots__ = ("hidden", "seen", "drawn", "shuffled_at")

    def __init__(self, rng: Rng, forced: list | None = None) -> None:
        self.seen: list[int] = []
        # Cards drawn so far, and that count at each reshuffle (to log it in place).
        self.drawn = 0
        self.shuffled_at: list[int] = []
        super().__init__(pairs_deck(), rng, forced, burn=BURN, lazy=True)
        # The first ``hidden`` discards are this shuffle's face-down burns.
        self.hidden = len(self.discards)

    def reshuffle(self) -> None:
        """The discards, shuffled, go under the pile (which is empty when drawing)."""
        super().reshuffle()
        self.hidden = len(self.discards)
        self.seen = []
        self.shuffled_at.append(self.drawn)

    def draw(self) -> int:
        """The top card, reshuffling the discards first when the pile is empty.

        Raises ``OutOfCards`` when every card is in play or scored.
        """
        if self._pile:
            self.drawn += 1
            return self._pop()
        # When the discards are too few to burn five and still leave a card,
        # burn only what leaves one (decision in docs/rules/pairs.md).
        full = self.burn
        self.burn = max(0, min(full, len(self.discards) - 1))
        try:
            self.reshuffle()
        finally:
            self.burn = full
        if not self._pile:
            raise OutOfCards("every card is in play or scored")
        self.drawn += 1
        return self._pop()

    def draw_many(self, count: int) -> list[int]:
        cards = super().draw_many(count)
        self.drawn += count
        return cards

    def discard(self, *cards: int) -> None:
        """Cards leaving play face up: public knowledge until the next shuffle."""
        self.discards.extend(cards)
        self.seen.extend(cards)

    def shuffle_unseen(self, rng: Rng) -> None:
        """Shuffle the draw pile together with the burned cards (what nobody can see)."""
        self.settle()
        pile = self._pile
        unseen = pile + self.discards[: self.hidden]
        rng.shuffle(unseen)
        self._pile = unseen[: len(pile)]
        self.discards[: self.hidden] = unseen[len(pile) :]

    def unseen_counts(self, visible: list[int]) -> list[int]:
        """Cards per rank (index 0 = rank 1) not in ``visible`` nor seen discarded:
        the draw pile plus the burns, as a player counting cards would know it.
        """
        counts = list(range(1, 11))
        for card in visible:
            counts[card - 1] -= 1
        for card in self.seen:
            counts[card - 1] -= 1
        return counts


class OpenShoe(PairsShoe):
    """A fresh Pairs deck that burns nothing, shuffled lazily like ``PairsShoe``.

    For the games dealt from a new deck every game (Starboard, Blackstone): a
    game uses a handful of cards, so a full shuffle each game would be most of
    a playout's cost.
    """

    __slots__ = ()

    def _burn(self) -> None:
        pass
