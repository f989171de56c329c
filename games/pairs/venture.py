"""Venture: secret bids fire from low to high and capture cards; captures cost a point
each unless they complete a rank. Rules in docs/rules/pairs-venture.md.
"""

from __future__ import annotations

from bisect import bisect_left

from games.cards import Shoe, pairs_deck
from games.native import VENTURE
from games.pairs.counting import distinct_ranks
from games.pairs.venture_policy import heuristic
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng
from games.scoring import Session, seat_results
from games.secret_hands import redistribute

# Cards in the slug (the first pool) by player count; the rest deals out evenly.
SLUG_SIZES = {3: 4, 4: 3, 5: 5, 6: 7, 7: 6, 8: 7}
KEEP = 3
QUIET = "quiet"
MAX_DEALS = 20

OPTIONS = {
    "drafting": Option(
        False, help="after the deal, keep three cards and pass the rest left until none are left"
    ),
    "talk": Option(
        False,
        help="before each bid, everyone announces a rank they claim to bid (or stays quiet); "
        "claims bind nobody",
    ),
    "deals": Option(
        0,
        minimum=0,
        help=f"deals in the match (1 to {MAX_DEALS}), scores adding up; "
        "0 = one deal per player, so every seat deals once",
    ),
}


def fire(pool: list[int], bids: list[int]) -> tuple[list[list[int]], list[int], list[dict]]:
    """``python_fire``, compiled (games/pairs/_venture.c) where it can be built: the same
    captures, pool and steps."""
    if _compiled_fire is not None:
        done = _compiled_fire(pool, bids)
        if done is not None:
            return done
    return python_fire(pool, bids)


def python_fire(pool: list[int], bids: list[int]) -> tuple[list[list[int]], list[int], list[dict]]:
    """Resolve one round: the captures of each seat, the next pool, and the steps taken.

    Bids fire from the lowest rank up. Matched ranks misfire. The lowest bid
    takes every card of the highest rank on the table, bids included; a bid
    taken that way never fires. Every other bid takes all cards below it.
    Fired and misfired bids stay on the table, where higher bids can take them.
    """
    # Every card on the table in rank order: what each fired bid takes is a slice of it.
    table = sorted(pool + bids)
    # The seats that capture nothing share one empty list (read it, never change it).
    captured: list[list[int]] = [[]] * len(bids)
    steps: list[dict] = []
    # Each bid rank's seats, in seat order, from one pass over the bids (indexed by rank:
    # cheaper than a dict's lookups).
    seats_of: list = [None] * 11
    for seat, card in enumerate(bids):
        seats = seats_of[card]
        if seats is None:
            seats_of[card] = [seat]
        else:
            seats.append(seat)
    ranks = sorted(set(bids))
    lowest = ranks[0]
    seats = seats_of[lowest]
    end = len(table)
    taken_early = 0
    if len(seats) > 1:
        steps.append({"rank": lowest, "seats": seats, "result": "misfire"})
    else:
        taken_early = top = table[-1]
        end = bisect_left(table, top)
        cards = table[end:]
        captured[seats[0]] = cards
        steps.append({"rank": lowest, "seats": seats, "result": "fire", "cards": cards})
    start = 0
    for rank in ranks[1:]:
        seats = seats_of[rank]
        if rank == taken_early:
            steps.append({"rank": rank, "seats": seats, "result": "captured"})
        elif len(seats) > 1:
            steps.append({"rank": rank, "seats": seats, "result": "misfire"})
        else:
            stop = bisect_left(table, rank, start, end)
            cards = table[start:stop]
            start = stop
            captured[seats[0]] = cards
            steps.append({"rank": rank, "seats": seats, "result": "fire", "cards": cards})
    return captured, table[start:end], steps


# Venture's fire compiled, None where it cannot be built or ``ARENA_PYTHON_VENTURE=1`` asks
# for the Python one.
_compiled_fire = getattr(VENTURE.chosen(), "fire", None)


def deal_points(captured: list[list[int]], pool: list[int]) -> list[int]:
    """-1 a captured card; a rank whose every copy is yours or in the pool scores its value."""
    left = [0] * 11
    for card in pool:
        left[card] += 1
    points = []
    for cards in captured:
        total = 0
        for rank in set(cards):
            count = cards.count(rank)
            total += rank if count + left[rank] == rank else -count
        points.append(total)
    return points


