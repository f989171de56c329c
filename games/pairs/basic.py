"""Pairs: hit or fold with face-up cards from the triangular deck; a pair or a
fold scores points, and the first player to reach the target loses.

Also the simple variants (Continuous, Pieces of Eight, Calamities) and the
gambling rules (Seattle, Tacoma, Olympia, Portland). Rules: docs/rules/pairs.md.
"""

from __future__ import annotations

import copy

from games.pairs.basic_gambling import RULES, settle
from games.pairs.basic_policy import heuristic
from games.pairs.basic_shoe import OutOfCards, PairsShoe
from games.pairs.deal import deal_for_low, natural_low
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng, derive_seed
from games.scoring import Pot, ranks_from_scores, seat_results

HIT = "hit"
FOLD = "fold"
EIGHTS = "eights"
CALAMITY = 7
EIGHT = 8
MAX_GAMES = 20
SIX_PLUS_TARGET = 11
# Games in a match when the ``games`` option is left at 0 ("automatic"): one
# without gambling; with gambling at least this many, rounded up to whole turns
# of the deal around the table so every seat deals equally often.
GAMES_WITHOUT_GAMBLING = 1
GAMES_WITH_GAMBLING = 5

OPTIONS = {
    "continuous": Option(
        False, help="Continuous Pairs: only the player who pairs or folds discards"
    ),
    "pieces_of_eight": Option(False, help="discard an 8 instead of hitting to take two cards"),
    "calamities": Option(False, help="7s start below 1s, and a player who receives a 7 acts again"),
    "gambling": Option("none", choices=RULES, help="payouts at the end of each game"),
    "games": Option(
        0,
        minimum=0,
        help=f"games in the match (1 to {MAX_GAMES}); 0 = {GAMES_WITHOUT_GAMBLING} "
        f"without gambling, with gambling the first multiple of the player count "
        f"from {GAMES_WITH_GAMBLING} (every seat deals equally often)",
    ),
    "stake": Option(6, minimum=1, help="Tacoma: what the loser pays into the prize"),
}


def target_score(players: int) -> int:
    """The basic game's losing score: 60 divided by the players, plus one (31, 21, 16, 13, 11)."""
    return 60 // players + 1


def losing_score(players: int) -> int:
    """The target: the booklet's chart, which stops at 11 for six or more players.

    ``target_score`` is its formula (60 / players + 1), which the chart follows
    up to six players; for seven and eight the formula would give 9 and 8.
    """
    return max(target_score(players), SIX_PLUS_TARGET)


