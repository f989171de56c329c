"""Sweep: each round everyone plays a card to capture cards from the centre; at the end,
the most cards of a rank score that rank. Rules in docs/rules/pairs-sweep.md.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.pairs.counting import most_of_each_rank, rank_counts, unseen_counts
from games.policies import random_policy
from games.protocol import Game, Option, State
from games.rng import Rng
from games.scoring import Session, seat_results
from games.secret_hands import redistribute, shoe_piles

HAND_SIZE = 5
CENTRE_SIZE = 5
LONG_TARGET = 150
# A long game adds at least one point a hand, so it ends; this bounds it anyway.
MAX_HANDS = 40

OPTIONS = {
    "long_game": Option(
        False, help=f"play hands until someone reaches {LONG_TARGET} points (else one hand)"
    ),
}


def hand_points(hands: list[list[int]]) -> list[int]:
    """Each rank scores its value to every seat holding the most cards of it (ties all score)."""
    return most_of_each_rank([rank_counts(hand) for hand in hands])


class SweepState(State):
    def setup(self) -> None:
        self.long_game: bool = self.options["long_game"]
        self.session = Session(self.players, self.seed)
        self.phase = "play"
        self._start_hand()

    # -- one hand: deal, rounds, scoring ------------------------------------
    def _start_hand(self) -> None:
        n = self.players
        session = self.session
        self.hand_events_start = len(self._events)
        rng = Rng(session.hand_seed())
        forced = self.forced_deck if session.hand == 0 else None
        self.shoe = Shoe(pairs_deck(), rng, forced)
        self.hands: list[list[int]] = [[] for _ in range(n)]
        deal = [(session.dealer + 1 + i) % n for i in range(n)]
        for _ in range(HAND_SIZE):
            for seat in deal:
                self.hands[seat].append(self.shoe.draw())
        for hand in self.hands:
            hand.sort()
        self.discarded: list[int] = []
        self.rounds = len(self.shoe) // CENTRE_SIZE
        self.round = 0
        # The first round starts with a random player, drawn after the shuffle.
        self.starter = rng.below(n)
        self.log(
            {
                "type": "hand",
                "hand": session.hand,
                "dealer": session.dealer,
                "starter": self.starter,
            }
        )
        for seat in deal:
            self.log(
                {"type": "deal", "seat": seat, "count": HAND_SIZE},
                {seat: {"cards": list(self.hands[seat])}},
            )
        self._start_round()

    def _start_round(self) -> None:
        self.round += 1
        self.round_events_start = len(self._events)
        self.centre = sorted(self.shoe.draw() for _ in range(CENTRE_SIZE))
        n = self.players
        # A player whose hand is empty has nothing to play and sits the round out.
        self.order = [
            (self.starter + i) % n for i in range(n) if self.hands[(self.starter + i) % n]
        ]
        self.plays: list[list[int]] = []
        self.waiting: list[int] = []  # played cards not yet fallen into the centre
        self.turn_index = 0
        self.firing: list[int] = []
        self.first_fire = True
        self.tie: dict | None = None
        self.last_taker: int | None = None
        self._legal_cache: dict[int, list] = {}
        self.log(
            {"type": "round", "round": self.round, "centre": list(self.centre), "order": self.order}
        )
        self.phase = "play"
        if not self.order:
            self._end_round()

    def _begin_capture(self) -> None:
        self.firing = sorted({card for _, card in self.plays})
        self._resolve()

    def _resolve(self) -> None:
        """Fire the played ranks upwards until a tie needs a choice or the round ends."""
        while True:
            if self.tie is not None and not self._run_tie():
                self.phase = "pick"
                return
            if not self.firing:
                self._end_round()
                return
            rank = self.firing.pop(0)
            seats = [seat for seat, card in self.plays if card == rank]
            if self.first_fire:
                # The lowest card takes every centre card of the highest rank.
                self.first_fire = False
                top = max(self.centre, default=0)
                targets = [card for card in self.centre if card == top]
                self.centre = [card for card in self.centre if card != top]
            else:
                targets = [card for card in self.centre if card < rank]
                self.centre = [card for card in self.centre if card >= rank]
            if len(seats) == 1:
                self._take(seats[0], rank, targets)
                self._fall(rank, 1)
            else:
                self.tie = {"rank": rank, "seats": seats, "next": 0, "targets": targets}

    def _run_tie(self) -> bool:
        """Matched cards take single targets in play order; False while a choice is needed."""
        tie = self.tie
        targets = tie["targets"]
        seats = tie["seats"]
        while targets:
            if targets[0] != targets[-1]:
                return False
            seat = seats[tie["next"] % len(seats)]
            self._take(seat, tie["rank"], [targets.pop()])
            tie["next"] += 1
        self._fall(tie["rank"], len(seats))
        self.tie = None
        return True

    def picker(self) -> int:
        tie = self.tie
        return tie["seats"][tie["next"] % len(tie["seats"])]

    def _take(self, seat: int, rank: int, cards: list[int]) -> None:
        if not cards:
            return
        self.hands[seat].extend(cards)
        self.hands[seat].sort()
        self.last_taker = seat
        self.log({"type": "capture", "seat": seat, "with": rank, "cards": sorted(cards)})

    def _fall(self, rank: int, copies: int) -> None:
        for _ in range(copies):
            self.waiting.remove(rank)
            self.centre.append(rank)
        self.centre.sort()

    def _end_round(self) -> None:
        self.discarded.extend(self.centre)
        self.log({"type": "discard", "cards": list(self.centre)})
        self.centre = []
        if self.last_taker is not None:
            self.starter = self.last_taker
        if len(self.shoe) >= CENTRE_SIZE:
            self._start_round()
        else:
            self._end_hand()

    def _end_hand(self) -> None:
        points = hand_points(self.hands)
        session = self.session
        session.finish_hand(points, held=[len(hand) for hand in self.hands])
        self.log({"type": "score", "hand": session.hand - 1, "points": points})
        totals = session.totals
        top = max(totals)
        decided = top >= LONG_TARGET and totals.count(top) == 1
        if not self.long_game or decided or session.hand >= MAX_HANDS:
            self.phase = "over"
            self.log({"type": "end", "totals": list(totals)})
        else:
            self._start_hand()

    # -- protocol hooks ---------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "play":
            return (self.order[self.turn_index],)
        if self.phase == "pick":
            return (self.picker(),)
        return ()

    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is None:
            if self.phase == "pick":
                cached = sorted(set(self.tie["targets"]))
            else:
                cached = sorted(set(self.hands[seat]))
            self._legal_cache[seat] = cached
        return cached

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        if self.phase == "pick":
            seat = self.picker()
            card = actions[seat]
            self.tie["targets"].remove(card)
            self._take(seat, self.tie["rank"], [card])
            self.tie["next"] += 1
            self.phase = "capture"
            self._resolve()
            return
        seat = self.order[self.turn_index]
        card = actions[seat]
        self.hands[seat].remove(card)
        self.plays.append([seat, card])
        self.waiting.append(card)
        self.log({"type": "play", "seat": seat, "card": card})
        self.turn_index += 1
        if self.turn_index == len(self.order):
            self.phase = "capture"
            self._begin_capture()

    def _observation(self, seat: int | None) -> dict:
        session = self.session
        view = {
            "seat": seat,
            "players": self.players,
            "phase": self.phase,
            "to_act": list(self._to_act()),
            "long_game": self.long_game,
            "target": LONG_TARGET if self.long_game else None,
            "hand_index": session.hand if self.phase != "over" else session.hand - 1,
            "dealer": session.dealer,
            "totals": list(session.totals),
            "past_hands": [dict(h) for h in session.hands],
            "round": self.round,
            "rounds": self.rounds,
            "starter": self.starter,
            "order": list(self.order),
            "centre": list(self.centre),
            "plays": [list(play) for play in self.plays],
            "tie": None,
            "hand_sizes": [len(hand) for hand in self.hands],
            "deck_size": len(self.shoe),
            "discarded": sorted(self.discarded),
            "history": self.events(seat, self.hand_events_start),
        }
        if self.tie is not None:
            tie = self.tie
            view["tie"] = {
                "rank": tie["rank"],
                "seats": list(tie["seats"]),
                "picker": self.picker(),
                "targets": sorted(tie["targets"]),
            }
        if seat is not None:
            view["cards"] = list(self.hands[seat])
        return view

    def _result(self) -> dict:
        totals = list(self.session.totals)
        return {"seats": seat_results(totals)}

    def conserved(self) -> dict[str, int]:
        held = sum(len(hand) for hand in self.hands)
        table = len(self.centre) + len(self.waiting) + len(self.discarded)
        pending = len(self.tie["targets"]) if self.tie is not None else 0
        return {"cards": held + table + pending + len(self.shoe) + len(self.shoe.discards)}

    def perturb_hidden(self, seat: int | None, rng: Rng) -> SweepState:
        dup = self.clone()
        hidden = [hand for other, hand in enumerate(dup.hands) if other != seat]
        redistribute(rng, [*hidden, *shoe_piles(dup.shoe)])
        for hand in hidden:
            hand.sort()
        dup._legal_cache = {}
        return dup


# -- policies ------------------------------------------------------------------


def captures(centre: list[int], plays: list[list[int]]) -> list[int]:
    """Cards each play takes (index = position in ``plays``); ties share targets in turn,
    each taking the highest target left (the engine asks the players instead).
    """
    centre = sorted(centre)
    taken = [0] * len(plays)
    first = True
    for rank in sorted({card for _, card in plays}):
        members = [i for i, (_, card) in enumerate(plays) if card == rank]
        if first:
            first = False
            top = centre[-1] if centre else 0
            targets = [card for card in centre if card == top]
            centre = [card for card in centre if card != top]
        else:
            targets = [card for card in centre if card < rank]
            centre = [card for card in centre if card >= rank]
        for k in range(len(targets)):
            taken[members[k % len(members)]] += 1
        centre = sorted(centre + [rank] * len(members))
    return taken


SAMPLES = 12


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Play the card that nets the most cards, guessing the plays still to come."""
    if observation["phase"] == "pick":
        # Take from the rank where one more card most likely wins the majority: the rarest.
        return min(legal)
    seat = observation["seat"]
    hand = observation["cards"]
    plays = observation["plays"]
    later = [s for s in observation["order"][len(plays) :] if s != seat]
    seen = hand + observation["centre"] + [card for _, card in plays] + observation["discarded"]
    unseen = unseen_counts(seen)
    pool = [rank for rank in range(1, 11) for _ in range(max(0, unseen[rank]))]
    guesses = []
    for _ in range(SAMPLES if later and pool else 1):
        guesses.append([[s, pool[rng.below(len(pool))]] for s in later] if pool else [])
    best, best_value = legal[0], None
    for card in legal:
        total = 0
        for guess in guesses:
            trial = [*plays, [seat, card], *guess]
            total += captures(observation["centre"], trial)[len(plays)]
        # Giving up a high card costs more: it is a card of a rank worth more points.
        value = total / len(guesses) - card / 10
        if best_value is None or value > best_value:
            best, best_value = card, value
    return best


GAME = Game(
    slug="pairs-sweep",
    title="Sweep",
    version=1,
    min_players=3,
    max_players=6,
    state_class=SweepState,
    summary=(
        "Everyone holds five cards. Each round five cards are dealt face up to the centre and "
        "every player, in turn, plays one card face up. The lowest card takes all the centre "
        "cards of the highest rank; then each higher card takes every centre card below it and "
        "falls into the centre itself; matched cards take single cards in turn. Captures join "
        "your hand. When the deck is out, the most cards of each rank score that rank's value. "
        "Optionally, hands are played until someone reaches 150."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=6_000,
)
