"""Blackstone: Pairs as a game of chicken, where only the 10s (black stones) can pair.

Each player takes at least as many cards as the last, or folds; whoever catches a
second 10 pays for every white stone dealt. Rules in docs/rules/pairs-blackstone.md.
"""

from __future__ import annotations

from math import comb
from operator import sub

from games.cards import pairs_deck
from games.pairs.basic_shoe import BURN, OpenShoe, PairsShoe
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng
from games.secret_hands import ChipSession, deal_order, rotations_option, shoe_piles

ANTE = 5
BLACK = 10
BLACKS_IN_DECK = 10
MAX_PLAYERS = 8
OPTIONS = {"rotations": rotations_option(2)}

FOLD = "fold"
IN = "in"
FOLDED = "folded"
LOST = "lost"
# Heuristic: how much of a share of the pot it counts on when it survives a take
# (later takers may still fold or lose, so a fraction only).
SURVIVAL_WEIGHT = 0.5


class FreshDeck(OpenShoe):
    """``OpenShoe`` without the reshuffle branch: a game never empties the deck (see
    the rules page)."""

    __slots__ = ()

    draw = PairsShoe._pop


# The unforced deck every game starts from, and the bare allocation ``_new_deck`` fills in.
_DECK = tuple(pairs_deck())
_new_fresh_deck = object.__new__
# A new deck settles at once the cards a game mostly uses: one per seat dealt, and
# ``SETTLE_AHEAD`` more for the takes (positions ``_TOP`` down to ``_SETTLED_FROM[players]``).
SETTLE_AHEAD = 10
_TOP = len(_DECK) - 1
_SETTLED_FROM = [len(_DECK) - SETTLE_AHEAD - players for players in range(MAX_PLAYERS + 1)]


def deal_for_first(shoe: PairsShoe, order: tuple[int, ...]) -> tuple[list[list[int]], int]:
    """One card each in ``order``, then more to the seats tied for low until one is lowest;
    the cards by seat, and the seat that starts.

    Unlike basic Pairs, a tie-breaker pairing a seat's card is simply kept (only
    black stones matter). If the pile ever ran dry the first seat still tied in
    deal order would start (a forced deck could reach it, a shuffle hardly).
    """
    dealt = shoe.draw_many(len(order))
    cards: list[list[int]] = [[]] * len(order)
    for seat, card in zip(order, dealt):
        cards[seat] = [card]
    low = min(dealt)
    if dealt.count(low) == 1:
        return cards, order[dealt.index(low)]
    tied = [seat for seat, card in zip(order, dealt) if card == low]
    while len(tied) > 1 and len(shoe) >= len(tied):
        dealt = shoe.draw_many(len(tied))
        for seat, card in zip(tied, dealt):
            cards[seat].append(card)
        low = min(dealt)
        tied = [seat for seat, card in zip(tied, dealt) if card == low]
    return cards, tied[0]


