"""Goblin Poker: pitch a secret card or fold; the pitched cards come back shuffled.

Catch a pair and you pay and leave; the survivors of five rounds split the
pot. Rules in docs/rules/pairs-goblin-poker.md.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.pairs.chip_session import PairsChipSession
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng
from games.secret_hands import deal_order, rotations_option

HAND_SIZE = 6
ANTE = 1
ROUNDS = HAND_SIZE - 1
OPTIONS = {"rotations": rotations_option(1)}

FOLD = "fold"
# Sorts after every rank: a stack that runs out of cards is higher than one that goes on.
NO_CARD = 11


def stack_key(stack: list[int]) -> tuple[int, ...]:
    """Order stacks from lowest: lowest card first, then the next, and an extra card beats none."""
    return (*sorted(stack), NO_CARD)


class GoblinPokerState(PairsChipSession):
    # -- the course of one game -------------------------------------------
    def _start_game(self) -> None:
        players = self.players
        self.game_events_start = len(self._events)
        self.shoe = Shoe(pairs_deck(), self.game_rng(), self.game_forced())
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stacks: list[list[int]] = [[] for _ in range(players)]
        self.pitched: list[int | None] = [None] * players
        self.alive = [True] * players
        self.round = 0
        self.order: list[int] = []
        self.turn_index = 0
        self.phase = "start"
        self._legal_cache: dict[int, list] = {}
        self.ante_all(ANTE)
        self.deal_hands(self.hands, deal_order(self.session.dealer, players), HAND_SIZE)

    def card_piles(self) -> tuple[list[list[int]], ...]:
        return self.stacks, self.hands

    def lowest_stack(self) -> int:
        """The seat with the lowest stack, breaking a perfect tie with cards from the deck."""
        alive = [seat for seat in deal_order(self.session.dealer, self.players) if self.alive[seat]]
        low = min(stack_key(self.stacks[seat]) for seat in alive)
        return self.first_of_tied([seat for seat in alive if stack_key(self.stacks[seat]) == low])

    def _clockwise_from(self, seat: int) -> list[int]:
        return [s for s in deal_order(seat - 1, self.players) if self.alive[s]]

    def _start_round(self) -> None:
        self.round += 1
        self.order = self._clockwise_from(self.lowest_stack())
        self.turn_index = 0
        self.phase = "play"
        self.log({"type": "round", "round": self.round, "order": list(self.order)})

    def _distribute(self) -> None:
        """Shuffle the pitched cards and deal them out from the lowest stack, leftwards."""
        pile = [card for card in self.pitched if card is not None]
        self.pitched = [None] * self.players
        self.shoe.rng.shuffle(pile)
        receivers = self._clockwise_from(self.lowest_stack())
        for seat in receivers:
            if sum(self.alive) == 1:
                break
            card = pile.pop()
            paired = card in self.stacks[seat]
            self.stacks[seat].append(card)
            self.log({"type": "receive", "seat": seat, "card": card})
            if paired:
                self.knock_out(seat, card, "pair")
        # Cards left over when a lone survivor stops the deal go face down.
        self.shoe.discard(*pile)
        survivors = [seat for seat in range(self.players) if self.alive[seat]]
        if len(survivors) >= 2 and self.round < ROUNDS:
            self._start_round()
        else:
            self._end_game(survivors)

    def _end_game(self, survivors: list[int]) -> None:
        pot = self.share_pot(survivors)
        for seat in survivors:
            self.muck(seat)
        stray = [card for card in self.pitched if card is not None]
        self.shoe.discard(*stray)
        self.pitched = [None] * self.players
        self.close_game(winners=survivors, pot=pot)

    # -- protocol hooks ---------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "play":
            return (self.order[self.turn_index],)
        if self.phase == "start":
            return tuple(range(self.players))
        return ()

    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is None:
            cached = sorted(set(self.hands[seat]))
            if self.phase == "play":
                cached.append(FOLD)
            self._legal_cache[seat] = cached
        return cached

    def _default_action(self, seat: int) -> object:
        return FOLD if self.phase == "play" else self._legal_actions(seat)[0]

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        if self.phase == "start":
            for seat, card in actions.items():
                self.hands[seat].remove(card)
                self.stacks[seat].append(card)
            self.log({"type": "reveal", "cards": {str(s): c for s, c in actions.items()}})
            self._start_round()
            return
        seat = self.order[self.turn_index]
        action = actions[seat]
        if action == FOLD:
            self.knock_out(seat, self.fold_price(), "fold")
            if sum(self.alive) == 1:
                self._end_game([self.alive.index(True)])
                return
        else:
            self.hands[seat].remove(action)
            self.pitched[seat] = action
            self.log({"type": "pitch", "seat": seat}, {seat: {"card": action}})
        self.turn_index += 1
        if self.turn_index == len(self.order):
            self._distribute()

    def _observation(self, seat: int | None) -> dict:
        view = self.table_view(
            seat,
            round=self.round,
            order=list(self.order),
            alive=list(self.alive),
            stacks=[list(stack) for stack in self.stacks],
            hand_sizes=[len(hand) for hand in self.hands],
            pitched=[card is not None for card in self.pitched],
            fold_price=self.fold_price(),
            **self.shoe_view(),
        )
        if seat is not None:
            view["hand"] = list(self.hands[seat])
            view["my_pitch"] = self.pitched[seat]
        return view

    def card_count(self) -> int:
        return super().card_count() + sum(card is not None for card in self.pitched)

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # The other seats' face-down pitches are hidden too.
        pitchers = [s for s, card in enumerate(self.pitched) if card is not None and s != seat]
        pitched = [self.pitched[s] for s in pitchers]
        self.shuffle_hands(seat, rng, self.hands, more=[pitched])
        for s, card in zip(pitchers, pitched):
            self.pitched[s] = card


# -- policies ------------------------------------------------------------------


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Never pitch a card that could come back to pair you; aim pitches at rivals' stacks."""
    seat = observation["seat"]
    cards = [card for card in legal if card != FOLD]
    if observation["phase"] == "start":
        # A low first card has the fewest copies left to pair it later.
        return cards[0]
    stacks = observation["stacks"]
    mine = set(stacks[seat])
    rivals = [
        set(stack)
        for other, stack in enumerate(stacks)
        if other != seat and observation["alive"][other]
    ]

    def value(card: int) -> float:
        harm = sum(card for stack in rivals if card in stack)
        return harm - (100 if card in mine else 0)

    if not cards:
        return FOLD
    best = max(cards, key=value)
    if best in mine:
        # Every card is dangerous: the pitch comes back to us once in as many players.
        chance = 1 / max(1, sum(observation["alive"]))
        if chance * best > observation["fold_price"]:
            return FOLD
    return best


GAME = Game(
    slug="pairs-goblin-poker",
    title="Goblin Poker",
    version=1,
    min_players=3,
    max_players=8,
    state_class=GoblinPokerState,
    summary=(
        "Everyone antes and holds six secret cards, then all choose a first face-up card at "
        "once. Each round, from the lowest stack leftwards, players pitch a card face down or "
        "fold (paying the smallest card in play); the pitched cards are shuffled and dealt back "
        "from the lowest stack, and a pair knocks its catcher out for its rank. The last player "
        "standing, or the survivors of five rounds, take the pot."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
