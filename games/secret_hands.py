"""Mechanics shared by the games with secret hands, whatever their deck.

Shuffling exactly the cards a seat cannot see (``redistribute``,
``shoe_piles``) serves every engine's ``perturb_hidden``. The chip games
(the Pairs secret-hand variants and Paiute) are played over a session of
games with a rotating dealer and share ``ChipSession``: net chip stacks, a
pot that keeps odd coins, antes, deals and knock-outs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.cards import Shoe
from games.protocol import InvalidOptions, Option, State
from games.rng import Rng
from games.scoring import Pot, Session, seat_results

# A generous ceiling so a typo cannot start a match that never ends.
MAX_ROTATIONS = 50


def rotations_option(default: int) -> Option:
    """The session length: every seat deals this many games."""
    return Option(
        default,
        minimum=1,
        help="the match lasts this many turns of the deal around the table "
        "(rotations x players games), so every seat deals equally often",
    )


def check_rotations(options: dict) -> None:
    if options["rotations"] > MAX_ROTATIONS:
        raise InvalidOptions(
            f"option 'rotations' must be at most {MAX_ROTATIONS}", option="rotations"
        )


def can_draw(shoe: Shoe) -> bool:
    """Whether ``shoe.draw()`` would give a card (counting the burn on reshuffle)."""
    return len(shoe) > 0 or len(shoe.discards) > shoe.burn


def shoe_piles(shoe: Shoe) -> list[list]:
    """The shoe's face-down piles (draw pile, then discards), for perturbation.

    The draw pile is private to ``Shoe``; perturbation has to reorder it in
    place, and this is the one place that reaches in.
    """
    shoe.settle()  # a lazy shoe's pending shuffle steps must not run on moved cards
    return [shoe._pile, shoe.discards]


def redistribute(rng: Rng, containers: list[list]) -> None:
    """Shuffle every card of ``containers`` among them, in place, keeping each size.

    Sizes are public (a seat can count the cards in another's hand), the
    cards are not: this is the core of every ``perturb_hidden``.
    """
    pool = [card for box in containers for card in box]
    rng.shuffle(pool)
    start = 0
    for box in containers:
        size = len(box)
        box[:] = pool[start : start + size]
        start += size


def next_seat(seat: int, alive: list[bool]) -> int:
    """The first seat still in, strictly to the left of ``seat`` (``seat`` itself if alone)."""
    players = len(alive)
    for step in range(1, players + 1):
        other = (seat + step) % players
        if alive[other]:
            return other
    return seat


def deal_order(dealer: int, players: int) -> tuple[int, ...]:
    """Seats in dealing order: the dealer's left first, the dealer last (made once per
    dealer and table size: every game of every session asks)."""
    order = _DEAL_ORDERS.get((dealer, players))
    if order is None:
        order = tuple((dealer + step) % players for step in range(1, players + 1))
        _DEAL_ORDERS[dealer, players] = order
    return order


_DEAL_ORDERS: dict[tuple[int, int], tuple[int, ...]] = {}


class ChipSession(State):
    """A match made of several chip games: net stacks, the pot, the rotating deal.

    Stacks start at zero and count net winnings (they may go negative: the
    books play for tracking score, not table stakes). ``setup`` starts the
    session and calls the subclass's ``_start_game``; subclasses call
    ``game_rng``/``game_forced`` to shuffle each game, ``finish_game`` (or
    ``close_game``) when the pot clears, and implement ``card_count`` for the
    conservation check.

    The table helpers further down serve the engines that keep a ``shoe``,
    an ``alive`` flag per seat, face-up ``stacks``, a ``phase``, a
    ``_legal_cache`` and ``game_events_start`` (where the game's events
    begin); they name their per-seat card lists in ``card_piles``.
    """

    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        check_rotations(options)

    def setup(self) -> None:
        self.start_session()
        self._start_game()

    def _start_game(self) -> None:
        """Shuffle and deal one game of the session (every chip game defines it)."""
        raise NotImplementedError

    def start_session(self) -> None:
        self.session = Session(self.players, self.seed)
        self.games_total = self.options["rotations"] * self.players
        self.chips = [0] * self.players
        self.pot = Pot()
        self.game_start_chips = list(self.chips)
        self.finished = False

    def game_rng(self) -> Rng:
        return Rng(self.session.hand_seed())

    def game_forced(self) -> list | None:
        """The forced deck applies to the first shuffle of the match only."""
        return self.forced_deck if self.session.hand == 0 else None

    def pay_pot(self, seat: int, amount: int) -> None:
        self.chips[seat] -= amount
        self.pot.add(amount)

    def pay_seat(self, payer: int, payee: int, amount: int) -> None:
        self.chips[payer] -= amount
        self.chips[payee] += amount

    def award_pot(self, winners: list[int]) -> dict[int, int]:
        """Split the pot among ``winners``; odd coins stay for the next game."""
        shares = self.pot.split(winners)
        for seat, share in shares.items():
            self.chips[seat] += share
        return shares

    def finish_game(self, **summary) -> bool:
        """Close the game's books; True when the session goes on to another game."""
        deltas = [now - before for now, before in zip(self.chips, self.game_start_chips)]
        self.session.finish_hand(deltas, **summary)
        self.log({"type": "game_over", "game": self.session.hand - 1, "deltas": deltas, **summary})
        self.game_start_chips = list(self.chips)
        if self.session.hand >= self.games_total:
            self.finished = True
            return False
        return True

    def session_view(self) -> dict:
        """The public session facts every observation carries."""
        return {
            "game": self.session.hand,
            "games": self.games_total,
            "dealer": self.session.dealer,
            "chips": list(self.chips),
            "pot": self.pot.chips,
            "past_games": [dict(h) for h in self.session.hands],
        }

    def card_count(self) -> int:
        """Every card: in the seats' piles (``card_piles``), the shoe and its discards."""
        held = sum(len(box) for pile in self.card_piles() for box in pile)
        return held + len(self.shoe) + len(self.shoe.discards)

    def conserved(self) -> dict[str, int]:
        return {"chips": sum(self.chips) + self.pot.chips, "cards": self.card_count()}

    def _result(self) -> dict:
        return {"seats": seat_results(list(self.chips), chips=list(self.chips))}

    # -- the table: antes, deals, knock-outs, the end of a game -------------
    def card_piles(self) -> tuple[list[list[int]], ...]:
        """Every per-seat list of cards (face-up stacks, secret hands...).

        ``card_count`` counts them; ``muck`` discards a seat's in this order
        (the face-up stack before the hand, in the engines that muck).
        """
        raise NotImplementedError

    def ante_all(self, amount: int) -> None:
        """Every seat antes ``amount`` into the pot."""
        for seat in range(self.players):
            self.pay_pot(seat, amount)
        self.log({"type": "ante", "amount": amount, "pot": self.pot.chips})

    def deal_hands(self, hands: list[list[int]], order: Sequence[int], count: int, **tags) -> None:
        """Deal ``count`` secret cards round ``order``; each seat sees its own hand, sorted.

        ``tags`` go into each public deal event, after its type.
        """
        shoe = self.shoe
        seats = len(order)
        if len(shoe) >= count * seats:
            # The same cards as one draw at a time round the table, settled in one pass.
            cards = shoe.draw_many(count * seats)
            for i, seat in enumerate(order):
                hands[seat].extend(cards[i::seats])
        else:
            for _ in range(count):
                for seat in order:
                    hands[seat].append(shoe.draw())
        for seat in order:
            hands[seat].sort()
            self.log(
                {"type": "deal", **tags, "seat": seat, "count": count},
                {seat: {"cards": list(hands[seat])}},
            )

    def muck(self, seat: int) -> None:
        """Discard every card of ``seat``'s piles (in ``card_piles`` order), emptying them."""
        discard = self.shoe.discard
        for pile in self.card_piles():
            cards = pile[seat]
            if cards:  # often empty: a folded seat's, or a stack never dealt to
                discard(*cards)
            pile[seat] = []

    def knock_out(self, seat: int, amount: int, why: str) -> None:
        """``seat`` pays ``amount`` into the pot and leaves the game; its cards are discarded."""
        self.pay_pot(seat, amount)
        self.alive[seat] = False
        self.muck(seat)
        self.log({"type": why, "seat": seat, "paid": amount, "pot": self.pot.chips})

    def take_pot(self, winner: int) -> int:
        """``winner`` takes the whole pot; the amount."""
        won = self.pot.take_all()
        self.chips[winner] += won
        self.log({"type": "win", "seat": winner, "amount": won})
        return won

    def share_pot(self, winners: list[int]) -> int:
        """``winners`` split the pot (odd coins stay); the pot as it was."""
        pot = self.pot.chips
        shares = self.award_pot(winners)
        self.log(
            {"type": "win", "seats": winners, "shares": {str(s): v for s, v in shares.items()}}
        )
        return pot

    def close_game(self, **summary) -> None:
        """Close the game's books, then deal the next game or end the match."""
        if self.finish_game(**summary):
            self._start_game()
        else:
            self.phase = "over"

    def last_player_wins(self, winner: int) -> None:
        """The last seat in takes the pot and the game ends."""
        won = self.take_pot(winner)
        self.muck(winner)
        self.close_game(winner=winner, pot=won)

    # -- what a seat sees -------------------------------------------------
    def table_view(self, seat: int | None, **facts) -> dict:
        """An observation: session, seat, phase, who acts, then ``facts``, then the events."""
        view = self.session_view()
        view.update(
            {
                "seat": seat,
                "phase": self.phase,
                "to_act": list(self._to_act()),
                **facts,
                "history": self.events(seat, self.game_events_start),
            }
        )
        return view

    def shoe_view(self) -> dict:
        """The public sizes of the shoe: cards left to draw, cards discarded."""
        return {"deck_size": len(self.shoe), "discards": len(self.shoe.discards)}

    def perturb_hidden(self, seat: int | None, rng: Rng) -> ChipSession:
        dup = self.clone()
        dup.shuffle_unseen(seat, rng)
        dup._legal_cache = {}
        return dup

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        """Shuffle, in place, every card ``seat`` cannot see among the places it cannot see."""
        raise NotImplementedError

    def shuffle_hands(
        self,
        seat: int | None,
        rng: Rng,
        hands: list[list[int]],
        *,
        more: Iterable[list] = (),
        sort: bool = True,
    ) -> None:
        """The usual ``shuffle_unseen``: the other seats' ``hands``, ``more``, the shoe's piles.

        With ``sort`` the shuffled hands are sorted again, as they are kept.
        """
        hidden = [hand for other, hand in enumerate(hands) if other != seat]
        redistribute(rng, [*hidden, *more, *shoe_piles(self.shoe)])
        if sort:
            for hand in hidden:
                hand.sort()