class BlackstoneState(ChipSession):
    # -- the course of one game -------------------------------------------
    def _new_deck(self, rng: Rng) -> FreshDeck:
        """``FreshDeck(rng, self.game_forced())`` without the constructors' calls when no
        deck is forced (every game but a forced match's first): same attributes."""
        forced = self.game_forced()
        if forced:
            return FreshDeck(rng, forced)
        shoe = _new_fresh_deck(FreshDeck)
        shoe.rng = shoe._stepper = rng
        shoe.burn = BURN
        shoe.lazy = True
        shoe.discards = []
        shoe.shuffles = 0
        # The top cards' shuffle steps in one packed run (``Rng.shuffle_steps``): most
        # games use about this many, and settling early draws nothing else from ``rng``
        # (the shoe alone uses it), so the order and the stream are the same.
        shoe._pile = pile = list(_DECK)
        settled_from = _SETTLED_FROM[self.players]
        rng.shuffle_steps(pile, _TOP, settled_from)
        shoe._unshuffled = settled_from
        shoe.seen = []
        shoe.drawn = 0
        shoe.shuffled_at = []
        shoe.hidden = 0
        return shoe

    def _start_game(self) -> None:
        players = self.players
        events = self._events
        self.game_events_start = len(events)
        rng = self.game_rng()
        self.shoe = shoe = self._new_deck(rng)
        self.status = [IN] * players
        self.blacks = blacks = [0] * players
        self.last_take = 0
        self._legal = None
        dealt, first = deal_for_first(shoe, deal_order(self.session.dealer, players))
        extra = whites = 0
        for seat, hand in enumerate(dealt):
            if BLACK in hand:
                tens = hand.count(BLACK)
                blacks[seat] = 1
                extra += tens - 1
                whites += len(hand) - tens
            else:
                whites += len(hand)
        self.whites = whites
        events.append(({"type": "deal", "cards": dealt}, {}))
        if extra:
            # More than one 10 on the deal: the extras go back and the deck is reshuffled.
            shoe.cards()  # settles the lazy shuffle before the pile changes
            shoe_piles(shoe)[0].extend([BLACK] * extra)
            shoe.shuffle_unseen(rng)
            events.append(({"type": "return_tens", "count": extra}, {}))
        self.first = first
        self.turn = first
        self._acting = (first,)
        events.append(({"type": "first", "seat": first, "whites": whites}, {}))

    def fold_cost(self) -> int:
        """Ante plus half the white stones, rounded up."""
        return ANTE + (self.whites + 1) // 2

    def _take(self, seat: int, count: int) -> bool:
        """Reveal up to ``count`` cards for ``seat``; True when it caught a second 10."""
        # Legal takes never pass the deck's size.
        blacks = self.blacks[seat]
        revealed = self.shoe.draw_until(count, BLACK, 2 - blacks)
        tens = revealed.count(BLACK)
        blacks += tens
        self.blacks[seat] = blacks
        self.whites += len(revealed) - tens
        # Cards counted off but never revealed stay face down with the deck.
        self._events.append(({"type": "take", "seat": seat, "count": count, "cards": revealed}, {}))
        return blacks == 2

    def _end_game(self, winners: list[int], end: str, loser: int | None = None) -> None:
        # ``award_pot`` and ``finish_game`` inline (every game ends here): the same
        # split, books and events.
        pot = self.pot
        chips = self.chips
        before = pot.chips
        shares = pot.split(winners)
        for seat, share in shares.items():
            chips[seat] += share
        events = self._events
        events.append(
            (
                {"type": "win", "seats": winners, "pot": before, "shares": list(shares.values())},
                {},
            )
        )
        self.turn = -1
        self._acting = ()
        summary = {"winners": winners, "pot": before, "end": end}
        if loser is not None:
            summary["loser"] = loser
        deltas = list(map(sub, chips, self.game_start_chips))
        session = self.session
        session.finish_hand(deltas, **summary)
        events.append(
            ({"type": "game_over", "game": session.hand - 1, "deltas": deltas, **summary}, {})
        )
        self.game_start_chips = list(chips)
        if session.hand >= self.games_total:
            self.finished = True
        else:
            self._start_game()

    def _next_in(self, seat: int) -> int:
        """``next_seat`` over the seats still in, without building their flags each move."""
        status = self.status
        players = self.players
        for step in range(1, players + 1):
            other = (seat + step) % players
            if status[other] == IN:
                return other
        return seat

    # -- the protocol's reads, without its hook calls (asked on every action); the same
    # answers as State's own.
    def to_act(self) -> tuple[int, ...]:
        return self._acting

    def legal_actions(self, seat: int) -> list:
        if seat in self._acting:
            return self._legal_actions(seat)
        return []

    # -- protocol hooks ---------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        # ``(turn,)`` while a game is on, ``()`` once the match is over.
        return self._acting

    def _legal_actions(self, seat: int) -> list:
        # The same for every seat, and only the seat to act asks: one list per move. It
        # depends on public facts only, so ``perturb_hidden``'s copy may keep it.
        legal = self._legal
        if legal is None:
            least = max(1, self.last_take)
            most = len(self.shoe)
            legal = [*range(least, most + 1), FOLD] if least <= most else [FOLD]
            self._legal = legal
        return legal

    def _default_action(self, seat: int) -> object:
        return FOLD

    def _apply(self, actions: dict) -> None:
        self._legal = None
        seat = self.turn
        action = actions[seat]
        if action == FOLD:
            cost = self.fold_cost()
            self.pay_pot(seat, cost)
            self.status[seat] = FOLDED
            self.log({"type": "fold", "seat": seat, "amount": cost, "pot": self.pot.chips})
            if self.status.count(IN) == 1:
                # The last player left takes the whole pot.
                self._end_game([self.status.index(IN)], end="fold")
            else:
                self.turn = turn = self._next_in(seat)
                self._acting = (turn,)
            return
        if self._take(seat, action):
            cost = ANTE + self.whites
            self.pay_pot(seat, cost)
            self.status[seat] = LOST
            self._events.append(
                ({"type": "lose", "seat": seat, "amount": cost, "pot": self.pot.chips}, {})
            )
            status = self.status
            survivors = [other for other in range(self.players) if status[other] == IN]
            self._end_game(survivors, end="black_pair", loser=seat)
            return
        self.last_take = action
        self.turn = turn = self._next_in(seat)
        self._acting = (turn,)

    def _observation(self, seat: int | None) -> dict:
        view = self.session_view()
        tens_out = sum(self.blacks)
        view.update(
            {
                "seat": seat,
                "players": self.players,
                "to_act": list(self._to_act()),
                "first": self.first,
                "status": list(self.status),
                "blacks": list(self.blacks),
                "whites": self.whites,
                "last_take": self.last_take,
                "ante": ANTE,
                "fold_cost": self.fold_cost(),
                "deck_size": len(self.shoe),
                "tens_in_deck": BLACKS_IN_DECK - tens_out,
                "history": self.events(seat, self.game_events_start),
            }
        )
        return view

    def card_count(self) -> int:
        return len(self.shoe) + len(self.shoe.discards) + self.whites + sum(self.blacks)

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # Every dealt card is face up: only the order of the deck is unknown.
        self.shoe.shuffle_unseen(rng)


