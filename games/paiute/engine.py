"""Paiute: draw and discard toward a six-card combination, then call.

One deck, five cards each, a turned-up card whose rank is wild; after a
call everyone up to the dealer gets one more turn. Rules in docs/rules/paiute.md.
"""

from __future__ import annotations

from collections import Counter

from games.cards import Shoe, rank_of, standard_deck, suit_of
from games.paiute.hands import VALUE, combination, could_call, describe
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option
from games.rng import Rng
from games.scoring import seat_results
from games.secret_hands import (
    MAX_ROTATIONS,
    ChipSession,
    deal_order,
    redistribute,
    rotations_option,
    shoe_piles,
)

HAND_SIZE = 5
MAX_ANTE = 1000
# A deal where nobody has called after this many trips round the table is
# void (see the rules page): the text has no end without a call.
MAX_ROUNDS = 25

OPTIONS = {
    "rotations": rotations_option(1),
    "ante": Option(
        1,
        minimum=0,
        help="chips each player puts in the pot every deal; 0 plays for fun "
        "(the score is then the number of deals won)",
    ),
}

STOCK = "stock"
PILE = "pile"
DISCARD = "discard"
CALL = "call"


class PaiuteState(ChipSession):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        super().check_players_with_options(players, options)
        if options["ante"] > MAX_ANTE:
            raise InvalidOptions(f"option 'ante' must be at most {MAX_ANTE}", option="ante")

    def setup(self) -> None:
        self.start_session()
        self.wins = [0] * self.players
        self._start_game()

    # -- one deal ---------------------------------------------------------
    def _start_game(self) -> None:
        players = self.players
        self.game_events_start = len(self._events)
        self.shoe = Shoe(standard_deck(1), self.game_rng(), self.game_forced())
        self.hands: list[list[str]] = [[] for _ in range(players)]
        # Cards in a hand that every player has seen (taken from the pile, or called).
        self.known: list[list[str]] = [[] for _ in range(players)]
        self.turns_taken = [0] * players
        self.calls: list[dict] = []
        self.best_call: list[int] | None = None
        self.rounds = 0
        self.from_pile: str | None = None
        self._legal_cache: dict[int, list] = {}
        ante = self.options["ante"]
        if ante:
            self.ante_all(ante)
        order = deal_order(self.session.dealer, players)
        self.deal_hands(self.hands, order, HAND_SIZE)
        self.wild_card = self.shoe.draw()
        self.wild = rank_of(self.wild_card)
        first_discard = self.shoe.draw()
        self.shoe.discard(first_discard)
        self.log({"type": "wild", "card": self.wild_card, "rank": self.wild})
        self.log({"type": "upcard", "card": first_discard})
        self.turn = order[0]
        self.phase = "draw"

    def _can_draw_stock(self) -> bool:
        # An empty stock is rebuilt from every discard but the top one.
        return len(self.shoe) > 0 or len(self.shoe.discards) > 1

    def _draw_stock(self) -> str:
        if len(self.shoe) == 0:
            top = self.shoe.discards.pop()
            self.shoe.reshuffle()
            self.shoe.discards = [top]
            self.log({"type": "reshuffle", "stock": len(self.shoe), "top": top})
        return self.shoe.draw()

    def _combination(self, seat: int, cards: list[str]) -> list[int] | None:
        """The combination ``cards`` would call with, if it may be called now."""
        found = combination(cards, self.wild, self.turns_taken[seat] == 0)
        if found is None or (self.best_call is not None and found < self.best_call):
            return None
        return found

    def _remove(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        if card in self.known[seat]:
            self.known[seat].remove(card)

    def _end_turn(self, seat: int) -> None:
        self.turns_taken[seat] += 1
        self.from_pile = None
        if seat == self.session.dealer:
            if self.calls:
                self._settle()
                return
            self.rounds += 1
            if self.rounds >= MAX_ROUNDS:
                self._void()
                return
        self.turn = (seat + 1) % self.players
        self.phase = "draw"

    def _settle(self) -> None:
        best = max(call["combination"] for call in self.calls)
        winners = [call["seat"] for call in self.calls if call["combination"] == best]
        pot = self.pot.chips
        shares = self.award_pot(winners)
        for seat in winners:
            self.wins[seat] += 1
        self.log(
            {
                "type": "win",
                "seats": winners,
                "combination": list(best),
                "name": describe(best),
                "shares": [shares.get(seat, 0) for seat in range(self.players)],
                "pot_left": self.pot.chips,
            }
        )
        self.close_game(winners=winners, pot=pot)

    def _void(self) -> None:
        self.log({"type": "void", "rounds": self.rounds, "pot_left": self.pot.chips})
        self.close_game(winners=[], pot=self.pot.chips)

    # -- protocol hooks -----------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return () if self.phase == "over" else (self.turn,)

    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        if self.phase == "draw":
            legal = [STOCK] if self._can_draw_stock() else []
            if self.shoe.discards:
                legal.append(PILE)
        else:
            hand = self.hands[seat]
            options = [card for card in hand if card != self.from_pile]
            legal = [[DISCARD, card] for card in options]
            five, six = could_call(hand, self.wild)
            if five:
                legal.extend(
                    [CALL, card]
                    for card in options
                    if self._combination(seat, [c for c in hand if c != card]) is not None
                )
            if six and self._combination(seat, hand) is not None:
                legal.append([CALL])
        self._legal_cache[seat] = legal
        return legal

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        seat = self.turn
        action = actions[seat]
        if self.phase == "draw":
            if action == PILE:
                card = self.shoe.discards.pop()
                self.from_pile = card
                self.known[seat].append(card)
                self.log({"type": "draw", "seat": seat, "from": PILE, "card": card})
            else:
                card = self._draw_stock()
                self.log({"type": "draw", "seat": seat, "from": STOCK}, {seat: {"card": card}})
            self.hands[seat].append(card)
            self.hands[seat].sort()
            self.phase = "discard"
            return
        if len(action) == 2:
            card = action[1]
            self._remove(seat, card)
            self.shoe.discard(card)
            self.log({"type": "discard", "seat": seat, "card": card})
        if action[0] == CALL:
            hand = self.hands[seat]
            called = self._combination(seat, hand)
            self.known[seat] = list(hand)
            self.calls.append({"seat": seat, "cards": list(hand), "combination": called})
            self.best_call = called  # never below the call before it
            self.log(
                {
                    "type": "call",
                    "seat": seat,
                    "cards": list(hand),
                    "combination": list(called),
                    "name": describe(called),
                }
            )
        self._end_turn(seat)

    def _observation(self, seat: int | None) -> dict:
        view = self.session_view()
        view.update(
            {
                "seat": seat,
                "phase": self.phase,
                "turn": self.turn,
                "wild_card": self.wild_card,
                "wild_rank": self.wild,
                "pile": list(self.shoe.discards),
                "stock": len(self.shoe),
                "hand_sizes": [len(hand) for hand in self.hands],
                "known": [sorted(cards) for cards in self.known],
                "turns_taken": list(self.turns_taken),
                "calls": [
                    dict(call, cards=list(call["cards"]), combination=list(call["combination"]))
                    for call in self.calls
                ],
                "best_call": list(self.best_call) if self.best_call else None,
                "from_pile": self.from_pile,
                "rounds": self.rounds,
                "max_rounds": MAX_ROUNDS,
                "wins": list(self.wins),
                "history": self.events(seat, self.game_events_start),
            }
        )
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def card_piles(self) -> tuple[list[list[str]], ...]:
        return (self.hands,)

    def card_count(self) -> int:
        return super().card_count() + 1  # + the wild card

    def _result(self) -> dict:
        scores = list(self.chips) if self.options["ante"] else list(self.wins)
        return {"seats": seat_results(scores, chips=list(self.chips), wins=list(self.wins))}

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # The discard pile is face up and the cards taken from it (or called)
        # are known: only the rest of the other hands and the stock are hidden.
        hidden: list[list[str]] = []
        for other, hand in enumerate(self.hands):
            if other != seat:
                # One deck: every card is unique, so membership is enough.
                hidden.append([c for c in hand if c not in self.known[other]])
        redistribute(rng, hidden + [shoe_piles(self.shoe)[0]])
        boxes = iter(hidden)
        for other in range(self.players):
            if other != seat:
                self.hands[other] = sorted(self.known[other] + next(boxes))


# -- policies ------------------------------------------------------------------


def potential(cards: list[str], wild: str) -> float:
    """How close five cards are to a combination (higher is closer)."""
    naturals = [card for card in cards if rank_of(card) != wild]
    wilds = len(cards) - len(naturals)
    counts = sorted(Counter(rank_of(card) for card in naturals).values(), reverse=True)
    kind = wilds + sum(counts[:2])
    flush = 0
    for suit in "CDHS":
        values = {VALUE[rank_of(c)] for c in naturals if suit_of(c) == suit}
        if 14 in values:
            values.add(1)
        for top in range(5, 15):
            flush = max(flush, len(values & set(range(top - 4, top + 1))))
    high = sum(VALUE[rank_of(card)] for card in naturals) / 1000
    return max(kind, flush + wilds) + high


def _best_discard(hand: list[str], wild: str, keep: str | None) -> tuple[float, str]:
    return max(
        (potential([c for c in hand if c != card], wild), card) for card in hand if card != keep
    )


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Call with the best combination at once; otherwise keep the closest five cards."""
    wild = observation["wild_rank"]
    hand = observation["hand"]
    if observation["phase"] == "draw":
        pile = observation["pile"]
        if PILE in legal and pile:
            now = potential(hand, wild)
            taken, _ = _best_discard(hand + [pile[-1]], wild, pile[-1])
            if taken > now + 0.5 or rank_of(pile[-1]) == wild:
                return PILE
        return STOCK if STOCK in legal else PILE
    calls = [action for action in legal if action[0] == CALL]
    if calls:
        paiute_ok = observation["turns_taken"][observation["seat"]] == 0

        def strength(action: list) -> list[int]:
            cards = [c for c in hand if len(action) == 1 or c != action[1]]
            return combination(cards, wild, paiute_ok) or [0]

        return max(calls, key=strength)
    _, card = _best_discard(hand, wild, observation["from_pile"])
    return [DISCARD, card]


GAME = Game(
    slug="paiute",
    title="Paiute",
    # 2: five called cards make only five-card combinations, six only six-card ones.
    version=2,
    min_players=2,
    max_players=5,
    state_class=PaiuteState,
    summary=(
        "Each player antes and gets five cards; a turned-up card makes its rank wild. In "
        "turn you draw from the stock or the discard pile and discard, always changing the "
        "top of the pile. Call when your cards make a combination: five of a kind, royal "
        "flush, straight flush, four/two, three/three, or three pairs on your first turn. "
        "After a call everyone up to the dealer has one more turn and may call with an equal "
        "or better hand; the best call takes the pot. The deal rotates over a session."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    # Every deal ends within MAX_ROUNDS trips round the table of two actions a seat.
    max_actions=MAX_ROTATIONS * 5 * (MAX_ROUNDS * 5 * 2),
)
