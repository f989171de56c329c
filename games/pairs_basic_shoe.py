"""The Pairs draw pile with the bookkeeping the basic game needs.

Besides what ``games.cards.Shoe`` does (burn five on every shuffle), it knows
which discards are face-down burns (hidden from everyone) and which were
seen face up since the last shuffle (public: anyone could have counted them),
and it can shuffle the hidden cards for ``perturb_hidden``.

It also shuffles lazily: each Fisher-Yates step of ``Rng.shuffle`` fixes the
card at the top of the pile, so doing that step just before the card is drawn
gives exactly the order ``Shoe`` gives for the same seed (tests check it),
while never paying for cards that are never drawn.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.rng import Rng

BURN = 5
_TWO64 = 1 << 64
# Rejection limits of ``Rng.below(n)``, precomputed for the deck's sizes.
_LIMITS = [0] + [_TWO64 - (_TWO64 % n) for n in range(1, 129)]


class OutOfCards(IndexError):
    """No card to draw: every card is in play or kept for points."""


class _Deferred:
    """Stands in for the Rng while ``Shoe.__init__`` lays out the pile unshuffled."""

    def __init__(self) -> None:
        self.size = 0

    def shuffle(self, items: list) -> None:
        self.size = len(items)


class PairsShoe(Shoe):
    """A Pairs deck in play: draw pile, burned cards, face-up discards."""

    __slots__ = ("hidden", "seen", "drawn", "shuffled_at", "_unshuffled")

    def __init__(self, rng: Rng, forced: list | None = None) -> None:
        self.seen: list[int] = []
        # Cards drawn so far, and that count at each reshuffle (to log it in place).
        self.drawn = 0
        self.shuffled_at: list[int] = []
        # Shoe lays out forced cards on top of the rest; the rest is shuffled
        # lazily, and the burn waits until the real Rng is in place.
        deferred = _Deferred()
        self._unshuffled = -1
        super().__init__(pairs_deck(), deferred, forced, burn=BURN)
        self.rng = rng
        # Positions [0, _unshuffled) of the pile are still to be shuffled.
        self._unshuffled = deferred.size
        self._burn()
        # The first ``hidden`` discards are this shuffle's face-down burns.
        self.hidden = len(self.discards)

    def _pop(self) -> int:
        """The top card, doing the Fisher-Yates step that settles it first if due."""
        pile = self._pile
        top = len(pile) - 1
        if top < self._unshuffled:
            if top > 0:
                n = top + 1
                limit = _LIMITS[n] if n < len(_LIMITS) else _TWO64 - (_TWO64 % n)
                next_u64 = self.rng.next_u64
                x = next_u64()
                while x >= limit:
                    x = next_u64()
                j = x % n
                pile[top], pile[j] = pile[j], pile[top]
            self._unshuffled = top
        return pile.pop()

    def _settle(self) -> None:
        """Do every pending shuffle step now (same Rng calls, same order)."""
        while self._unshuffled > 0:
            top = self._unshuffled - 1
            card = self._pop_at(top)
            self._pile[top] = card

    def _pop_at(self, index: int) -> int:
        # Settle position ``index`` exactly as _pop would when it is the top.
        pile = self._pile
        if index > 0:
            n = index + 1
            limit = _LIMITS[n] if n < len(_LIMITS) else _TWO64 - (_TWO64 % n)
            x = self.rng.next_u64()
            while x >= limit:
                x = self.rng.next_u64()
            j = x % n
            pile[index], pile[j] = pile[j], pile[index]
        self._unshuffled = index
        return pile[index]

    def _burn(self) -> None:
        if self._unshuffled < 0:
            return  # still inside Shoe.__init__
        for _ in range(min(self.burn, len(self._pile))):
            self.discards.append(self._pop())

    def reshuffle(self) -> None:
        """The discards, shuffled, go under the pile (which is empty when drawing)."""
        self._settle()
        cards = self.discards
        self.discards = []
        self._pile = cards + self._pile
        self._unshuffled = len(cards)
        self.shuffles += 1
        self._burn()
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

    def discard(self, *cards: int) -> None:
        """Cards leaving play face up: public knowledge until the next shuffle."""
        self.discards.extend(cards)
        self.seen.extend(cards)

    def cards(self) -> list:
        self._settle()
        return super().cards()

    def to_json(self) -> dict:
        self._settle()
        return super().to_json()

    def shuffle_unseen(self, rng: Rng) -> None:
        """Shuffle the draw pile together with the burned cards (what nobody can see)."""
        self._settle()
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