# -- policies ------------------------------------------------------------------


def lose_chance(take: int, deck: int, tens: int, blacks: int) -> float:
    """Chance that ``take`` cards from ``deck`` holding ``tens`` give a second black stone."""
    if take > deck:
        return 1.0
    total = comb(deck, take)
    safe = comb(deck - tens, take)
    if blacks == 0:
        safe += tens * comb(deck - tens, take - 1)
    return 1.0 - safe / total


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Take the fewest cards allowed unless the expected loss beats folding."""
    if len(legal) == 1:
        return legal[0]
    seat = observation["seat"]
    take = legal[0]
    deck = observation["deck_size"]
    tens = observation["tens_in_deck"]
    chance = lose_chance(take, deck, tens, observation["blacks"][seat])
    whites = observation["whites"]
    loss = ANTE + whites + take * (deck - tens) / deck
    others = observation["status"].count(IN) - 1
    gain = (observation["pot"] + ANTE + whites) / max(1, others)
    stay = -chance * loss + (1 - chance) * SURVIVAL_WEIGHT * gain
    return take if stay > -observation["fold_cost"] else FOLD


GAME = Game(
    slug="pairs-blackstone",
    title="Blackstone",
    version=1,
    min_players=2,
    max_players=MAX_PLAYERS,
    state_class=BlackstoneState,
    summary=(
        "10s are black stones, every other card a white stone. One card each (ties for low "
        "broken with more cards) decides who starts; players keep only their one 10 and the "
        "white stones go to the centre. In turn each player takes at least as many cards as "
        "the last taker, or folds, paying the 5-coin ante plus half the white stones (rounded "
        "up) into the pot. Catching a second 10 loses: the ante plus a coin per white stone, "
        "and the others still in split the pot. A match is a session of games with the deal "
        "rotating; seats rank by net chips."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=5000,
)
