"""The Pairs chip games' table: the deal for low, the fold price, the secret-hand view.

``PairsChipSession`` adds to ``ChipSession`` what the Pairs variants played
for chips with face-up ``stacks`` share: who starts (face-up cards dealt for
low, or a tie for low broken with more cards), folding for the lowest card
in play, and, for the engines that keep secret ``hands``, the observation
and the perturbation of those hands.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.pairs.deal import break_tie_for_low, deal_for_low
from games.rng import Rng
from games.secret_hands import ChipSession


class PairsChipSession(ChipSession):
    # The phase in which every seat chooses at once (a secret choice), if the game has one;
    # in phase "play" the seat ``turn`` acts.
    TOGETHER_PHASE: str | None = None

    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "play":
            return (self.turn,)
        if self.phase == self.TOGETHER_PHASE:
            return tuple(range(self.players))
        return ()

    def deal_upcards(self, order: Sequence[int]) -> int:
        """Deal face-up cards for low into ``stacks`` (``deal_for_low``); who goes first."""
        stacks, first, dealt = deal_for_low(self.shoe, order)
        for seat, card, discarded in dealt:
            self.log({"type": "upcard", "seat": seat, "card": card, "discarded": discarded})
        for seat in order:
            self.stacks[seat] = stacks[seat]
        self.log({"type": "first", "seat": first})
        return first

    def first_of_tied(self, tied: list[int]) -> int:
        """Of the seats tied for low (in deal order), the one that goes first.

        A real tie is broken with more face-up cards (``break_tie_for_low``).
        """
        if len(tied) == 1:
            return tied[0]
        stacks = {seat: self.stacks[seat] for seat in tied}
        first, dealt = break_tie_for_low(self.shoe, tied, stacks)
        for seat, card, discarded in dealt:
            self.log({"type": "tiebreak", "seat": seat, "card": card, "discarded": discarded})
        return first

    def fold_price(self) -> int:
        """The lowest face-up card of the seats still in (0 when none shows): what folding costs."""
        alive = self.alive
        price = 0
        for seat, stack in enumerate(self.stacks):
            if stack and alive[seat]:
                low = min(stack)
                # Cards are 1 to 10: 0 means no price yet.
                if low < price or not price:
                    price = low
        return price

    def hand_table_view(self, seat: int | None, **facts) -> dict:
        """``table_view`` with ``facts``, then the table every seat sees, then ``seat``'s hand."""
        view = self.table_view(
            seat,
            **facts,
            alive=list(self.alive),
            stacks=[list(stack) for stack in self.stacks],
            hand_sizes=[len(hand) for hand in self.hands],
            fold_price=self.fold_price(),
            **self.shoe_view(),
        )
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        self.shuffle_hands(seat, rng, self.hands)
