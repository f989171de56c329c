"""Regent: a bluffing game of hidden pairs, for two players or (modern rules) three to six.

Draw, attack, gift, fold or see; catch a pair and get paid. Rules in
docs/rules/pairs-regent.md; the heuristic lives in games/pairs/regent_policy.py.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.pairs.chip_session import PairsChipSession
from games.pairs.regent_policy import heuristic
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng, derive_seed
from games.secret_hands import can_draw, deal_order, next_seat, rotations_option

BURN = 5
DOWN_CARDS = 2
OPTIONS = {"rotations": rotations_option(3)}

DRAW = "draw"
ATTACK = "attack"
GIFT = "gift"
SEE = "see"
FOLD = "fold"


def highest_pair(cards: list[int]) -> int:
    """The rank of the highest pair among ``cards``, 0 when there is none."""
    seen: set[int] = set()
    best = 0
    for card in cards:
        if card in seen and card > best:
            best = card
        seen.add(card)
    return best


class RegentState(PairsChipSession):
    """Two players: each round is one game of the session. Three to six: a game
    runs until one player is left, who takes the fold penalties in the centre.
    """

    def setup(self) -> None:
        self.start_session()
        # One deck for the whole match: the book deals to the bottom and recycles.
        # The shoe's Rng feeds nothing else, so it may shuffle lazily.
        self.shoe = Shoe(
            pairs_deck(),
            Rng(derive_seed(self.seed, "shoe")),
            self.forced_deck,
            burn=BURN,
            lazy=True,
        )
        self.hands: list[list[int]] = [[] for _ in range(self.players)]
        self.stacks: list[list[int]] = [[] for _ in range(self.players)]
        self.duel = self.players == 2
        self._start_game()

    # -- the course of one game -------------------------------------------
    def _start_game(self) -> None:
        self.game_events_start = len(self._events)
        self.alive = [True] * self.players
        self.phase = "play"
        self._legal_cache: dict[int, list] = {}
        order = deal_order(self.session.dealer, self.players)
        self.deal_hands(self.hands, order, DOWN_CARDS)
        self.turn = self.deal_upcards(order)

    def card_piles(self) -> tuple[list[list[int]], ...]:
        return self.stacks, self.hands

    def _knock_out(self, seat: int) -> None:
        """Out without paying the pot: the payment went to a rival already."""
        self.alive[seat] = False
        self.muck(seat)
        self.log({"type": "out", "seat": seat})

    def _end_game(self) -> None:
        survivors = [seat for seat in range(self.players) if self.alive[seat]]
        pot = self.pot.chips
        if pot:
            self.take_pot(survivors[0])
        for seat in range(self.players):
            self.muck(seat)
        self.close_game(survivors=survivors, pot=pot)

    def _round_over(self, loser: int) -> bool:
        """After a payment: end the duel's round, or knock the loser out. True if the game ended."""
        if self.duel:
            self._end_game()
            return True
        self._knock_out(loser)
        if sum(self.alive) == 1:
            self._end_game()
            return True
        return False

    # -- protocol hooks ---------------------------------------------------
    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        alive = self.alive
        hands = self.hands
        stacks = self.stacks
        targets = [t for t in range(self.players) if t != seat and alive[t]]
        # Plain loops: a handful of moves each, where comprehensions cost more than they save.
        legal: list = []
        add = legal.append
        if can_draw(self.shoe):
            add([DRAW])
            for t in targets:
                add([ATTACK, t])
        cards = sorted(set(hands[seat]))
        for t in targets:
            stack = stacks[t]
            for card in cards:
                if card not in stack:
                    add([GIFT, t, card])
        for t in targets:
            if hands[t]:
                add([SEE, t])
        add([FOLD])
        self._legal_cache[seat] = legal
        return legal

    def _default_action(self, seat: int) -> object:
        return [FOLD]

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        seat = self.turn
        action = actions[seat]
        kind = action[0]
        if kind == DRAW:
            card = self.shoe.draw()
            self.hands[seat].append(card)
            self.hands[seat].sort()
            self.log({"type": "draw", "seat": seat}, {seat: {"card": card}})
            self.turn = next_seat(seat, self.alive)
        elif kind == FOLD:
            self._fold(seat)
        elif kind == ATTACK:
            self._attack(seat, action[1])
        elif kind == GIFT:
            target, card = action[1], action[2]
            self.hands[seat].remove(card)
            self.stacks[target].append(card)
            self.log({"type": "gift", "seat": seat, "target": target, "card": card})
            self.turn = target
        else:
            self._see(seat, action[1])

    def _fold(self, seat: int) -> None:
        price = self.fold_price()
        if self.duel:
            other = 1 - seat
            self.pay_seat(seat, other, price)
            self.log({"type": "fold", "seat": seat, "paid": price, "to": other})
            self._end_game()
            return
        self.pay_pot(seat, price)
        self.log({"type": "fold", "seat": seat, "paid": price, "to": None})
        following = next_seat(seat, self.alive)
        if not self._round_over(seat):
            self.turn = following

    def _attack(self, seat: int, target: int) -> None:
        card = self.shoe.draw()
        paired = card in self.stacks[target]
        self.log({"type": "attack", "seat": seat, "target": target, "card": card, "pair": paired})
        if not paired:
            self.stacks[target].append(card)
            self.turn = target
            return
        # The paired card never joins the stack; the attacker pays its rank.
        self.shoe.discard(card)
        self.pay_seat(seat, target, card)
        if not self._round_over(seat):
            self.turn = target

    def _see(self, seat: int, target: int) -> None:
        shown = list(self.hands[target])
        pair = highest_pair(self.stacks[target] + shown)
        self.log({"type": "see", "seat": seat, "target": target, "cards": shown, "pair": pair})
        if pair:
            self.pay_seat(target, seat, pair)
            following = next_seat(target, self.alive)
            if not self._round_over(target):
                self.turn = following
            return
        self.pay_seat(seat, target, max(self.stacks[target] + shown))
        # The target's cards stay face up: they join its stack.
        self.stacks[target].extend(shown)
        self.hands[target] = []
        if not self._round_over(seat):
            self.turn = target

    def _observation(self, seat: int | None) -> dict:
        return self.hand_table_view(seat, turn=self.turn)


GAME = Game(
    slug="pairs-regent",
    title="Regent",
    version=1,
    min_players=2,
    max_players=6,
    state_class=RegentState,
    summary=(
        "Each player holds two secret cards and shows one. In turn you draw a secret card, "
        "attack (deal a face-up card to a rival, paying if it pairs), gift a card from your hand "
        "to a rival's stack, fold (paying the lowest face-up card), or see a rival's hand: a "
        "pair pays you its rank, no pair costs you their highest card. Two players settle each "
        "round at once; with three to six, losers drop out and the last player in collects the "
        "fold penalties."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
