"""Kitty: pass a card left, bid a card in secret; the lowest unmatched bid takes the target.

After the kitty's seven cards, the most cards of each rank score that rank.
Soft, partners, gambling and long-form variants. Rules in docs/rules/pairs-kitty.md.
"""

from __future__ import annotations

from games.cards import Shoe, pairs_deck
from games.pairs.counting import distinct_ranks, most_of_each_rank
from games.pairs.kitty_policy import heuristic
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng
from games.scoring import Pot, Session, ranks_from_scores, seat_results
from games.secret_hands import deal_order, redistribute

KITTY = 7
HARD_PLAN = [1] * KITTY
SOFT_PLAN = [1, 2, 2, 2]
# Cards set aside unseen so that the hands come out even (only 5 players need it).
REMOVED = {5: 3}
ONE = 1
MAX_TARGET = 1_000
# A safety stop for the long game (leaders tying forever); a target of 1000 needs about 40.
MAX_HANDS = 400

PASS, BID, CHOOSE, GIVE, OVER = "pass", "bid", "choose", "give", "over"

OPTIONS = {
    "soft": Option(False, help="targets of 1-2-2-2 cards (four rounds) instead of seven single"),
    "partners": Option(False, help="4 or 6 players in teams of two, seated opposite each other"),
    "gambling": Option(False, help="the winner collects the difference in score from each player"),
    "long_game": Option(False, help="play hands until someone reaches the target score"),
    "target": Option(100, minimum=1, help="long game: the score that ends the match"),
}


def team_rule(players: int, options: dict) -> list[list[int]]:
    """Partners sit opposite: 0-2 and 1-3 at four, 0-3, 1-4 and 2-5 at six."""
    if not options["partners"] or players not in (4, 6):
        return []
    half = players // 2
    return [[seat, seat + half] for seat in range(half)]


