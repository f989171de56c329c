"""Starboard: everyone bets on one shared face-up hand, paying a coin per card
drawn into it; the players who lock with the most cards split the pot.

Rules in docs/rules/pairs-starboard.md.
"""

from __future__ import annotations

from games.pairs.basic_shoe import OpenShoe
from games.pairs.counting import unseen_counts
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng, derive_seed
from games.secret_hands import ChipSession, rotations_option

ANTE = 1
DRAW_PRICE = 1
OPTIONS = {"rotations": rotations_option(3)}

DRAW = "draw"
LOCK = "lock"
# A seat's state within one game. IN and LOCKED seats are still "in" the pot.
IN = "in"
LOCKED = "locked"
BUST = "bust"
KNOCKED_OUT = "knocked_out"
# Heuristic: the chance of pairing above which it stops drawing, higher with
# more players still to act (they are likelier to draw past an early lock).
DRAW_RISK = 0.1
RISK_PER_PLAYER = 0.09
LAST_RISK = 0.5


class StarboardState(ChipSession):
    def setup(self) -> None:
        self.start_session()
        # The first button goes to a random seat; it then moves left every
        # game, so a full session still gives each seat the same share.
        self.session.dealer = Rng(derive_seed(self.seed, "button")).below(self.players)
        self._start_game()

    # -- the course of one game -------------------------------------------
    def _start_game(self) -> None:
        players = self.players
        self.game_events_start = len(self._events)
        # A fresh deck each game: one game draws at most 25 cards (rules page).
        self.shoe = OpenShoe(self.game_rng(), self.game_forced())
        self.hand: list[int] = []
        self.status = [IN] * players
        self.locked_with = [0] * players
        self.ante_all(ANTE)
        first = self.shoe.draw()
        second = self.shoe.draw()
        replaced = []
        while second == first:
            # A pair on the deal: discard the second card and deal another.
            replaced.append(second)
            self.shoe.discard(second)
            second = self.shoe.draw()
        self.hand = [first, second]
        self.button = self.session.dealer
        self.turn = self.button
        self.log(
            {"type": "deal", "hand": list(self.hand), "replaced": replaced, "button": self.button}
        )

    def _draw(self, seat: int) -> None:
        self.pay_pot(seat, DRAW_PRICE)
        card = self.shoe.draw()
        if card in self.hand:
            self.status[seat] = BUST
            self.shoe.discard(card)
            self.log({"type": "bust", "seat": seat, "card": card, "pot": self.pot.chips})
        else:
            self.hand.append(card)
            self.log({"type": "draw", "seat": seat, "card": card, "pot": self.pot.chips})

    def _lock(self, seat: int, auto: bool = False) -> None:
        cards = len(self.hand)
        self.status[seat] = LOCKED
        self.locked_with[seat] = cards
        knocked = [
            other
            for other in range(self.players)
            if self.status[other] == LOCKED and self.locked_with[other] < cards
        ]
        for other in knocked:
            self.status[other] = KNOCKED_OUT
        event = {"type": "lock", "seat": seat, "cards": cards, "knocked_out": knocked}
        if auto:
            event["auto"] = True
        self.log(event)

    def _advance(self, seat: int) -> None:
        status = self.status
        players = self.players
        following = -1
        active = locked = 0
        for step in range(1, players + 1):
            other = (seat + step) % players
            if status[other] == IN:
                active += 1
                if following < 0:
                    following = other
            elif status[other] == LOCKED:
                locked += 1
        if active == 1 and not locked:
            # The only player left locks by rule.
            self._lock(following, auto=True)
        elif active:
            self.turn = following
            return
        self._end_game()

    def _end_game(self) -> None:
        locked = [s for s in range(self.players) if self.status[s] == LOCKED]
        most = max(self.locked_with[s] for s in locked)
        winners = [s for s in locked if self.locked_with[s] == most]
        pot = self.pot.chips
        shares = self.award_pot(winners)
        self.log(
            {
                "type": "win",
                "seats": winners,
                "cards": most,
                "pot": pot,
                "share": shares[winners[0]],
                "carried": self.pot.chips,
            }
        )
        self.shoe.discard(*self.hand)
        self.hand = []
        self.turn = -1
        if self.finish_game(winners=winners, cards=most, pot=pot):
            self._start_game()

    # -- protocol hooks ---------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return (self.turn,) if self.turn >= 0 else ()

    def _legal_actions(self, seat: int) -> list:
        # A game cannot use up the deck (see the rules page); kept for safety.
        shoe = self.shoe
        return [DRAW, LOCK] if len(shoe) or shoe.discards else [LOCK]

    def _default_action(self, seat: int) -> str:
        return LOCK

    def _apply(self, actions: dict) -> None:
        seat = self.turn
        if actions[seat] == DRAW:
            self._draw(seat)
        else:
            self._lock(seat)
        self._advance(seat)

    def _observation(self, seat: int | None) -> dict:
        view = self.session_view()
        discards = sorted(self.shoe.discards)
        view.update(
            {
                "seat": seat,
                "players": self.players,
                "button": self.button,
                "to_act": self.turn if self.turn >= 0 else None,
                "hand": list(self.hand),
                "status": list(self.status),
                "locked_with": [
                    self.locked_with[s] if self.status[s] == LOCKED else None
                    for s in range(self.players)
                ],
                "ante": ANTE,
                "draw_price": DRAW_PRICE,
                "deck_size": len(self.shoe),
                "discards": discards,
                "unseen": unseen_counts(self.hand + discards)[1:],
                "history": self.events(seat, self.game_events_start),
            }
        )
        return view

    def card_count(self) -> int:
        return len(self.shoe) + len(self.shoe.discards) + len(self.hand)

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # Only the draw pile is hidden (from everyone); discards are face up.
        self.shoe.shuffle_unseen(rng)


# -- policies ------------------------------------------------------------------


def heuristic(observation: dict, legal: list, rng: Rng) -> str:
    """Lock when drawing is risky or cannot pay; otherwise draw past the locked players."""
    if len(legal) == 1:
        return legal[0]
    me = observation["seat"]
    hand = observation["hand"]
    unseen = observation["unseen"]
    total = sum(unseen)
    risk = sum(unseen[card - 1] for card in hand) / total if total else 1.0
    status = observation["status"]
    locked = [n for n in observation["locked_with"] if n is not None]
    others_in = [s for s in range(len(status)) if s != me and status[s] == IN]
    if not others_in:
        # Last to act: locking wins (or splits) unless someone locked on as many cards.
        if not locked or max(locked) < len(hand) or risk > LAST_RISK:
            return LOCK
        return DRAW
    return DRAW if risk < DRAW_RISK + RISK_PER_PLAYER * len(others_in) else LOCK


GAME = Game(
    slug="pairs-starboard",
    title="Starboard",
    version=1,
    min_players=2,
    max_players=7,
    state_class=StarboardState,
    summary=(
        "Everyone antes 1 and plays one shared face-up hand that starts with two different "
        "cards. From the button, each player in turn pays 1 to draw a card into the hand, "
        "busting out on a pair, or locks; a lock knocks out players locked on fewer cards. "
        "When everyone has locked or busted, those locked on the most cards split the pot, "
        "odd coins staying for the next pot. A match is a session of games with the button "
        "moving left; seats rank by net chips."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