def session_games(players: int, gambling: str) -> int:
    """Games in a match whose ``games`` option is 0: 1 without gambling; with
    gambling at least five, in whole turns of the deal (6, 6, 8, 5, 6, 7, 8
    for 2 to 8 players)."""
    if gambling == "none":
        return GAMES_WITHOUT_GAMBLING
    return -(-GAMES_WITH_GAMBLING // players) * players


def calamity_low(card: int) -> int:
    """Calamities: a 7 counts below a 1 when deciding who starts."""
    return 0 if card == CALAMITY else card


def fold_action(seat: int, card: int) -> str:
    """Continuous Pairs fold notation: take ``card`` from ``seat``'s stack."""
    return f"fold:{seat}:{card}"


class PairsState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["games"] > MAX_GAMES:
            raise InvalidOptions(f"option 'games' must be at most {MAX_GAMES}", option="games")
        if options["stake"] > 1_000_000:
            raise InvalidOptions("option 'stake' must be at most 1000000", option="stake")

    # -- setup and dealing ------------------------------------------------------
    def setup(self) -> None:
        options = self.options
        self.continuous: bool = options["continuous"]
        self.eights: bool = options["pieces_of_eight"]
        self.calamities: bool = options["calamities"]
        self.gambling: str = options["gambling"]
        self.stake: int = options["stake"]
        self.total_games: int = options["games"] or session_games(self.players, self.gambling)
        self._low_key = calamity_low if self.calamities else natural_low
        self.target = losing_score(self.players)
        self.chips = [0] * self.players
        self.pot = Pot()
        self.losses = [0] * self.players
        self.session_points = [0] * self.players
        self.game_index = 0
        self.turn = -1
        self._start_game()

    def _start_game(self) -> None:
        n = self.players
        # The deal passes one seat left per game; seat 0 deals the first.
        self.dealer = self.game_index % n
        forced = self.forced_deck if self.game_index == 0 else None
        self.shoe = PairsShoe(Rng(derive_seed(self.seed, "hand", self.game_index)), forced)
        self._shuffles_logged = 0
        self.stacks: list[list[int]] = [[] for _ in range(n)]
        self.scores = [0] * n
        self.score_cards: list[list[int]] = [[] for _ in range(n)]
        self.round = -1
        self._redealt = True
        self.log(
            {"type": "game", "game": self.game_index, "dealer": self.dealer, "target": self.target}
        )
        self._deal_round()

    def _new_round(self) -> None:
        self.round += 1
        self._round_start = len(self._events)
        self.log({"type": "round", "round": self.round})

    def _deal_round(self) -> None:
        """One face-up card each, from the dealer's left; lowest card starts."""
        self.round += 1
        self._round_start = len(self._events)
        n = self.players
        order = [(self.dealer + 1 + i) % n for i in range(n)]
        shoe = self.shoe
        first_draw, shuffles = shoe.drawn, shoe.shuffles
        stacks, starter, dealt = deal_for_low(shoe, order, self._low_key)
        # One event for the whole deal, tie-breakers included, in deal order.
        event = {
            "type": "deal",
            "round": self.round,
            "cards": [[seat, card] for seat, card, _ in dealt],
            "start": starter,
        }
        if len(dealt) > n:
            replaced = [index for index, (_, _, paired) in enumerate(dealt) if paired]
            if replaced:
                event["replaced"] = replaced
        if shoe.shuffles != shuffles:
            # The pile ran out mid-deal: say before which card of the deal.
            event["shuffled_before"] = shoe.shuffled_at[-1] - first_draw
            self._log_shuffles()
        self.log(event)
        self.stacks = [stacks[seat] for seat in range(n)]
        self.turn = starter
        self._redealt = True

    def _log_shuffles(self) -> None:
        while self._shuffles_logged < self.shoe.shuffles:
            self._shuffles_logged += 1
            self.log({"type": "shuffle", "burned": self.shoe.hidden})

    def _draw(self) -> int:
        shoe = self.shoe
        card = shoe.draw()
        if shoe.shuffles != self._shuffles_logged:
            self._log_shuffles()
        return card

    # -- protocol hooks -------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return (self.turn,) if self.turn >= 0 else ()

    def _legal_actions(self, seat: int) -> list:
        stack = self.stacks[seat]
        if not stack:
            return [HIT]  # Continuous: an empty stack must hit.
        actions = [HIT]
        if self.eights and EIGHT in stack:
            actions.append(EIGHTS)
        if not self.continuous:
            actions.append(FOLD)
            return actions
        for other, cards in enumerate(self.stacks):
            for card in sorted(cards):
                actions.append(fold_action(other, card))
        return actions

    def _default_action(self, seat: int) -> str:
        # The least risky move: fold on the lowest card in play when folding is allowed.
        if not self.stacks[seat]:
            return HIT
        if not self.continuous:
            return FOLD
        low = min(card for cards in self.stacks for card in cards)
        holder = next(s for s, cards in enumerate(self.stacks) if low in cards)
        return fold_action(holder, low)

    def _apply(self, actions: dict) -> None:
        seat, action = next(iter(actions.items()))
        # Set when this move ended the round or the game and the next deal is
        # already on the table: the turn then belongs to that deal.
        self._redealt = False
        try:
            if action == HIT:
                self._hit(seat)
            elif action == EIGHTS:
                self._play_eight(seat)
            elif action == FOLD:
                self._fold(seat, *self._lowest_in_play(seat))
            else:
                _, holder, card = action.split(":")
                self._fold(seat, int(holder), int(card))
        except OutOfCards:
            self._out_of_cards(seat)

    # -- moves --------------------------------------------------------------------
    def _receive(self, seat: int) -> tuple[int, bool]:
        """Deal ``seat`` one card; score it if it pairs. Returns (card, paired)."""
        card = self._draw()
        stack = self.stacks[seat]
        if card in stack:
            self._pair(seat, card)
            return card, True
        stack.append(card)
        self.log({"type": "hit", "seat": seat, "card": card})
        return card, False

    def _pair(self, seat: int, card: int) -> None:
        self.log({"type": "pair", "seat": seat, "card": card, "points": card})
        self.stacks[seat].remove(card)
        self.shoe.discard(card)  # one of the pair is discarded, the other kept
        self._score(seat, card)

    def _hit(self, seat: int) -> None:
        # The hot path of every playout: _receive and _after_cards, inlined.
        card = self._draw()
        stack = self.stacks[seat]
        if card in stack:
            self._pair(seat, card)
            if self._redealt:
                return
        else:
            stack.append(card)
            self.log({"type": "hit", "seat": seat, "card": card})
        if card != CALAMITY or not self.calamities:
            self.turn = (seat + 1) % self.players

    def _play_eight(self, seat: int) -> None:
        self.stacks[seat].remove(EIGHT)
        self.shoe.discard(EIGHT)
        self.log({"type": "eights", "seat": seat})
        first, paired = self._receive(seat)
        calamity = first == CALAMITY
        if not paired:  # a pair on the first card stops the second
            second, paired = self._receive(seat)
            calamity = calamity or second == CALAMITY
        self._after_cards(seat, paired, calamity)

    def _after_cards(self, seat: int, paired: bool, calamity: bool) -> None:
        if self._redealt:
            return
        if not (self.calamities and calamity):
            self.turn = (seat + 1) % self.players

    def _lowest_in_play(self, seat: int) -> tuple[int, int]:
        """Basic fold: the lowest card in play (own stack first when tied, then leftwards)."""
        n = self.players
        best = None
        for step in range(n):
            holder = (seat + step) % n
            if self.stacks[holder]:
                low = min(self.stacks[holder])
                if best is None or low < best[1]:
                    best = (holder, low)
        return best

    def _fold(self, seat: int, holder: int, card: int) -> None:
        self.stacks[holder].remove(card)
        self.log({"type": "fold", "seat": seat, "from": holder, "card": card, "points": card})
        self._score(seat, card)
        if self.continuous and not self._redealt:
            self.turn = (seat + 1) % self.players

    def _score(self, seat: int, card: int) -> None:
        """Keep ``card`` for points, clear the cards the rules discard, check the target."""
        self.scores[seat] += card
        self.score_cards[seat].append(card)
        if self.continuous:
            self._discard_stack(seat)
            self._new_round()
        else:
            self._discard_all()
        if self.scores[seat] >= self.target:
            self._end_game(seat)
        elif not self.continuous:
            self._deal_round()

    def _discard_all(self) -> None:
        in_play = []
        for cards in self.stacks:
            in_play += cards
        self.shoe.discard(*in_play)
        self.stacks = [[] for _ in self.stacks]

    def _discard_stack(self, seat: int) -> None:
        self.shoe.discard(*self.stacks[seat])
        self.stacks[seat] = []

    def _out_of_cards(self, seat: int) -> None:
        """Every card is in play or scored: clear the table (docs: decisions)."""
        self.log({"type": "out_of_cards"})
        self._discard_all()
        if self.continuous:
            self._new_round()
            self.turn = seat
        else:
            self._deal_round()

    def _end_game(self, loser: int) -> None:
        deltas = settle(self.gambling, self.scores, loser, self.stake, self.pot)
        for seat, delta in enumerate(deltas):
            self.chips[seat] += delta
            self.session_points[seat] += self.scores[seat]
        self.losses[loser] += 1
        self.log(
            {
                "type": "game_over",
                "game": self.game_index,
                "loser": loser,
                "scores": list(self.scores),
                "chips": deltas,
                "pot": self.pot.chips,
            }
        )
        self.game_index += 1
        if self.game_index < self.total_games:
            self._start_game()
        else:
            self.turn = -1
            self._redealt = True

    # -- views ----------------------------------------------------------------------
    def _observation(self, seat: int | None) -> dict:
        in_play = [card for cards in self.stacks for card in cards]
        scored = [card for cards in self.score_cards for card in cards]
        return {
            "seat": seat,
            "players": self.players,
            "game": self.game_index,
            "games": self.total_games,
            "round": self.round,
            "dealer": self.dealer,
            "to_act": self.turn if self.turn >= 0 else None,
            "target": self.target,
            "stacks": [list(cards) for cards in self.stacks],
            "scores": list(self.scores),
            "score_cards": [list(cards) for cards in self.score_cards],
            "draw_pile": len(self.shoe),
            "discard_pile": len(self.shoe.discards),
            "burned": self.shoe.hidden,
            "seen_discards": sorted(self.shoe.seen),
            "unseen": self.shoe.unseen_counts(in_play + scored),
            "continuous": self.continuous,
            "pieces_of_eight": self.eights,
            "calamities": self.calamities,
            "gambling": self.gambling,
            "chips": list(self.chips),
            "pot": self.pot.chips,
            "losses": list(self.losses),
            "session_points": list(self.session_points),
            "round_events": self.events(None, self._round_start),
        }

    def _result(self) -> dict:
        if self.gambling != "none":
            scores = list(self.chips)
            ranks = ranks_from_scores(scores)
        else:
            # Fewer games lost first, then fewer points.
            scores = list(self.session_points)
            keys = [loss * 1_000_000 + pts for loss, pts in zip(self.losses, scores)]
            ranks = ranks_from_scores(keys, higher_is_better=False)
        seats = seat_results(
            scores,
            ranks,
            points=list(self.session_points),
            losses=list(self.losses),
            chips=list(self.chips),
        )
        return {"seats": seats, "pot": self.pot.chips}

    def clone(self) -> PairsState:
        """A deep copy without deep-copying the log: logged events and recorded
        moves are never changed once written, so the copies share them.
        """
        dup = self.__class__.__new__(self.__class__)
        dup.__dict__.update(self.__dict__)
        dup.moves = list(self.moves)
        dup._events = list(self._events)
        dup.stacks = [list(cards) for cards in self.stacks]
        dup.score_cards = [list(cards) for cards in self.score_cards]
        for name in ("scores", "chips", "losses", "session_points"):
            setattr(dup, name, list(getattr(self, name)))
        dup.pot = Pot(self.pot.chips)
        dup.shoe = copy.deepcopy(self.shoe)
        return dup

    def perturb_hidden(self, seat: int | None, rng: Rng) -> PairsState:
        # Every card is face up except the draw pile and the burns, hidden from all.
        clone = self.clone()
        clone.shoe.shuffle_unseen(rng)
        return clone

    def conserved(self) -> dict[str, int]:
        cards = len(self.shoe) + len(self.shoe.discards)
        cards += sum(len(c) for c in self.stacks) + sum(len(c) for c in self.score_cards)
        return {"cards": cards, "chips": sum(self.chips) + self.pot.chips}


GAME = Game(
    slug="pairs",
    title="Pairs",
    version=2,
    min_players=2,
    max_players=8,
    state_class=PairsState,
    summary=(
        "A press-your-luck game with the triangular deck (one 1 up to ten 10s). "
        "On your turn hit or fold; catching a pair scores its rank, folding scores "
        "the lowest card in play, and the first player to reach the target score "
        "(31, 21, 16, 13 for 2-5 players, 11 for more) loses. Options: Continuous Pairs, Pieces of Eight, "
        "Calamities, and the Seattle, Tacoma, Olympia and Portland gambling rules."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
    max_actions=MAX_GAMES * 5_000,
)
