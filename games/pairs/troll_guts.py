"""Troll Guts: no folding; draw, steal or buy face-up cards until a pair kills you.

Each player stacks five secret cards in a chosen order; the survivor takes
the pot. Rules in docs/rules/pairs-troll-guts.md.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

from games.cards import Shoe, pairs_deck
from games.pairs.chip_session import PairsChipSession
from games.pairs.counting import pair_risk, unseen_on_table
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng
from games.secret_hands import can_draw, deal_order, next_seat, rotations_option

HAND_SIZE = 5
ANTE = 1
BUY_PRICE = 1
OPTIONS = {"rotations": rotations_option(1)}

DRAW = "draw"
STEAL = "steal"
BUY = "buy"


@lru_cache(maxsize=4096)
def _orders(hand: tuple[int, ...]) -> list[list[int]]:
    return [list(order) for order in sorted(set(permutations(hand)))]


def stack_orders(hand: list[int]) -> list[list[int]]:
    """Every distinct order of ``hand``, top card first, in sorted order (inner lists shared)."""
    return list(_orders(tuple(sorted(hand))))


class TrollGutsState(PairsChipSession):
    TOGETHER_PHASE = "arrange"  # every seat stacks its cards at once

    # -- the course of one game -------------------------------------------
    def _start_game(self) -> None:
        players = self.players
        self.game_events_start = len(self._events)
        self.shoe = Shoe(pairs_deck(), self.game_rng(), self.game_forced(), lazy=True)
        # Face-down cards: sorted while a hand, then top card first once stacked.
        self.down: list[list[int]] = [[] for _ in range(players)]
        self.stacks: list[list[int]] = [[] for _ in range(players)]
        self.alive = [True] * players
        self.phase = "arrange"
        self._legal_cache: dict[int, list] = {}
        self.ante_all(ANTE)
        order = deal_order(self.session.dealer, players)
        self.deal_hands(self.down, order, HAND_SIZE)
        self.turn = self.deal_upcards(order)

    def card_piles(self) -> tuple[list[list[int]], ...]:
        return self.stacks, self.down

    def _take(self, seat: int, card: int, how: dict) -> None:
        """Put ``card`` face up on ``seat``'s stack; a pair kills the seat for its rank."""
        paired = card in self.stacks[seat]
        self.stacks[seat].append(card)
        self.log({**how, "seat": seat, "card": card, "pair": paired})
        if paired:
            self.knock_out(seat, card, "out")

    # -- protocol hooks ---------------------------------------------------
    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        if self.phase == "arrange":
            legal = stack_orders(self.down[seat])
        else:
            legal = [[DRAW]] if can_draw(self.shoe) else []
            legal.extend(
                [STEAL, t]
                for t in range(self.players)
                if t != seat and self.alive[t] and self.down[t]
            )
            if self.down[seat]:
                legal.append([BUY])
        self._legal_cache[seat] = legal
        return legal

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        if self.phase == "arrange":
            for seat, order in actions.items():
                self.down[seat] = list(order)
                self.log({"type": "arranged", "seat": seat}, {seat: {"order": list(order)}})
            self.phase = "play"
            return
        seat = self.turn
        action = actions[seat]
        if action[0] == DRAW:
            self._take(seat, self.shoe.draw(), {"type": "draw"})
        elif action[0] == STEAL:
            victim = action[1]
            self._take(seat, self.down[victim].pop(0), {"type": "steal", "from": victim})
        else:
            self.pay_pot(seat, BUY_PRICE)
            self._take(seat, self.down[seat].pop(0), {"type": "buy", "paid": BUY_PRICE})
        if sum(self.alive) == 1:
            self.last_player_wins(self.alive.index(True))
        else:
            self.turn = next_seat(seat, self.alive)

    def _observation(self, seat: int | None) -> dict:
        view = self.table_view(
            seat,
            turn=self.turn,
            alive=list(self.alive),
            stacks=[list(stack) for stack in self.stacks],
            down_sizes=[len(down) for down in self.down],
            **self.shoe_view(),
        )
        if seat is not None:
            # Top card first once arranged; sorted while still a hand.
            view["down"] = list(self.down[seat])
        return view

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # Hands stay sorted until they are arranged into stacks.
        self.shuffle_hands(seat, rng, self.down, sort=self.phase == "arrange")


# -- policies ------------------------------------------------------------------


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Stack safe cards on top and buy them; otherwise take the least risky unknown card."""
    seat = observation["seat"]
    stack = observation["stacks"][seat]
    down = observation.get("down", [])
    if observation["phase"] == "arrange":
        # Safe to buy: first copies of ranks not showing. Repeats and matches go last.
        safe: list[int] = []
        risky: list[int] = []
        for card in down:
            (risky if card in stack or card in safe else safe).append(card)
        return safe + risky
    if [BUY] in legal and down[0] not in stack:
        return [BUY]
    chance, _ = pair_risk(stack, unseen_on_table(observation, "down"))
    takes = [action for action in legal if action[0] != BUY]
    if not takes:
        return [BUY]
    if chance == 0:
        return takes[0]
    # Steal from the deepest face-down stack: it keeps the most safe buys for its owner.
    steals = [action for action in takes if action[0] == STEAL]
    if steals:
        return max(steals, key=lambda action: observation["down_sizes"][action[1]])
    return takes[0]


GAME = Game(
    slug="pairs-troll-guts",
    title="Troll Guts",
    version=1,
    min_players=3,
    max_players=6,
    state_class=TrollGutsState,
    summary=(
        "Everyone antes, gets five secret cards and one face-up card; the lowest plays first. "
        "Each player stacks the secret cards in an order of their choosing. In turn you draw "
        "from the deck, steal the top of anyone's face-down stack, or buy your own top card "
        "for a chip; the new card goes face up, and a pair knocks you out for its rank. There "
        "is no folding: the survivor takes the pot."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
