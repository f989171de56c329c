"""Hawthorn: Pairs with a secret hand of five, alternating deck and hand rounds.

Fold or pair and you pay the pot; the last player in takes it. Rules in
docs/rules/pairs-hawthorn.md.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.pairs.chip_session import PairsChipSession
from games.pairs.counting import pair_risk, unseen_on_table
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng
from games.secret_hands import can_draw, deal_order, next_seat, rotations_option

HAND_SIZE = 5
ANTE = 1
OPTIONS = {"rotations": rotations_option(1)}

HIT = "hit"
FOLD = "fold"
DECK_ROUND = "deck"
HAND_ROUND = "hand"


class HawthornState(PairsChipSession):
    TOGETHER_PHASE = "start"  # the starting cards are chosen together

    # -- the course of one game -------------------------------------------
    def _start_game(self) -> None:
        players = self.players
        self.game_events_start = len(self._events)
        self.shoe = Shoe(pairs_deck(), self.game_rng(), self.game_forced(), lazy=True)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stacks: list[list[int]] = [[] for _ in range(players)]
        self.alive = [True] * players
        self.button = -1
        self.turn = -1
        self.round_kind = DECK_ROUND
        self.phase = "start"
        self._legal_cache: dict[int, list] = {}
        self.ante_all(ANTE)
        self.deal_hands(self.hands, deal_order(self.session.dealer, players), HAND_SIZE)

    def card_piles(self) -> tuple[list[list[int]], ...]:
        return self.stacks, self.hands

    def _reveal_starting_cards(self, choices: dict[int, int]) -> None:
        for seat, card in choices.items():
            self.hands[seat].remove(card)
            self.stacks[seat].append(card)
        self.log({"type": "reveal", "cards": {str(s): c for s, c in choices.items()}})
        low = min(choices.values())
        order = deal_order(self.session.dealer, self.players)
        first = self.first_of_tied([seat for seat in order if self.stacks[seat][0] == low])
        self.button = first
        self.turn = first
        self.round_kind = DECK_ROUND
        self.phase = "play"
        self.log({"type": "button", "seat": first, "round": DECK_ROUND})

    def _add_card(self, seat: int, card: int) -> None:
        """Put ``card`` on ``seat``'s stack; a pair knocks the seat out for its rank."""
        if card in self.stacks[seat]:
            self.stacks[seat].append(card)
            self.knock_out(seat, card, "pair")
        else:
            self.stacks[seat].append(card)

    def _advance(self, actor: int) -> None:
        if sum(self.alive) == 1:
            self.last_player_wins(self.alive.index(True))
            return
        following = next_seat(actor, self.alive)
        # A new round begins when the turn reaches the button, or passes its
        # empty seat: the button is somewhere in (actor, following].
        distance_button = (self.button - actor) % self.players
        distance_next = (following - actor) % self.players
        if 0 < distance_button <= distance_next:
            self.round_kind = HAND_ROUND if self.round_kind == DECK_ROUND else DECK_ROUND
            self.log({"type": "round", "round": self.round_kind, "leader": following})
        self.turn = following

    # -- protocol hooks ---------------------------------------------------
    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        if self.phase == "start":
            legal = sorted(set(self.hands[seat]))
        elif self.round_kind == DECK_ROUND:
            legal = [HIT, FOLD] if can_draw(self.shoe) else [FOLD]
        else:
            legal = [*sorted(set(self.hands[seat])), FOLD]
        self._legal_cache[seat] = legal
        return legal

    def _default_action(self, seat: int) -> object:
        if self.phase == "start":
            return self._legal_actions(seat)[0]
        return FOLD

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        if self.phase == "start":
            self._reveal_starting_cards(actions)
            return
        seat = self.turn
        action = actions[seat]
        if action == FOLD:
            self.knock_out(seat, self.fold_price(), "fold")
        elif action == HIT:
            card = self.shoe.draw()
            self.log({"type": "hit", "seat": seat, "card": card})
            self._add_card(seat, card)
        else:
            self.hands[seat].remove(action)
            self.log({"type": "play", "seat": seat, "card": action})
            self._add_card(seat, action)
        self._advance(seat)

    def _observation(self, seat: int | None) -> dict:
        return self.hand_table_view(seat, button=self.button, turn=self.turn, round=self.round_kind)


# -- policies ------------------------------------------------------------------


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Count cards: hit while the expected pair costs less than folding; play safe cards."""
    seat = observation["seat"]
    stack = observation["stacks"][seat] if seat is not None else []
    if observation["phase"] == "start":
        # A low card has few copies left to pair it.
        return legal[0]
    cards = [card for card in legal if card != FOLD and card != HIT]
    if HIT in legal:
        chance, cost = pair_risk(stack, unseen_on_table(observation))
        # Folding forfeits the pot as well as paying: hit unless pairing is likely.
        if chance < 0.5 or cost < observation["fold_price"]:
            return HIT
        return FOLD
    safe = [card for card in cards if card not in stack]
    if safe:
        # The lowest safe card: fewest copies left to pair it later.
        return safe[0]
    return FOLD


GAME = Game(
    slug="pairs-hawthorn",
    title="Hawthorn",
    version=1,
    min_players=2,
    max_players=6,
    state_class=HawthornState,
    summary=(
        "Everyone antes and holds five secret cards. Starting cards are chosen together and "
        "revealed; the lowest takes the button. Rounds alternate, each time play reaches the "
        "button: in deck rounds you hit from the deck, in hand rounds you play a card from your "
        "hand; or you fold, paying the lowest card in play. Pairing costs the pair's rank. The "
        "last player in takes the pot. A match is a session of games with the deal rotating."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
