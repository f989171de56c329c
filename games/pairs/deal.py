"""The deal for low: who starts a Pairs game, from face-up cards dealt round the table."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from games.cards import Shoe


def natural_low(card: int) -> int:
    return card


def _lowest(seats: list[int], stacks: dict[int, list[int]], low_key) -> list[int]:
    low = min(low_key(stacks[seat][-1]) for seat in seats)
    return [seat for seat in seats if low_key(stacks[seat][-1]) == low]


def break_tie_for_low(
    shoe: Shoe,
    tied: list[int],
    stacks: dict[int, list[int]],
) -> tuple[int, list[tuple[int, int, bool]]]:
    """Settle a tie for low among seats that already have face-up cards.

    For games where the first card is chosen from a hand (Hawthorn, Goblin
    Poker) or where identical stacks tie mid-game: each tied seat, in the
    order given (deal order), gets one more face-up card until one new card
    is strictly lowest. A card pairing that seat's stack is discarded and
    replaced, as in ``deal_for_low``. When nothing is left to draw, or every
    card left would pair, the first remaining tied seat in deal order goes
    first (the rule books never reach this; the games that can document it).

    Returns the seat that goes first and the cards dealt, as
    ``(seat, card, discarded_as_pair)`` in deal order.
    """
    dealt: list[tuple[int, int, bool]] = []
    tied = list(tied)
    while len(tied) > 1:
        latest: dict[int, int] = {}
        for seat in tied:
            # Discarded pairs are reshuffled back in: give up once every card
            # left has been tried, or a seat could draw forever.
            tries = len(shoe) + len(shoe.discards)
            while True:
                if tries <= 0:
                    return tied[0], dealt
                tries -= 1
                try:
                    card = shoe.draw()
                except IndexError:
                    return tied[0], dealt
                if card in stacks[seat]:
                    shoe.discard(card)
                    dealt.append((seat, card, True))
                    continue
                stacks[seat].append(card)
                latest[seat] = card
                dealt.append((seat, card, False))
                break
        low = min(latest.values())
        tied = [seat for seat in tied if latest[seat] == low]
    return tied[0], dealt


def deal_for_low(
    shoe: Shoe,
    order: Sequence[int],
    low_key: Callable[[int], int] = natural_low,
) -> tuple[dict[int, list[int]], int, list[tuple[int, int, bool]]]:
    """Deal one face-up card to each seat in ``order`` and find who starts.

    Seats tied for the lowest card (by ``low_key``) get one more card each, in
    deal order, until exactly one tie-breaker is lowest. A tie-breaker that
    pairs a card already in front of that seat is discarded and replaced:
    nobody can be knocked out on the deal. When a tie cannot be broken by cards
    (nothing left to draw, or every card left would pair a tied seat's stack)
    the first seat still tied, in deal order, goes first, as in
    ``break_tie_for_low``: without that stop a session with few cards left to draw
    could loop forever.

    Returns the stacks, the starting seat, and every card dealt as
    ``(seat, card, discarded_as_pair)`` in deal order, for the event log.
    """
    stacks: dict[int, list[int]] = {}
    dealt: list[tuple[int, int, bool]] = []
    draw = shoe.draw
    low = None
    tied: list[int] = []
    # Find the lowest while dealing: this runs once per round of every
    # playout, so it avoids a second pass over the seats.
    for seat in order:
        card = draw()
        stacks[seat] = [card]
        dealt.append((seat, card, False))
        key = low_key(card)
        if low is None or key < low:
            low, tied = key, [seat]
        elif key == low:
            tied.append(seat)
    while len(tied) > 1:
        for seat in tied:
            # Discarded pairs are reshuffled back in: give up once every card
            # left has been tried.
            tries = len(shoe) + len(shoe.discards)
            while True:
                if tries <= 0:
                    return stacks, tied[0], dealt
                tries -= 1
                try:
                    card = shoe.draw()
                except IndexError:
                    return stacks, tied[0], dealt
                if card in stacks[seat]:
                    shoe.discard(card)
                    dealt.append((seat, card, True))
                    continue
                stacks[seat].append(card)
                dealt.append((seat, card, False))
                break
        tied = _lowest(tied, stacks, low_key)
    return stacks, tied[0], dealt
