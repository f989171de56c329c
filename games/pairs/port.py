"""Port: Pairs where you may lock your stack instead of hitting; each round the
highest unbusted stacks score N, N-1, ... game points and the first to 21 wins.

Rules in docs/rules/pairs-port.md.
"""

from __future__ import annotations

from games.pairs.basic_shoe import PairsShoe
from games.pairs.deal import deal_for_low
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng, derive_seed
from games.scoring import seat_results

HIT = "hit"
LOCK = "lock"
# A seat's state within a round.
IN = "in"
LOCKED = "locked"
BUST = "bust"
OUT = "out"  # not playing this round (a tie-break round among the leaders)

MAX_TARGET = 200
# Heuristic: the chance of pairing above which it locks; higher when behind.
HIT_RISK = 0.2
AHEAD_RISK = 0.1
CHASE_RISK = 0.5
LAST_CHASE_RISK = 0.75
OPTIONS = {
    "target": Option(21, minimum=1, help=f"game points that win (1 to {MAX_TARGET})"),
}


def round_points(totals: list[int | None]) -> list[int]:
    """Game points of one round: ``None`` marks a bust (0 points).

    With N players in the round, a stack scores N minus the number of stacks
    strictly above it, so tied stacks both get the higher amount.
    """
    players = len(totals)
    standing = [t for t in totals if t is not None]
    return [0 if t is None else players - sum(1 for o in standing if o > t) for t in totals]


class PortState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["target"] > MAX_TARGET:
            raise InvalidOptions(f"option 'target' must be at most {MAX_TARGET}", option="target")

    def setup(self) -> None:
        n = self.players
        self.target: int = self.options["target"]
        # One deck for the whole match, reshuffled (burning five) as in Pairs.
        self.shoe = PairsShoe(Rng(derive_seed(self.seed, "hand", 0)), self.forced_deck)
        self._shuffles_logged = 0
        self.scores = [0] * n
        self.stacks: list[list[int]] = [[] for _ in range(n)]
        self.status = [OUT] * n
        self.round = -1
        self.dealer = n - 1  # the first round's dealer is seat 0 (rotated in _deal_round)
        self.turn = -1
        self.winner = -1
        self.history: list[dict] = []
        self._deal_round(list(range(n)))

    # -- the course of a round -----------------------------------------------
    def _deal_round(self, seats: list[int]) -> None:
        """Deal one face-up card to each seat of ``seats``; the lowest starts."""
        n = self.players
        self.round += 1
        self.dealer = (self.dealer + 1) % n
        self._round_start = len(self._events)
        order = [(self.dealer + 1 + i) % n for i in range(n)]
        if len(seats) < n:
            order = [seat for seat in order if seat in seats]
        stacks, starter, dealt = deal_for_low(self.shoe, order)
        self._log_shuffles()
        self.stacks = [stacks.get(seat, []) for seat in range(n)]
        self.status = [IN if seat in stacks else OUT for seat in range(n)]
        event = {
            "type": "deal",
            "round": self.round,
            "dealer": self.dealer,
            "seats": sorted(seats),
            "cards": [[seat, card] for seat, card, _ in dealt],
            "start": starter,
        }
        if len(dealt) > len(order):
            replaced = [i for i, (_, _, paired) in enumerate(dealt) if paired]
            if replaced:
                event["replaced"] = replaced
        self.log(event)
        self.turn = starter

    def _log_shuffles(self) -> None:
        while self._shuffles_logged < self.shoe.shuffles:
            self._shuffles_logged += 1
            self.log({"type": "shuffle", "burned": self.shoe.hidden})

    def _can_draw(self) -> bool:
        # PairsShoe burns fewer than five when that is all that leaves a card.
        return len(self.shoe) > 0 or len(self.shoe.discards) > 0

    def _hit(self, seat: int) -> None:
        card = self.shoe.draw()
        if self.shoe.shuffles != self._shuffles_logged:
            self._log_shuffles()
        stack = self.stacks[seat]
        if card in stack:
            # A bust: the stack and the pairing card leave play face up at once.
            self.status[seat] = BUST
            self.shoe.discard(*stack, card)
            self.log({"type": "bust", "seat": seat, "card": card, "stack": list(stack)})
            self.stacks[seat] = []
        else:
            stack.append(card)
            self.log({"type": "hit", "seat": seat, "card": card})

    def _advance(self, seat: int) -> None:
        n = self.players
        status = self.status
        for step in range(1, n + 1):
            other = (seat + step) % n
            if status[other] == IN:
                self.turn = other
                return
        self._score_round()

    def _score_round(self) -> None:
        players = self.players
        status = self.status
        totals = [sum(stack) for stack in self.stacks]
        seats = [seat for seat in range(players) if status[seat] != OUT]
        points = round_points([totals[s] if status[s] == LOCKED else None for s in seats])
        gained = [0] * players
        scores = self.scores
        for seat, got in zip(seats, points):
            gained[seat] = got
            scores[seat] += got
        summary = {
            "round": self.round,
            "seats": seats,
            "totals": totals,
            "busted": [seat for seat in seats if status[seat] == BUST],
            "points": gained,
            "scores": list(scores),
        }
        self.history.append(summary)
        self.log({"type": "round_over", **summary})
        discard = self.shoe.discard
        for stack in self.stacks:
            if stack:
                discard(*stack)
        self.stacks = [[] for _ in range(players)]
        top = max(self.scores)
        if top < self.target:
            self._deal_round(list(range(self.players)))
            return
        leaders = [seat for seat in range(self.players) if self.scores[seat] == top]
        if len(leaders) == 1:
            self.winner = leaders[0]
            self.turn = -1
            self.status = [OUT] * self.players
            self.log({"type": "game_over", "winner": self.winner, "scores": list(self.scores)})
            return
        # Leaders tied at or above the target play one more round by themselves.
        self.log({"type": "tie", "seats": leaders, "score": top})
        self._deal_round(leaders)

    # -- protocol hooks -----------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return (self.turn,) if self.turn >= 0 else ()

    def _legal_actions(self, seat: int) -> list:
        return [HIT, LOCK] if self._can_draw() else [LOCK]

    def _default_action(self, seat: int) -> str:
        return LOCK

    def _apply(self, actions: dict) -> None:
        seat = self.turn
        if actions[seat] == HIT:
            self._hit(seat)
        else:
            self.status[seat] = LOCKED
            self.log({"type": "lock", "seat": seat, "total": sum(self.stacks[seat])})
        self._advance(seat)

    def _observation(self, seat: int | None) -> dict:
        in_play = [card for stack in self.stacks for card in stack]
        return {
            "seat": seat,
            "players": self.players,
            "target": self.target,
            "round": self.round,
            "dealer": self.dealer,
            "to_act": self.turn if self.turn >= 0 else None,
            "status": list(self.status),
            "stacks": [list(stack) for stack in self.stacks],
            "totals": [sum(stack) for stack in self.stacks],
            "scores": list(self.scores),
            "draw_pile": len(self.shoe),
            "discard_pile": len(self.shoe.discards),
            "burned": self.shoe.hidden,
            "seen_discards": sorted(self.shoe.seen),
            "unseen": self.shoe.unseen_counts(in_play),
            "past_rounds": [dict(summary) for summary in self.history],
            "round_events": self.events(None, self._round_start),
        }

    def _result(self) -> dict:
        return {"seats": seat_results(list(self.scores)), "winner": self.winner}

    def perturb_hidden(self, seat: int | None, rng: Rng) -> PortState:
        # Every card is face up but the draw pile and the burns, hidden from all.
        dup = self.clone()
        dup.shoe.shuffle_unseen(rng)
        return dup

    def conserved(self) -> dict[str, int]:
        cards = len(self.shoe) + len(self.shoe.discards) + sum(len(s) for s in self.stacks)
        return {"cards": cards}


