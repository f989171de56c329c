"""Rocket: the casino Pairs game, every player betting head to head against the dealer.

Players hit or fold; the dealer always hits and loses to a pair or any 3. The deal
passes left each round. Rules in docs/rules/pairs-rocket.md.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.policies import random_policy
from games.protocol import Game, Option
from games.rng import Rng
from games.secret_hands import ChipSession, deal_order, rotations_option, shoe_piles

BET_UNIT = 10
DEATH_CARD = 3
# "Reshuffle when approximately 20% remains": checked before each round.
RESHUFFLE_FRACTION = 5
OPTIONS = {
    "decks": Option(1, minimum=1, maximum=8, help="Pairs decks shuffled together in the shoe"),
    "max_bet": Option(
        50, choices=(10, 50, 100), help="the table maximum; bets are multiples of 10 up to it"
    ),
    "button": Option(
        False,
        help="casino rule: the low card starts each round (ties go to the player nearest "
        "the left of the previous button) instead of the dealer's left",
    ),
    "rotations": rotations_option(1),
}

HIT = "hit"
FOLD = "fold"
# A seat's part in one round.
DEALER = "dealer"
IN = "in"
FOLDED = "folded"
PAIRED = "paired"


class RocketState(ChipSession):
    def setup(self) -> None:
        self.start_session()
        decks = self.options["decks"]
        self.deck_size = 55 * decks
        # Lazy: a match draws a few of the shoe's cards between full reshuffles.
        self.shoe = Shoe(pairs_deck() * decks, self.game_rng(), self.forced_deck, lazy=True)
        self._count_pile()
        self.previous_button = -1
        self.bet_choices = list(range(BET_UNIT, self.options["max_bet"] + 1, BET_UNIT))
        self._start_game()

    # -- the shoe ----------------------------------------------------------
    def _count_pile(self) -> None:
        """Copies of each rank in the draw pile (index = rank): public, anyone can count."""
        # Eleven scans in C rather than a Python step per card (index 0 counts no card).
        self.pile_counts = self.shoe.pile_counts(range(11))

    def _full_reshuffle(self) -> None:
        # Everything not in play (the rest of the pile and the discards) goes back in.
        pile, discards = shoe_piles(self.shoe)
        left = len(pile)
        discards.extend(pile)
        pile.clear()
        self.shoe.reshuffle()
        self._count_pile()
        self.log({"type": "shuffle", "cards": len(self.shoe), "left": left, "why": "cut"})

    def can_draw(self) -> bool:
        return len(self.shoe) > 0 or len(self.shoe.discards) > 0

    def _draw(self) -> int:
        shoe = self.shoe
        if not len(shoe):
            # Mid-round the discards alone are shuffled: cards in play stay out.
            shoe.reshuffle()
            self._count_pile()
            self.log({"type": "shuffle", "cards": len(shoe), "left": 0, "why": "empty"})
        card = shoe.draw()
        self.pile_counts[card] -= 1
        return card

    # -- the course of one round -----------------------------------------------
    def _start_game(self) -> None:
        # A round is one game of the session.
        self.game_events_start = len(self._events)
        if self.session.hand:
            # Every round's chance comes from its own stream.
            self.shoe.rng = self.game_rng()
            if len(self.shoe) * RESHUFFLE_FRACTION <= self.deck_size:
                self._full_reshuffle()
        players = self.players
        self.dealer = self.session.dealer
        self.bets = [0] * players
        self.stacks: list[list[int]] = [[] for _ in range(players)]
        self.status = [IN] * players
        self.status[self.dealer] = DEALER
        self.paid = [0] * players
        self.order: list[int] = []
        self.button = -1
        self.turn = -1
        self.phase = "bet"
        self.bettors = tuple(seat for seat in range(players) if seat != self.dealer)

    def _settle(self, payer: int, payee: int, amount: int) -> None:
        self.pay_seat(payer, payee, amount)
        self.paid[payer] -= amount
        self.paid[payee] += amount

    def _deal(self, bets: dict) -> None:
        for seat, bet in bets.items():
            self.bets[seat] = bet
        self.log({"type": "bets", "bets": list(self.bets)})
        dealer = self.dealer
        for seat in deal_order(dealer, self.players):
            card = self._draw()
            self.stacks[seat].append(card)
            self.log({"type": "deal", "seat": seat, "card": card})
        if self.stacks[dealer][0] == DEATH_CARD:
            self._dealer_loses(DEATH_CARD, "death")
            return
        players = self.bettors
        if self.options["button"]:
            low = min(self.stacks[seat][0] for seat in players)
            start = self.previous_button if self.previous_button >= 0 else dealer
            # The lowest card nearest the left of the previous button.
            for step in range(1, self.players + 1):
                seat = (start + step) % self.players
                if seat != dealer and self.stacks[seat][0] == low:
                    break
            first = seat
            self.previous_button = first
        else:
            first = (dealer + 1) % self.players
        self.button = first
        self.order = [
            (first + step) % self.players
            for step in range(self.players)
            if (first + step) % self.players != dealer
        ]
        self.phase = "play"
        self.turn = first
        self.log({"type": "first", "seat": first})

    def _dealer_loses(self, rank: int, why: str) -> None:
        """A pair or a 3: the dealer pays every player still in, rank x bet/10."""
        survivors = [seat for seat in self.bettors if self.status[seat] == IN]
        for seat in survivors:
            self._settle(self.dealer, seat, rank * self.bets[seat] // BET_UNIT)
        self.log({"type": why, "seat": self.dealer, "rank": rank, "paid": survivors})
        self._end_round(why)

    def _player_acts(self, seat: int, action: str) -> None:
        unit = self.bets[seat] // BET_UNIT
        stack = self.stacks[seat]
        if action == FOLD:
            low = min(min(stack), min(self.stacks[self.dealer]))
            self.status[seat] = FOLDED
            self._settle(seat, self.dealer, unit * low)
            self.log({"type": "fold", "seat": seat, "low": low, "amount": unit * low})
            return
        card = self._draw()
        paired = card in stack
        stack.append(card)
        event = {"type": "hit", "seat": seat, "card": card}
        if paired:
            self.status[seat] = PAIRED
            self._settle(seat, self.dealer, unit * card)
            event["pair"] = True
            event["amount"] = unit * card
        self.log(event)

    def _advance(self, actor: int) -> None:
        order = self.order
        status = self.status
        for seat in order[order.index(actor) + 1 :]:
            if status[seat] == IN:
                self.turn = seat
                return
        if not any(status[seat] == IN for seat in order):
            self._end_round("all_out")
            return
        # Every player has acted: the dealer's turn.
        if not self.can_draw():
            self.log({"type": "no_cards"})
            self._end_round("no_cards")
            return
        card = self._draw()
        dealer_stack = self.stacks[self.dealer]
        paired = card in dealer_stack
        dealer_stack.append(card)
        self.log({"type": "dealer_hit", "seat": self.dealer, "card": card})
        if card == DEATH_CARD:
            self._dealer_loses(DEATH_CARD, "death")
        elif paired:
            self._dealer_loses(card, "dealer_pair")
        else:
            self.turn = next(seat for seat in order if status[seat] == IN)

    def _end_round(self, why: str) -> None:
        for seat in range(self.players):
            self.muck(seat)
        self.turn = -1
        self.close_game(dealer=self.dealer, end=why)

    # -- protocol hooks -----------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "play":
            return (self.turn,)
        if self.phase == "bet":
            return self.bettors
        return ()

    def _legal_actions(self, seat: int) -> list:
        if self.phase == "bet":
            return list(self.bet_choices)
        return [HIT, FOLD] if self.can_draw() else [FOLD]

    def _default_action(self, seat: int) -> object:
        return BET_UNIT if self.phase == "bet" else FOLD

    def _apply(self, actions: dict) -> None:
        if self.phase == "bet":
            self._deal(actions)
            return
        seat = self.turn
        self._player_acts(seat, actions[seat])
        self._advance(seat)

    def fold_costs(self) -> list:
        if self.phase != "play":
            return [None] * self.players
        dealer_low = min(self.stacks[self.dealer])
        return [
            self.bets[seat] // BET_UNIT * min(dealer_low, min(self.stacks[seat]))
            if self.status[seat] == IN and seat != self.dealer
            else None
            for seat in range(self.players)
        ]

    def _observation(self, seat: int | None) -> dict:
        view = self.session_view()
        view.update(
            {
                "seat": seat,
                "players": self.players,
                "phase": self.phase,
                "to_act": list(self._to_act()),
                "round_dealer": self.dealer,
                "button": self.button,
                "order": list(self.order),
                "bets": list(self.bets),
                "max_bet": self.options["max_bet"],
                "stacks": [list(stack) for stack in self.stacks],
                "status": list(self.status),
                "fold_costs": self.fold_costs(),
                "round_chips": list(self.paid),
                **self.shoe_view(),
                "shoe_cards": self.deck_size,
                # Copies of ranks 1..10 (index 0 = rank 1) in the draw pile.
                "unseen": self.pile_counts[1:],
                "history": self.events(seat, self.game_events_start),
            }
        )
        return view

    def card_piles(self) -> tuple[list[list[int]], ...]:
        return (self.stacks,)

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # Every card is dealt face up: only the order of the draw pile is unknown.
        rng.shuffle(shoe_piles(self.shoe)[0])


# -- policies ------------------------------------------------------------------


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Bet the table minimum; hit while the expected cost of a hit, less the dealer's
    expected payout on her next card, is below the price of folding."""
    if observation["phase"] == "bet":
        return legal[0]
    if len(legal) == 1:
        return legal[0]
    seat = observation["seat"]
    stacks = observation["stacks"]
    mine = stacks[seat]
    dealer = stacks[observation["round_dealer"]]
    unseen = observation["unseen"]
    total = sum(unseen)
    if not total:
        return FOLD
    ranks = set(mine)
    pair_chance = sum(unseen[r - 1] for r in ranks) / total
    pair_cost = sum(unseen[r - 1] * r for r in ranks) / total
    dealer_ranks = set(dealer) | {DEATH_CARD}
    dealer_pays = sum(unseen[r - 1] * r for r in dealer_ranks) / total
    hit_value = -pair_cost + (1 - pair_chance) * dealer_pays
    fold_value = -min(min(mine), min(dealer))
    return HIT if hit_value >= fold_value else FOLD


GAME = Game(
    slug="pairs-rocket",
    title="Rocket",
    version=1,
    min_players=2,
    max_players=7,
    state_class=RocketState,
    summary=(
        "A casino Pairs game: every player bets a multiple of 10 against the dealer and gets "
        "one face-up card, as does the dealer. In turn each player hits (a pair costs its rank "
        "x bet/10) or folds (paying the lowest card of their stack and the dealer's x bet/10); "
        "then the dealer must hit: a pair, or any 3 (even her first card), pays every player "
        "still in that rank x bet/10. A shoe of 1-8 decks is reshuffled at about 20% left. "
        "The deal passes left each round; seats rank by net chips."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=5000,
)