class VentureState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["deals"] > MAX_DEALS:
            raise InvalidOptions(f"option 'deals' must be at most {MAX_DEALS}", option="deals")

    def setup(self) -> None:
        self.drafting: bool = self.options["drafting"]
        self.talk: bool = self.options["talk"]
        # One deal is mostly luck at a big table; a match is a fixed number of deals.
        self.total_deals: int = self.options["deals"] or self.players
        self.session = Session(self.players, self.seed)
        self._everyone = tuple(range(self.players))
        self._acting = self._everyone
        self.phase = "bid"
        self._start_deal()

    # -- one deal -------------------------------------------------------------
    def _start_deal(self) -> None:
        n = self.players
        session = self.session
        self.deal_events_start = len(self._events)
        forced = self.forced_deck if session.hand == 0 else None
        shoe = Shoe(pairs_deck(), Rng(session.hand_seed()), forced)
        # The whole deck is dealt: the slug from the top, then one card at a time
        # from the dealer's left (slicing is that deal, without 55 draws).
        cards = shoe.cards()
        size = SLUG_SIZES[n]
        self.slug = cards[:size]
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            self.hands[(session.dealer + 1 + i) % n] = sorted(cards[size + i :: n])
        self.pool: list[int] = []
        self.captured: list[list[int]] = [[] for _ in range(n)]
        self.claims: list = [None] * n
        self.last_bids: list | None = None
        self.round = 0
        self.rounds = len(self.hands[0])
        self._legal: list = []
        # Each seat's distinct ranks in hand (its legal bids), kept up to date bid by bid.
        self._ranks: list[list[int]] = []
        self.log(
            {
                "type": "deal",
                "deal": session.hand,
                "dealer": session.dealer,
                "slug": len(self.slug),
                "count": self.rounds,
            },
            {seat: {"cards": list(self.hands[seat])} for seat in range(n)},
        )
        if self.drafting:
            self.packets = self.hands
            self.hands = [[] for _ in range(n)]
            self.picks = 0
            self.phase = "draft"
            self._draft_continue()
        else:
            self._reveal_slug()

    def _draft_continue(self) -> None:
        """Pass packets after three keeps; a packet of three or fewer is kept whole."""
        n = self.players
        while True:
            if self.picks == KEEP:
                self.packets = [self.packets[(seat - 1) % n] for seat in range(n)]
                self.picks = 0
                self.log(
                    {"type": "pass", "count": len(self.packets[0])},
                    {seat: {"cards": list(self.packets[seat])} for seat in range(n)},
                )
            size = len(self.packets[0])
            if size == 0 or (self.picks == 0 and size <= KEEP):
                for seat in range(n):
                    self.hands[seat].extend(self.packets[seat])
                    self.hands[seat].sort()
                self.packets = [[] for _ in range(n)]
                self._reveal_slug()
                return
            if self.picks < KEEP:
                self._legal = distinct_ranks(self.packets)
                return

    def _reveal_slug(self) -> None:
        self._ranks = distinct_ranks(self.hands)
        self.pool = sorted(self.slug)
        self.slug = []
        self.log({"type": "slug", "cards": list(self.pool)})
        self._start_round()

    def _start_round(self) -> None:
        self.round += 1
        self.claims = [None] * self.players
        if self.talk:
            self.phase = "talk"
            self._legal = [[QUIET, *range(1, 11)] for _ in self._everyone]
        else:
            self.phase = "bid"
            self._legal = self._ranks

    def _end_deal(self) -> None:
        points = deal_points(self.captured, self.pool)
        session = self.session
        session.finish_hand(points, captured=[len(cards) for cards in self.captured])
        self.log({"type": "score", "deal": session.hand - 1, "points": points})
        if session.hand >= self.total_deals:
            self.phase = "over"
            self._acting = ()
            self._legal = []
        else:
            self._start_deal()

    # -- the protocol's reads, without its two hook calls per seat (eight seats ask
    # on every action of a big table); the same answers as State's own.
    def to_act(self) -> tuple[int, ...]:
        return self._acting

    def legal_actions(self, seat: int) -> list:
        if seat in self._acting:
            return self._legal[seat]
        return []

    # -- protocol hooks -----------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        # Every decision of Venture is simultaneous: all seats, or nobody once it is over.
        return self._acting

    def _legal_actions(self, seat: int) -> list:
        # Worked out for every seat when the decision starts (each phase sets it).
        return self._legal[seat]

    def _legal_table(self) -> list:
        return self._legal

    def _default_action(self, seat: int) -> object:
        if self.phase == "talk":
            return QUIET
        return self._legal_actions(seat)[0]

    def _apply(self, actions: dict) -> None:
        phase = self.phase
        if phase == "talk":
            self.claims = [actions[seat] for seat in range(self.players)]
            self.log({"type": "talk", "round": self.round, "claims": list(self.claims)})
            self.phase = "bid"
            self._legal = self._ranks
        elif phase == "draft":
            for seat, card in actions.items():
                self.packets[seat].remove(card)
                self.hands[seat].append(card)
                self.hands[seat].sort()
            self.picks += 1
            self.log({"type": "keep"}, {seat: {"card": card} for seat, card in actions.items()})
            self._draft_continue()
        else:
            bids = list(actions.values())  # every seat, in seat order
            hands = self.hands
            ranks = self._ranks
            for seat, card in enumerate(bids):
                hand = hands[seat]
                hand.remove(card)
                if card not in hand:
                    # A new list: the old one may still be held by whoever asked for it.
                    left = ranks[seat][:]
                    left.remove(card)
                    ranks[seat] = left
            # The round resolves: captures, the log, the next round or the deal's end.
            captured, pool, steps = fire(self.pool, bids)
            self.pool = pool
            mine = self.captured
            for seat, cards in enumerate(captured):
                if cards:
                    mine[seat].extend(cards)
                    mine[seat].sort()
            self.last_bids = bids
            self._events.append(
                (
                    {
                        "type": "reveal",
                        "round": self.round,
                        "bids": list(bids),
                        "steps": steps,
                        "pool": list(pool),
                    },
                    {},
                )
            )
            if not hands[0]:
                self._end_deal()
            elif self.talk:
                self._start_round()
            else:
                # ``_start_round`` without talk.
                self.round += 1
                self.claims = [None] * self.players
                self._legal = ranks

    def _observation(self, seat: int | None) -> dict:
        session = self.session
        view = {
            "seat": seat,
            "players": self.players,
            "phase": self.phase,
            "to_act": list(self._to_act()),
            "drafting": self.drafting,
            "talk": self.talk,
            "deal": session.hand if self.phase != "over" else session.hand - 1,
            "deals": self.total_deals,
            "dealer": session.dealer,
            "totals": list(session.totals),
            "past_deals": [dict(h) for h in session.hands],
            "round": self.round,
            "rounds": self.rounds,
            "slug_size": len(self.slug),
            "pool": list(self.pool),
            "captured": [list(cards) for cards in self.captured],
            "points_now": deal_points(self.captured, self.pool),
            "hand_sizes": [len(hand) for hand in self.hands],
            "claims": list(self.claims),
            "last_bids": list(self.last_bids) if self.last_bids is not None else None,
            "history": self.events(seat, self.deal_events_start),
        }
        if self.phase == "draft":
            view["packet_sizes"] = [len(packet) for packet in self.packets]
            view["keeps_left"] = KEEP - self.picks
        if seat is not None:
            view["cards"] = list(self.hands[seat])
            if self.phase == "draft":
                view["packet"] = list(self.packets[seat])
        return view

    def _result(self) -> dict:
        return {"seats": seat_results(list(self.session.totals))}

    def conserved(self) -> dict[str, int]:
        cards = sum(len(hand) for hand in self.hands) + sum(len(c) for c in self.captured)
        cards += len(self.pool) + len(self.slug)
        if self.phase == "draft":
            cards += sum(len(packet) for packet in self.packets)
        return {"cards": cards}

    def perturb_hidden(self, seat: int | None, rng: Rng) -> VentureState:
        dup = self.clone()
        hidden = [hand for other, hand in enumerate(dup.hands) if other != seat]
        if dup.phase == "draft":
            hidden += [packet for other, packet in enumerate(dup.packets) if other != seat]
            # The slug stays face down until the draft is over.
            hidden.append(dup.slug)
        redistribute(rng, hidden)
        for box in hidden:
            box.sort()
        if dup.phase == "draft":
            dup._legal = distinct_ranks(dup.packets)
        else:
            dup._ranks = distinct_ranks(dup.hands)
            if dup.phase == "bid":
                dup._legal = dup._ranks
        return dup


GAME = Game(
    slug="pairs-venture",
    title="Venture",
    # 2: a match is one deal per player by default (it was one deal).
    version=2,
    min_players=3,
    max_players=8,
    state_class=VentureState,
    summary=(
        "A few cards start face up as the pool and the rest are dealt out. Each round everyone "
        "bids a card in secret; the bids are revealed and fire from low to high. The lowest "
        "takes every card of the highest rank on the table, each other bid takes every card "
        "below it, and matched bids misfire. Captured cards cost a point each, unless you hold "
        "every copy of a rank not left in the pool: that rank scores its value. Optional "
        "drafting, and optional non-binding claims before each bid."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=2_000,
)