class KittyState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["partners"] and players not in (4, 6):
            raise InvalidOptions(f"partners needs 4 or 6 players (teams of two), not {players}")
        if options["target"] > MAX_TARGET:
            raise InvalidOptions(f"option 'target' must be at most {MAX_TARGET}", option="target")
        if options["target"] != OPTIONS["target"].default and not options["long_game"]:
            raise InvalidOptions(
                "option 'target' only applies to the long game (long_game=true)", option="target"
            )

    def setup(self) -> None:
        n = self.players
        teams = team_rule(n, self.options)
        self.sides: list[list[int]] = teams or [[seat] for seat in range(n)]
        self.side_of = [0] * n
        for i, side in enumerate(self.sides):
            for seat in side:
                self.side_of[seat] = i
        self.plan = SOFT_PLAN if self.options["soft"] else HARD_PLAN
        self.session = Session(n, self.seed)
        self.chips = [0] * n
        self.pot = Pot()
        self.phase = PASS
        self._everyone = tuple(range(n))
        self._acting = self._everyone
        self._start_hand()

    # -- one hand ---------------------------------------------------------------
    def _start_hand(self) -> None:
        n = self.players
        session = self.session
        forced = self.forced_deck if session.hand == 0 else None
        shoe = Shoe(pairs_deck(), Rng(session.hand_seed()), forced)
        self.hand_start = len(self._events)
        # The whole deck is dealt, top first: the kitty (kitty[0] is the next target),
        # the cards set aside, then one card at a time from the dealer's left (slicing
        # the shuffled deck is that deal, without 55 draws).
        cards = shoe.cards()
        removed = KITTY + REMOVED.get(n, 0)
        self.kitty = cards[:KITTY]
        self.removed = cards[KITTY:removed]
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i, seat in enumerate(deal_order(session.dealer, n)):
            self.hands[seat] = sorted(cards[removed + i :: n])
        self.discards: list[int] = []
        self.targets: list[int] = []
        self.bids: list[int] = []
        self.takers: list[int] = []
        self.round = 0
        # What perturb_hidden must leave in place: the latest passes (each known to its
        # passer) and the targets taken since everyone last passed (known to all).
        self.passed: list[int | None] = []
        self.taken: list[list[int]] = []
        # Each seat's ranks in hand, once each and in order (its legal passes and bids),
        # kept up to date as cards come and go. An entry is replaced, never changed in
        # place: a caller may still hold the list it was given.
        self._ranks = distinct_ranks(self.hands)
        self.log(
            {
                "type": "deal",
                "hand": session.hand,
                "dealer": session.dealer,
                "kitty": KITTY,
                "removed": len(self.removed),
                "sizes": [len(h) for h in self.hands],
            },
            {seat: {"cards": list(self.hands[seat])} for seat in range(n)},
        )
        self._turn_targets()

    def _turn_targets(self) -> None:
        count = self.plan[self.round]
        self.targets = self.kitty[:count]
        del self.kitty[:count]
        self.phase = PASS
        self._acting = self._everyone
        self._legal: list = self._ranks
        self.log({"type": "targets", "round": self.round, "cards": list(self.targets)})

    def _pass(self, cards: dict[int, int]) -> None:
        n = self.players
        hands = self.hands
        # Every seat passes, and the protocol hands the moves over in seat order.
        passed = list(cards.values())
        for hand, card in zip(hands, passed):
            hand.remove(card)
        for seat, card in enumerate(passed):
            hand = hands[seat + 1 if seat + 1 < n else 0]
            hand.append(card)
            hand.sort()
        private = {seat: {"gave": passed[seat], "got": passed[seat - 1]} for seat in range(n)}
        self.log({"type": "pass"}, private)
        self.passed = passed
        # Anyone may have passed on a target they took: nobody knows where it is now.
        self.taken = []
        self.phase = BID
        self._ranks = self._legal = distinct_ranks(self.hands)

    def _bid(self, bids: dict[int, int]) -> None:
        n = self.players
        self.bids = placed = list(bids.values())  # every seat, in seat order
        ranks = self._ranks
        hands = self.hands
        for seat, card in enumerate(placed):
            hand = hands[seat]
            hand.remove(card)
            if card not in hand:
                # A new list (see ``_ranks``): its one ``card`` taken out.
                left = ranks[seat][:]
                left.remove(card)
                ranks[seat] = left
        passed = self.passed
        if passed:
            # A receiver that bids the rank it was given may or may not still hold one.
            for seat, gift in enumerate(passed):
                if placed[seat + 1 if seat + 1 < n else 0] == gift:
                    passed[seat] = None
        self.log({"type": "bids", "bids": list(placed)})
        once = [card for card in set(placed) if placed.count(card) == 1]
        once.sort()
        # Unmatched bids from lowest: the first chooses (or gives, with the 1), the second takes.
        self.takers = [placed.index(card) for card in once[: len(self.targets)]]
        self.discards.extend(placed)
        if not self.takers:
            self._end_round()
            return
        first = self.takers[0]
        self._acting = (first,)
        if self.bids[first] == ONE:
            self.phase = GIVE
        elif len(set(self.targets)) > 1:
            self.phase = CHOOSE
        else:
            self._take(first, self.targets[0], "lowest")
            self._end_round()
            return
        self._legal = [None] * n

    def _take(self, seat: int, card: int, how: str) -> None:
        self.targets.remove(card)
        self.hands[seat].append(card)
        self.hands[seat].sort()
        ranks = self._ranks[seat]
        if card not in ranks:
            self._ranks[seat] = sorted([*ranks, card])
        self.taken.append([seat, card])
        self.log({"type": "take", "seat": seat, "card": card, "how": how})

    def _end_round(self) -> None:
        """The second bidder takes what is left; unclaimed targets are discarded."""
        if len(self.takers) > 1 and self.targets:
            self._take(self.takers[1], self.targets[0], "second")
        if self.targets:
            self.log({"type": "discard", "cards": list(self.targets)})
            self.discards.extend(self.targets)
            self.targets = []
        self.bids = []
        self.takers = []
        self.round += 1
        if self.round < len(self.plan):
            self._turn_targets()
        else:
            self._score_hand()

    def _score_hand(self) -> None:
        counts = [[0] * 11 for _ in self.sides]
        for seat, hand in enumerate(self.hands):
            row = counts[self.side_of[seat]]
            for card in hand:
                row[card] += 1
        by_side = most_of_each_rank(counts)
        points = [by_side[self.side_of[seat]] for seat in range(self.players)]
        deltas = self._payout(points) if self.options["gambling"] else [0] * self.players
        self.log({"type": "score", "points": points, "chips": deltas, "pot": self.pot.chips})
        self.session.finish_hand(points, chips=deltas)
        if self._match_goes_on():
            self._start_hand()
        else:
            self.phase = OVER
            self._acting = ()
            self._legal = [None] * self.players

    def _payout(self, points: list[int]) -> list[int]:
        """Each seat behind pays the gap to the top score; tied winners share (odd chips wait)."""
        top = max(points)
        winners = [seat for seat, p in enumerate(points) if p == top]
        deltas = [0] * self.players
        for seat, p in enumerate(points):
            if p < top:
                deltas[seat] -= top - p
                self.pot.add(top - p)
        for seat, share in self.pot.split(winners).items():
            deltas[seat] += share
        for seat, delta in enumerate(deltas):
            self.chips[seat] += delta
        return deltas

    def _match_goes_on(self) -> bool:
        if not self.options["long_game"] or self.session.hand >= MAX_HANDS:
            return False
        totals = self.session.totals
        top = max(totals)
        if top < self.options["target"]:
            return True
        # Leaders tied at the end play another hand (teammates always tie: count sides).
        leaders = {self.side_of[seat] for seat, t in enumerate(totals) if t == top}
        return len(leaders) > 1

    # -- the protocol's reads, without its hook calls (every seat asks on every pass
    # and bid); the same answers as State's own.
    def to_act(self) -> tuple[int, ...]:
        return self._acting

    def legal_actions(self, seat: int) -> list:
        if seat not in self._acting:
            return []
        legal = self._legal[seat]
        return self._legal_actions(seat) if legal is None else legal

    # -- protocol hooks -----------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return self._acting

    def _legal_actions(self, seat: int) -> list:
        legal = self._legal[seat]
        if legal is not None:
            return legal
        # Passes and bids come from ``_ranks``: only choosing and giving get here.
        if self.phase == CHOOSE:
            legal = sorted(set(self.targets))
        else:
            mine = self.side_of[seat]
            others = [s for s in range(self.players) if self.side_of[s] != mine]
            legal = [{"card": c, "to": s} for c in sorted(set(self.targets)) for s in others]
        self._legal[seat] = legal
        return legal

    def _apply(self, actions: dict) -> None:
        phase = self.phase
        if phase == PASS:
            self._pass(actions)
        elif phase == BID:
            self._bid(actions)
        elif phase == CHOOSE:
            self._take(self.takers[0], actions[self.takers[0]], "lowest")
            self._end_round()
        else:
            giver = self.takers[0]
            gift = actions[giver]
            self.log({"type": "give", "seat": giver, "card": gift["card"], "to": gift["to"]})
            self._take(gift["to"], gift["card"], "gift")
            self._end_round()

    def _observation(self, seat: int | None) -> dict:
        session = self.session
        view = {
            "seat": seat,
            "players": self.players,
            "teams": team_rule(self.players, self.options),
            "soft": self.options["soft"],
            "gambling": self.options["gambling"],
            "long_game": self.options["long_game"],
            "target": self.options["target"] if self.options["long_game"] else None,
            "hand_index": session.hand,
            "dealer": session.dealer,
            "totals": list(session.totals),
            "chips": list(self.chips),
            "pot": self.pot.chips,
            "past_hands": [dict(h) for h in session.hands],
            "phase": self.phase,
            "to_act": list(self._to_act()),
            "round": self.round,
            "rounds": len(self.plan),
            "targets": list(self.targets),
            "kitty_left": len(self.kitty),
            "removed": len(self.removed),
            "hand_sizes": [len(h) for h in self.hands],
            "discards": sorted(self.discards),
            "bids": list(self.bids),
            "history": self.events(seat, self.hand_start),
        }
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def _result(self) -> dict:
        totals = list(self.session.totals)
        scores = list(self.chips) if self.options["gambling"] else totals
        seats = seat_results(scores, ranks_from_scores(scores), points=totals, chips=self.chips)
        return {"seats": seats, "pot": self.pot.chips}

    def conserved(self) -> dict[str, int]:
        cards = sum(len(h) for h in self.hands) + len(self.kitty) + len(self.removed)
        cards += len(self.discards) + len(self.targets)
        return {"cards": cards, "chips": sum(self.chips) + self.pot.chips}

    def known_cards(self, viewer: int | None, holder: int) -> list[int]:
        """Cards ``viewer`` knows are in ``holder``'s hand (``None`` = spectator)."""
        cards = [card for seat, card in self.taken if seat == holder]
        if viewer is not None and self.passed and holder == (viewer + 1) % self.players:
            gift = self.passed[viewer]
            if gift is not None:
                cards.append(gift)
        return cards

    def perturb_hidden(self, seat: int | None, rng: Rng) -> KittyState:
        """Shuffle the kitty, the removed cards and the other hands, except the cards
        ``seat`` knows are in a hand (``known_cards``).
        """
        dup = self.clone()
        pinned: dict[int, list[int]] = {}
        loose: list[list[int]] = []
        for other, hand in enumerate(dup.hands):
            if other == seat:
                continue
            pinned[other] = self.known_cards(seat, other)
            free = list(hand)
            for card in pinned[other]:
                free.remove(card)
            loose.append(free)
        redistribute(rng, [*loose, dup.kitty, dup.removed])
        for other, free in zip(pinned, loose):
            dup.hands[other] = sorted(free + pinned[other])
        dup._ranks = distinct_ranks(dup.hands)
        dup._legal = dup._ranks if dup.phase in (PASS, BID) else [None] * dup.players
        return dup


GAME = Game(
    slug="pairs-kitty",
    title="Kitty",
    version=1,
    min_players=3,
    max_players=6,
    state_class=KittyState,
    summary=(
        "A bidding game with the Pairs deck. Seven cards form a face-down kitty and the rest is "
        "dealt out. Each round a target is turned up, everyone passes a card to the left, then "
        "everyone bids a card in secret; the lowest bid nobody matched takes the target (the 1 "
        "wins but must give it away). After the kitty is used up, whoever holds the most cards "
        "of a rank scores that rank. Options: soft (1-2-2-2 targets), partners, gambling "
        "payouts, and a long game to 100."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    team_rule=team_rule,
    max_actions=MAX_HANDS * 3 * KITTY,
)