# -- policies --------------------------------------------------------------------


def heuristic(observation: dict, legal: list, rng: Rng) -> str:
    """Hit while a pair is unlikely, or while locking now would surely score little."""
    if len(legal) == 1:
        return legal[0]
    me = observation["seat"]
    stack = observation["stacks"][me]
    unseen = observation["unseen"]
    total_unseen = sum(unseen)
    risk = sum(unseen[card - 1] for card in stack) / total_unseen if total_unseen else 1.0
    status = observation["status"]
    mine = sum(stack)
    rivals = [s for s in range(len(status)) if s != me and status[s] in (IN, LOCKED)]
    locked_best = max((observation["totals"][s] for s in rivals if status[s] == LOCKED), default=-1)
    if not any(status[s] == IN for s in rivals):
        # Last one playing: lock once ahead of everyone locked, else chase them.
        if mine > locked_best:
            return LOCK
        return HIT if risk < LAST_CHASE_RISK else LOCK
    if mine <= locked_best:
        return HIT if risk < CHASE_RISK else LOCK
    others_best = max((observation["totals"][s] for s in rivals), default=-1)
    if mine > others_best:
        return HIT if risk < AHEAD_RISK else LOCK
    return HIT if risk < HIT_RISK else LOCK


GAME = Game(
    slug="pairs-port",
    title="Port",
    version=1,
    min_players=2,
    max_players=7,
    state_class=PortState,
    summary=(
        "Pairs with a lock: each round everyone gets one face-up card and, from the lowest "
        "card, players in turn hit or lock their stack. A pair busts you for the round. When "
        "all have locked or busted, the highest stack total scores N game points (N players), "
        "the next N-1 and so on, ties taking the higher amount and busts nothing. The first "
        "to 21 game points wins; leaders tied at or above 21 play another round."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=20_000,
)
