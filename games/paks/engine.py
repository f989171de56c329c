"""Paks: a fishing game for 2-4 or 6 players; capture board cards into paks, steal paks.

First side to ``target`` (500) points wins. Four and six play in two teams.
Rules, notation and decisions in docs/rules/paks.md. This module runs the
turns and the hands; the legal moves are worked out in ``games/paks/moves.py``,
card values in ``games/paks/values.py``, the heuristic in ``games/paks/policy.py``.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter

from games.cards import SUITS, Shoe, standard_deck
from games.paks.moves import DONE, can_finish, captures, laying, steals
from games.paks.policy import heuristic
from games.paks.values import capture_value, card_key, pak_order, pak_value, points
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng
from games.scoring import Session, ranks_from_scores, seat_results
from games.secret_hands import redistribute

HAND_SIZE = 5
BOARD_SIZE = 3
MAX_TARGET = 5000
PERTURB_TRIES = 20  # reshuffles of hidden cards before the acting hand is kept as is
OPTIONS = {
    "target": Option(
        500, minimum=1, help=f"the score that wins the match (1 to {MAX_TARGET}; the book: 500)"
    ),
}

PASS = "pass"  # form no pak this turn
END = "end"  # steal nothing more; the turn ends

# Phases of a turn, then of the end of a hand.
PAK = "pak"  # choose a board card to capture, or pass
PAK_CARDS = "pak_cards"  # lay hand cards on the chosen board card
STEAL = "steal"  # choose a pak to steal, or end the turn
STEAL_CARDS = "steal_cards"  # take more paks of that suit and owner, lay hand cards
DISCARD = "discard"  # every side throws away its share of the lowest pak count
OVER = "over"


def team_rule(players: int, options: dict) -> list[list[int]]:
    """Four play two teams of two, six play two teams of three; partners alternate seats."""
    if players in (4, 6):
        return [list(range(0, players, 2)), list(range(1, players, 2))]
    return []


class PaksState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if players == 5:
            raise InvalidOptions(
                "paks cannot be played by 5: it takes 2 or 3 players alone, or 4 or 6 in two teams"
            )
        if options["target"] > MAX_TARGET:
            raise InvalidOptions(f"option 'target' must be at most {MAX_TARGET}", option="target")

    def setup(self) -> None:
        n = self.players
        self.sides: list[list[int]] = team_rule(n, self.options) or [[s] for s in range(n)]
        self.side_of = [0] * n
        for index, side in enumerate(self.sides):
            for seat in side:
                self.side_of[seat] = index
        self.decks = 1 if n == 2 else 2
        self.session = Session(n, self.seed)
        self.phase = OVER
        self._start_hand()

    # -- one hand -------------------------------------------------------------------
    def _start_hand(self) -> None:
        n = self.players
        forced = self.forced_deck if self.session.hand == 0 else None
        shoe = Shoe(standard_deck(self.decks), Rng(self.session.hand_seed()), forced)
        # Top of the stock is the end of the list.
        self.stock: list[str] = list(reversed(shoe.cards()))
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.paks: list[list[list[str]]] = [[] for _ in range(n)]
        self.discarded: list[str] = []
        self.discard_left: list[dict[str, int]] = []
        self.hand_events_start = len(self._events)
        dealer = self.session.dealer
        order = self.session.order_from(self.session.left_of(dealer))
        for _ in range(HAND_SIZE):
            for seat in order:
                self.hands[seat].append(self.stock.pop())
        self.board = [self.stock.pop() for _ in range(BOARD_SIZE)]
        self.log({"type": "hand", "hand": self.session.hand, "dealer": dealer})
        for seat in order:
            self.hands[seat].sort(key=card_key)
            self.log(
                {"type": "deal", "seat": seat, "count": HAND_SIZE},
                {seat: {"cards": list(self.hands[seat])}},
            )
        self.log({"type": "board", "cards": list(self.board)})
        self.turn = dealer
        self._next_turn()

    def _reset_turn(self) -> None:
        self.drawn: str | None = None
        self.drawn_public = False
        self.full_table = False
        self.formed_suit: str | None = None
        self.stolen_suits: list[str] = []
        self.pending: dict | None = None
        self._options: list = []
        self._legal_cache: dict[int, list] = {}

    def _next_turn(self) -> None:
        """Draw for each seat in turn until one has a choice to make, or the stock is out."""
        while self.stock:
            self.turn = seat = (self.turn + 1) % self.players
            self._reset_turn()
            card = self.drawn = self.stock.pop()
            on_board = {c[1] for c in self.board}
            self.full_table = len(on_board) == 4
            if self.full_table:
                # A full table takes any card: the draw stays secret.
                self.log({"type": "draw", "seat": seat, "hidden": True}, {seat: {"card": card}})
            else:
                self.drawn_public = True
                self.log({"type": "draw", "seat": seat, "card": card})
                if card[1] not in on_board:
                    self.board.append(card)
                    self.log({"type": "feed", "seat": seat, "card": card})
                    continue
            hand = self.hands[seat]
            insort(hand, card, key=card_key)
            captures = self._captures(seat)
            if captures:
                self.phase = PAK
                self._options = captures
                return
            if self.full_table:
                self.log({"type": "show", "seat": seat, "cards": list(hand)})
            else:
                # Logged like a chosen pass: others must not learn the hand could not pak.
                self.log({"type": "pass", "seat": seat})
        self._end_hand()

    def _captures(self, seat: int) -> list[str]:
        return captures(self.hands[seat], self.board)

    def _steals(self, seat: int) -> list[list[int]]:
        barred = [self.formed_suit, *self.stolen_suits]
        return steals(self.hands[seat], self.paks, seat, barred)

    def _after_pak_or_steal(self) -> None:
        self.pending = None
        steals = self._steals(self.turn)
        if steals:
            self.phase = STEAL
            self._options = steals
        else:
            self._next_turn()

    def _finish_pak(self) -> None:
        seat, pending = self.turn, self.pending
        target = pending["target"]
        self.board.remove(target)
        pak = pak_order([target, *pending["cards"]])
        self.paks[seat].append(pak)
        self.formed_suit = target[1]
        self.log(
            {
                "type": "pak",
                "seat": seat,
                "captured": target,
                "cards": list(pending["cards"]),
                "value": capture_value(pending["cards"]),
                "pak": list(pak),
            }
        )
        self._after_pak_or_steal()

    def _finish_steal(self) -> None:
        seat, pending = self.turn, self.pending
        victim, taken = pending["victim"], sorted(pending["paks"], reverse=True)
        stolen = [self.paks[victim].pop(index) for index in taken]
        stolen.reverse()
        pak = pak_order([card for p in stolen for card in p] + pending["cards"])
        self.paks[seat].append(pak)
        self.stolen_suits.append(pending["suit"])
        self.log(
            {
                "type": "steal",
                "seat": seat,
                "victim": victim,
                "stolen": stolen,
                "cards": list(pending["cards"]),
                "value": capture_value(pending["cards"]),
                "pak": list(pak),
            }
        )
        self._after_pak_or_steal()

    # -- end of a hand --------------------------------------------------------------
    def side_paks(self, side: int) -> list[list[int]]:
        """[owner, index] of every pak of a side (partners pool their paks)."""
        return [[s, i] for s in self.sides[side] for i in range(len(self.paks[s]))]

    def _end_hand(self) -> None:
        self._reset_turn()
        self.log({"type": "stock_out"})
        counts = [
            Counter(self.paks[s][i][0][1] for s, i in self.side_paks(side))
            for side in range(len(self.sides))
        ]
        lowest = {suit: min(c[suit] for c in counts) for suit in SUITS}
        self.discard_left = [{s: n for s, n in lowest.items() if n} for _ in self.sides]
        self.log({"type": "lowest", "counts": {s: n for s, n in lowest.items() if n}})
        if any(self.discard_left):
            self.phase = DISCARD
        else:
            self._score_hand()

    def _discard(self, side: int, owner: int, index: int) -> None:
        pak = self.paks[owner].pop(index)
        suit = pak[0][1]
        left = self.discard_left[side]
        left[suit] -= 1
        if not left[suit]:
            del left[suit]
        self.discarded.extend(pak)
        self.log({"type": "discard", "side": side, "seat": owner, "pak": pak})

    def _score_hand(self) -> None:
        side_points = [
            sum(points(self.paks[s][i]) for s, i in self.side_paks(side))
            for side in range(len(self.sides))
        ]
        deltas = [side_points[self.side_of[seat]] for seat in range(self.players)]
        self.log({"type": "score", "points": side_points})
        self.session.finish_hand(deltas, points=side_points)
        totals = [self.session.totals[side[0]] for side in self.sides]
        best = max(totals)
        if best >= self.options["target"] and totals.count(best) == 1:
            self.phase = OVER
            self.log({"type": "match_over", "totals": totals})
            return
        self._start_hand()

    # -- protocol hooks -------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        if self.phase == OVER:
            return ()
        if self.phase == DISCARD:
            return tuple(side[0] for side, left in zip(self.sides, self.discard_left) if left)
        return (self.turn,)

    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is None:
            cached = self._legal_cache[seat] = self._compute_legal(seat)
        return cached

    def _compute_legal(self, seat: int) -> list:
        phase, pending = self.phase, self.pending
        if phase == PAK:
            # Board cards to capture, found when the turn reached this phase.
            legal: list = list(self._options)
            if not self.full_table:
                legal.append(PASS)
            return legal
        if phase == STEAL:
            return [*self._options, END]
        if phase == DISCARD:
            side = self.side_of[seat]
            left = self.discard_left[side]
            return [
                pair for pair in self.side_paks(side) if self.paks[pair[0]][pair[1]][0][1] in left
            ]
        # PAK_CARDS or STEAL_CARDS: finish, take another pak (a steal), or lay a card.
        return laying(self.hands[seat], pending, self.paks)

    def _default_action(self, seat: int) -> object:
        legal = self._legal_actions(seat)
        if self.phase == PAK and not self.full_table:
            return PASS
        if self.phase == STEAL:
            return END
        if self.phase == DISCARD:
            # The pak scoring least is never a worse discard.
            return min(legal, key=lambda pair: points(self.paks[pair[0]][pair[1]]))
        return legal[0]

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        phase = self.phase
        if phase == DISCARD:
            for seat, (owner, index) in actions.items():
                self._discard(self.side_of[seat], owner, index)
            if not any(self.discard_left):
                self._score_hand()
            return
        seat = self.turn
        action = actions[seat]
        if action == PASS:
            self.log({"type": "pass", "seat": seat})
            self._next_turn()
        elif action == END:
            self._next_turn()
        elif action == DONE:
            if phase == PAK_CARDS:
                self._finish_pak()
            else:
                self._finish_steal()
        elif phase == PAK:
            self.pending = {"target": action, "cards": []}
            self.phase = PAK_CARDS
            self.log({"type": "target", "seat": seat, "card": action})
        elif phase == STEAL:
            victim, index = action
            suit = self.paks[victim][index][0][1]
            self.pending = {"victim": victim, "suit": suit, "paks": [index], "cards": []}
            self.phase = STEAL_CARDS
            self.log({"type": "take", "seat": seat, "victim": victim, "pak": index})
        elif type(action) is int:
            self.pending["paks"].append(action)
            self.log(
                {"type": "take", "seat": seat, "victim": self.pending["victim"], "pak": action}
            )
        else:
            self.hands[seat].remove(action)
            self.pending["cards"].append(action)
            self.log({"type": "lay", "seat": seat, "card": action})

    def _observation(self, seat: int | None) -> dict:
        session = self.session
        view = {
            "seat": seat,
            "players": self.players,
            "teams": team_rule(self.players, self.options),
            "target": self.options["target"],
            "hand_index": session.hand,
            "dealer": session.dealer,
            "totals": list(session.totals),
            "past_hands": [
                dict(h, points=list(h["points"]), deltas=list(h["deltas"])) for h in session.hands
            ],
            "phase": self.phase,
            "to_act": list(self._to_act()),
            "turn": self.turn,
            "board": list(self.board),
            "full_table": len({c[1] for c in self.board}) == 4,
            "stock": len(self.stock),
            "hand_sizes": [len(hand) for hand in self.hands],
            "paks": [[list(p) for p in paks] for paks in self.paks],
            "pak_values": [[pak_value(p) for p in paks] for paks in self.paks],
            "drawn": self.drawn if self.drawn_public or seat == self.turn else None,
            "formed_suit": self.formed_suit,
            "stolen_suits": list(self.stolen_suits),
            "pending": _copy_pending(self.pending),
            "discard_left": [dict(left) for left in self.discard_left]
            if self.phase == DISCARD
            else None,
            "history": self.events(seat, self.hand_events_start),
        }
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def _result(self) -> dict:
        totals = list(self.session.totals)
        return {"seats": seat_results(totals, ranks_from_scores(totals))}

    def perturb_hidden(self, seat: int | None, rng: Rng) -> PaksState:
        """Shuffle every card ``seat`` cannot see among the hidden places.

        The phase itself tells everyone something about the acting seat's hand
        (it can capture, or beat the pak it chose): deals that contradict it are
        redrawn, and after a few misses the acting hand stays as it is.
        """
        for attempt in range(PERTURB_TRIES + 1):
            dup = self.clone()
            keep = {seat}
            if attempt == PERTURB_TRIES and self.phase not in (DISCARD, OVER):
                keep.add(self.turn)
            hidden = [hand for other, hand in enumerate(dup.hands) if other not in keep]
            redistribute(rng, [*hidden, dup.stock])
            for hand in hidden:
                hand.sort(key=card_key)
            if dup._repair_turn():
                break
        hand = dup.hands[dup.turn]
        if dup.drawn is not None and not dup.drawn_public and dup.turn not in keep and hand:
            # A secret draw is just one of the drawer's hidden cards.
            dup.drawn = hand[-1]
        return dup

    def _repair_turn(self) -> bool:
        """Recompute the acting seat's options; False if its hand no longer fits the phase."""
        self._legal_cache = {}
        phase, seat = self.phase, self.turn
        if phase == PAK:
            self._options = self._captures(seat)
            return bool(self._options)
        if phase == STEAL:
            self._options = self._steals(seat)
            return bool(self._options)
        if phase in (PAK_CARDS, STEAL_CARDS):
            return can_finish(self.hands[seat], self.pending, self.paks)
        return True

    def conserved(self) -> dict[str, int]:
        cards = Counter(self.stock)
        cards.update(self.board)
        cards.update(self.discarded)
        for seat in range(self.players):
            cards.update(self.hands[seat])
            for pak in self.paks[seat]:
                cards.update(pak)
        if self.pending:
            cards.update(self.pending["cards"])
        return {"cards": sum(cards.values()), **cards}


def _copy_pending(pending: dict | None) -> dict | None:
    if pending is None:
        return None
    return {k: list(v) if isinstance(v, list) else v for k, v in pending.items()}


GAME = Game(
    slug="paks",
    title="Paks",
    version=1,
    min_players=2,
    max_players=6,
    state_class=PaksState,
    summary=(
        "A fishing game: each turn you draw; a card whose suit is not on the board joins it, "
        "otherwise you may capture one board card with hand cards of its suit worth more "
        "(low cards pair up: 5-2 is 52) to form a pak, then steal other players' paks the "
        "same way. When the stock is out, every side throws away as many paks of each suit "
        "as the side holding fewest; the rest score 20, 10 or 5 a card. First to 500 wins. "
        "Two or three play alone, four and six in two teams (one deck for two, two decks "
        "otherwise; five cannot play)."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    team_rule=team_rule,
)
