"""Five Cards: two players draw and place cards beside five sorted target cards.

A card may not repeat a rank already in its column; the first card that fits
nowhere ends the round, and the bigger side of each column scores its target.
First to 100. Rules in docs/rules/pairs-five-cards.md.
"""

from __future__ import annotations

import math

from games.cards import Shoe, pairs_deck
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng, derive_seed
from games.scoring import Session, seat_results
from games.secret_hands import shoe_piles

TARGETS = 5
MAX_TARGET = 1_000
# A safety stop (leaders tying forever); a target of 1000 needs fewer than 100 rounds.
MAX_ROUNDS = 500
# At most 45 cards fit in the columns: a round is at most 45 placements.
MAX_PLACEMENTS = 45

OPTIONS = {
    "target": Option(100, minimum=1, help="the score that ends the match"),
}


def column_points(target: int, mine: int, theirs: int) -> int:
    """What one side scores for a column: the target if ahead, half of it (rounded down) if tied."""
    if mine > theirs:
        return target
    if mine == theirs:
        return target // 2
    return 0


class FiveCardsState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["target"] > MAX_TARGET:
            raise InvalidOptions(f"option 'target' must be at most {MAX_TARGET}", option="target")

    def setup(self) -> None:
        self.session = Session(2, self.seed)
        # The first round's starter is drawn at random; later, the lower scorer starts.
        self.starter = Rng(derive_seed(self.seed, "first")).below(2)
        self.over = False
        self._start_round()

    # -- one round --------------------------------------------------------------------
    def _start_round(self) -> None:
        rng = Rng(self.session.hand_seed())
        forced = self.forced_deck if self.session.hand == 0 else None
        shoe = Shoe(pairs_deck(), rng, forced)
        self.round_start = len(self._events)
        targets: list[int] = []
        matched: list[int] = []
        while len(targets) < TARGETS:
            card = shoe.draw()
            (matched if card in targets else targets).append(card)
        if matched:
            # Cards thrown out while dealing the targets go back, and the deck is shuffled.
            shoe = Shoe(shoe.cards() + matched, rng)
        self.shoe = shoe
        self.targets = sorted(targets)
        # sides[seat][column]: the cards that seat placed beside that target.
        self.sides: list[list[list[int]]] = [[[] for _ in targets] for _ in range(2)]
        self.ranks = [{t} for t in self.targets]
        self.sums = [[0] * TARGETS for _ in range(2)]
        self.log(
            {
                "type": "targets",
                "round": self.session.hand,
                "cards": list(self.targets),
                "thrown_back": matched,
                "starter": self.starter,
            }
        )
        self.turn = self.starter
        self._draw()

    def _draw(self) -> None:
        card = self.shoe.draw()
        self.drawn = card
        self._legal = [t for t, ranks in zip(self.targets, self.ranks) if card not in ranks]
        self.log({"type": "draw", "seat": self.turn, "card": card})
        if not self._legal:
            self._end_round()

    def _end_round(self) -> None:
        dead = self.drawn
        self.shoe.discard(dead)
        self.drawn = None
        points = [0, 0]
        for column, target in enumerate(self.targets):
            a, b = self.sums[0][column], self.sums[1][column]
            points[0] += column_points(target, a, b)
            points[1] += column_points(target, b, a)
        self.log(
            {
                "type": "score",
                "unplayable": dead,
                "targets": list(self.targets),
                "sides": [[list(cards) for cards in side] for side in self.sides],
                "points": points,
            }
        )
        starter = self.starter
        self.session.finish_hand(points, starter=starter)
        if points[0] != points[1]:
            self.starter = 0 if points[0] < points[1] else 1
        else:
            self.starter = 1 - starter
        totals = self.session.totals
        done = max(totals) >= self.options["target"] and totals[0] != totals[1]
        if done or self.session.hand >= MAX_ROUNDS:
            self.over = True
            self.turn = -1
            self._legal = []
        else:
            self._start_round()

    # -- protocol hooks ------------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return () if self.over else (self.turn,)

    def _legal_actions(self, seat: int) -> list:
        return self._legal

    def _apply(self, actions: dict) -> None:
        seat = self.turn
        target = actions[seat]
        column = self.targets.index(target)
        card = self.drawn
        self.sides[seat][column].append(card)
        self.ranks[column].add(card)
        self.sums[seat][column] += card
        self.log({"type": "place", "seat": seat, "card": card, "target": target})
        self.turn = 1 - seat
        self._draw()

    def _observation(self, seat: int | None) -> dict:
        return {
            "seat": seat,
            "round": self.session.hand,
            "target_score": self.options["target"],
            "totals": list(self.session.totals),
            "past_rounds": [dict(h) for h in self.session.hands],
            "starter": self.starter if not self.over else None,
            "to_act": list(self._to_act()),
            "targets": list(self.targets),
            "sides": [[list(cards) for cards in side] for side in self.sides],
            "sums": [list(row) for row in self.sums],
            "drawn": self.drawn,
            "deck_size": len(self.shoe),
            "history": self.events(seat, self.round_start),
        }

    def _result(self) -> dict:
        totals = list(self.session.totals)
        return {"seats": seat_results(totals)}

    def conserved(self) -> dict[str, int]:
        placed = sum(len(cards) for side in self.sides for cards in side)
        held = 0 if self.drawn is None else 1
        return {"cards": len(self.shoe) + len(self.shoe.discards) + TARGETS + placed + held}

    def perturb_hidden(self, seat: int | None, rng: Rng) -> FiveCardsState:
        # Everything is face up but the order of the deck, hidden from both players.
        dup = self.clone()
        rng.shuffle(shoe_piles(dup.shoe)[0])
        return dup


# -- policies ------------------------------------------------------------------------


def _standing(targets: list[int], mine: list[int], theirs: list[int]) -> float:
    """A smooth count of the columns we lead: big leads are safe, small ones may turn."""
    return sum(t * math.tanh((a - b) / 6) for t, a, b in zip(targets, mine, theirs))


def heuristic(observation: dict, legal: list, rng: Rng) -> int:
    """Put the card where it gains the most target points, counting how safe each lead is."""
    seat = observation["seat"]
    targets = observation["targets"]
    mine = observation["sums"][seat]
    theirs = observation["sums"][1 - seat]
    card = observation["drawn"]

    def gain(target: int) -> float:
        column = targets.index(target)
        after = list(mine)
        after[column] += card
        return _standing(targets, after, theirs)

    return max(legal, key=gain)


GAME = Game(
    slug="pairs-five-cards",
    title="Five Cards",
    version=1,
    min_players=2,
    max_players=2,
    state_class=FiveCardsState,
    summary=(
        "A two-player game with the Pairs deck. Five cards of different ranks are laid out in "
        "order as targets. Players take turns drawing a card and placing it on their side of "
        "a target whose column does not hold that rank yet; the first card that fits nowhere "
        "ends the round. The bigger side of each column scores the target's value (a tie splits "
        "it, rounded down). The lower scorer starts the next round; first to 100 wins."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=MAX_ROUNDS * MAX_PLACEMENTS,
)
