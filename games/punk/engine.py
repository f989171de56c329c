"""Punk: everyone plays a secret card at once and the lowest unique card takes the trick.

Hands shrink by a card each round; the first to the target wins at once, otherwise the
highest score. Variants: the Dummy (2 players), Dice Punk, Play-Again, Fixed Opening.
Rules: docs/rules/punk.md.
"""

from __future__ import annotations

from collections import Counter

from games.cards import Shoe, check_forced
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.punk.policy import heuristic
from games.punk.rules import (
    MAX_GAMES,
    MAX_PLAYERS,
    MIN_TABLE,
    lowest_unique,
    next_target,
    rank_count,
    sub_multisets,
    table_size,
    target_for,
    tiebreak_key,
    tricks_in_round,
)
from games.rng import Rng
from games.scoring import Session, seat_results
from games.secret_hands import redistribute

# The standard polyhedral dice; a wider range would only slow the conformance suite.
DICE_CHOICES = (0, 4, 6, 8, 10, 12, 20)

OPTIONS = {
    "dice": Option(
        0,
        choices=DICE_CHOICES,
        help="Dice Punk: 0 plays with cards, otherwise dice with this many sides",
    ),
    "play_again": Option(
        False,
        help="if nobody reaches the target, play another game with scores carried "
        f"and the target raised to the leader's score + 10 (at most {MAX_GAMES} games)",
    ),
    "fixed_opening": Option(
        False, help="every player starts each game with one card of each rank (cards only)"
    ),
}

TRICK = "trick"
KEEP = "keep"
OVER = "over"


class PunkState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["dice"] and options["fixed_opening"]:
            raise InvalidOptions(
                "fixed_opening needs cards: dice have no fixed opening hand",
                option="fixed_opening",
            )

    def setup(self) -> None:
        self.table = table_size(self.players)
        self.dummy: int | None = MIN_TABLE - 1 if self.players < MIN_TABLE else None
        self.sides: int = self.options["dice"]
        self.ranks = rank_count(self.table)
        self.size = self.table * self.ranks
        self.target = target_for(self.table)
        self.session = Session(self.table, self.seed)
        self.scores = [0] * self.table
        # Every card won over the match, for the tie-break (Play-Again carries them over).
        self.won: list[list[int]] = [[] for _ in range(self.table)]
        self.acting = tuple(range(self.players))
        self.winner: int | None = None
        forced = list(self.forced_deck) if self.forced_deck else None
        if forced is not None:
            if self.sides:
                if any(type(f) is not int or not 1 <= f <= self.sides for f in forced):
                    raise ValueError(f"forced dice must be integers from 1 to {self.sides}")
            else:
                check_forced(forced, self.deck())
        # Only the first shuffle (or the first rolls) of the match is forced.
        self.forced_pending = forced
        self._start_game()

    def deck(self) -> list[int]:
        return [rank for rank in range(1, self.ranks + 1) for _ in range(self.table)]

    # -- the course of a game ------------------------------------------------
    def _start_game(self) -> None:
        table = self.table
        self.rng = Rng(self.session.hand_seed())
        self.hands: list[list[int]] = [[] for _ in range(table)]
        self.caches: list[list[int]] = [[] for _ in range(table)]
        self.neutral: list[int] = []
        self.pot: list[int] = []
        # This game's tricks, a list per round: the cards by table seat, and who won each.
        self.tricks: list[list[list[int]]] = []
        self.winners: list[list[int | None]] = []
        self.kept: list[int] | None = None
        self.round = 0
        self._legal: dict[int, list] = {}
        self.log({"type": "game", "game": self.session.hand, "target": self.target})
        if self.options["fixed_opening"]:
            for seat in range(table):
                self.hands[seat] = list(range(1, self.ranks + 1))
            if self.dummy is not None:
                # The Dummy's "top card" must still be a random one.
                self.rng.shuffle(self.hands[self.dummy])
            self.log({"type": "deal", "counts": [self.ranks] * table, "fixed": True})
            self._start_round(self.ranks)
        else:
            # Dice not rolled yet: their faces are placeholders, every one gets rolled.
            self._deal(self.deck() if not self.sides else [1] * self.size, self.ranks)

    def _forced_for(self, pool: list[int]) -> list[int]:
        """The forced order, cut where it stops fitting ``pool`` (a fixed opening deals first)."""
        forced, self.forced_pending = self.forced_pending, None
        left = Counter(pool)
        fitting = []
        for card in forced:
            if left[card] <= 0:
                break
            left[card] -= 1
            fitting.append(card)
        return fitting

    def _roll(self) -> int:
        if self.forced_pending:
            return self.forced_pending.pop(0)
        return self.rng.below(self.sides) + 1

    def _deal(self, pool: list[int], hand_size: int) -> None:
        """Deal ``pool`` round the table, a card at a time, until every hand holds
        ``hand_size``; what is left lies face up in the pot.
        """
        hands = self.hands
        table = len(hands)
        needs = [hand_size - len(hand) for hand in hands]
        most = max(needs)
        if min(needs) == most:
            order = None  # every hand takes the same: plain rounds of the table
            count = most * table
        else:
            order = [seat for step in range(most) for seat, n in enumerate(needs) if step < n]
            count = len(order)
        if self.sides:
            cards = [self._roll() for _ in range(count)]
            # Spare dice are rolled too: keeping their faces would show everyone
            # the face-down discard they came from.
            self.pot = [self._roll() for _ in pool[count:]]
        elif self.forced_pending is not None:
            shoe = Shoe(pool, self.rng, self._forced_for(pool))
            cards = [shoe.draw() for _ in range(count)]
            self.pot = shoe.cards()
        else:
            # The hot path: a plain shuffle, dealt from the front (Shoe costs a third more).
            self.rng.shuffle(pool)
            cards = pool[:count]
            self.pot = pool[count:]
        if order is None:
            new = [cards[seat::table] for seat in range(table)]
        else:
            new = [[] for _ in hands]
            for seat, card in zip(order, cards):
                new[seat].append(card)
        for seat, cards in enumerate(new):
            hands[seat].extend(cards)
        private = {seat: {"cards": sorted(cards)} for seat, cards in enumerate(new)}
        private.pop(self.dummy, None)
        self.log({"type": "deal", "counts": needs}, private)
        self._start_round(hand_size)

    def _start_round(self, hand_size: int) -> None:
        self.round += 1
        self.hand_size = hand_size
        self.round_tricks = tricks_in_round(self.table, hand_size)
        self.trick = 0
        self.phase = TRICK
        self.tricks.append([])
        self.winners.append([])
        self.log(
            {
                "type": "round",
                "round": self.round,
                "cards": sum(map(len, self.hands)) + len(self.pot),
                "hand_size": hand_size,
                "tricks": self.round_tricks,
                "surplus": sorted(self.pot),
            }
        )

    def _play_trick(self, actions: dict[int, int]) -> None:
        # ``actions`` holds every player's seat in order (the protocol sorts them).
        plays = list(actions.values())
        for hand, card in zip(self.hands, plays):
            hand.remove(card)
        if self.dummy is not None:
            plays.append(self.hands[self.dummy].pop())  # its top card: the last dealt
        best = lowest_unique(plays)
        winner = neutral = None
        if best is not None:
            winner = left = plays.index(best)
            self.caches[winner].append(best)
            self.won[winner].append(best)
            self.scores[winner] += best
        else:
            # Which of the tied lowest cards leaves does not matter: they are alike.
            neutral = min(plays)
            left = plays.index(neutral)
            self.neutral.append(neutral)
        pot = self.pot
        pot += plays[:left]
        pot += plays[left + 1 :]
        self.tricks[-1].append(plays)
        self.winners[-1].append(winner)
        self.log(
            {
                "type": "trick",
                "round": self.round,
                "cards": list(plays),
                "winner": winner,
                "neutral": neutral,
                "scores": list(self.scores),
            }
        )
        self.trick += 1
        if winner is not None and winner != self.dummy and self.scores[winner] >= self.target:
            self._end_game(winner)
        elif self.trick == self.round_tricks:
            if self.hand_size - 1 < 2:
                self._end_game(None)
            else:
                self.phase = KEEP

    def _keep(self, actions: dict[int, list[int]]) -> None:
        discards: list[int] = []
        kept = []
        private = {}
        for seat, hand in enumerate(self.hands):
            keep = list(actions.get(seat, []))  # the Dummy always discards everything
            for card in keep:
                hand.remove(card)
            discards.extend(hand)
            self.hands[seat] = keep
            kept.append(len(keep))
            if seat != self.dummy:
                private[seat] = {"cards": sorted(keep)}
        self.kept = kept
        self.log({"type": "keep", "kept": kept}, private)
        # Discarded dice are re-rolled; the dice of the pot are rolled again too.
        self._deal(self.pot + discards, self.hand_size - 1)

    def _end_game(self, winner: int | None) -> None:
        points = [sum(cache) for cache in self.caches]
        self.session.finish_hand(points, target=self.target, winner=winner)
        self.log(
            {
                "type": "game_over",
                "game": self.session.hand - 1,
                "points": points,
                "scores": list(self.scores),
                "winner": winner,
            }
        )
        self.phase = OVER
        if winner is None and self.options["play_again"] and self.session.hand < MAX_GAMES:
            leader = max(self.scores[: self.players])
            self.target = next_target(self.target, leader)
            self._start_game()
        else:
            self.winner = winner

    # -- the protocol's reads, without its hook calls per seat (eight seats ask on
    # every action of a big table); the same answers as State's own.
    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == OVER else self.acting

    def legal_actions(self, seat: int) -> list:
        if self.phase == OVER or seat not in self.acting:
            return []
        legal = self._legal.get(seat)
        return self._legal_actions(seat) if legal is None else legal

    # -- protocol hooks --------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return () if self.phase == OVER else self.acting

    def _legal_actions(self, seat: int) -> list:
        try:
            return self._legal[seat]
        except KeyError:
            hand = self.hands[seat]
            legal = sorted(set(hand)) if self.phase == TRICK else sub_multisets(hand)
            self._legal[seat] = legal
            return legal

    def _legal_table(self) -> dict:
        # The seats worked out so far; the protocol asks ``_legal_actions`` for the rest.
        return self._legal

    def _apply(self, actions: dict) -> None:
        if self.phase == TRICK:
            self._play_trick(actions)
            if self.phase == TRICK and self.trick:
                # The round goes on: a seat's list loses the card it played, if that was
                # its last copy (a new list: one handed out earlier never changes).
                hands = self.hands
                before = self._legal
                legal = {}
                for seat, card in actions.items():
                    was = before.get(seat)
                    if was is None:
                        legal[seat] = sorted(set(hands[seat]))
                    elif card in hands[seat]:
                        legal[seat] = was
                    else:
                        legal[seat] = was = was.copy()
                        was.remove(card)
                self._legal = legal
                return
        else:
            self._keep(actions)
        # Every acting seat's legal list is asked for (the protocol checks each move):
        # work them all out at once. The acting seats are the first hands (the Dummy's
        # is last), so zip pairs each with its own.
        hands = self.hands
        if self.phase == TRICK:
            self._legal = dict(zip(self.acting, map(sorted, map(set, hands))))
        elif self.phase == KEEP:
            self._legal = dict(zip(self.acting, map(sub_multisets, hands)))
        else:
            self._legal = {}

    def _default_action(self, seat: int) -> object:
        # The lowest card in a trick; in a keep decision, a fresh hand (keep nothing).
        return self._legal_actions(seat)[0]

    def _observation(self, seat: int | None) -> dict:
        view = {
            "seat": seat,
            "players": self.players,
            "table": self.table,
            "dummy": self.dummy,
            "dice": self.sides,
            "fixed_opening": self.options["fixed_opening"],
            "play_again": self.options["play_again"],
            "ranks": self.ranks,
            "copies": self.table,
            "game": self.session.hand,
            "target": self.target,
            "phase": self.phase,
            "to_act": list(self._to_act()),
            "round": self.round,
            "hand_size": self.hand_size,
            "round_tricks": self.round_tricks,
            "trick": self.trick,
            "scores": list(self.scores),
            "caches": [sorted(cache) for cache in self.caches],
            "carried": [
                sorted(won[: len(won) - len(cache)], reverse=True)
                for won, cache in zip(self.won, self.caches)
            ],
            "neutral": sorted(self.neutral),
            "pot": sorted(self.pot),
            "hand_sizes": [len(hand) for hand in self.hands],
            "kept": list(self.kept) if self.kept is not None else None,
            "tricks": [[list(cards) for cards in tricks] for tricks in self.tricks],
            "winners": [list(winners) for winners in self.winners],
            "past_games": [dict(h, deltas=list(h["deltas"])) for h in self.session.hands],
        }
        if seat is not None:
            view["hand"] = sorted(self.hands[seat])
        return view

    def _result(self) -> dict:
        keys = [tiebreak_key(self.won[seat]) for seat in range(self.players)]
        ranks = [1 + sum(1 for other in keys if other > mine) for mine in keys]
        return {
            "seats": seat_results(
                self.scores[: self.players],
                ranks,
                cards=[key[1] for key in keys],
                reached_target=[seat == self.winner for seat in range(self.players)],
            )
        }

    def hands_public(self) -> bool:
        """In the first round of a fixed opening every hand is known from the tricks."""
        return self.options["fixed_opening"] and self.round == 1

    def perturb_hidden(self, seat: int | None, rng: Rng) -> PunkState:
        dup = self.clone()
        hidden = [hand for other, hand in enumerate(dup.hands) if other != seat]
        if dup.sides:
            # Unseen dice could show any face.
            for hand in hidden:
                hand[:] = [rng.below(dup.sides) + 1 for _ in hand]
        elif dup.hands_public():
            for hand in hidden:
                rng.shuffle(hand)  # only the order (the Dummy's next card) is unknown
        else:
            redistribute(rng, hidden)
        dup._legal = {}
        return dup

    def conserved(self) -> dict[str, int]:
        places = [*self.hands, *self.caches, self.neutral, self.pot]
        if self.sides:
            return {"dice": sum(map(len, places))}
        counts = Counter(card for place in places for card in place)
        return {"cards": sum(counts.values()), **{f"rank_{r}": counts[r] for r in sorted(counts)}}


GAME = Game(
    slug="punk",
    title="Punk",
    version=2,
    min_players=2,
    max_players=MAX_PLAYERS,
    state_class=PunkState,
    summary=(
        "Every trick, all players pick a card from their hidden hand at once; the lowest card "
        "nobody else played wins and scores its rank, so aces win easily but score little. "
        "After each round players keep part of their hand and are dealt back up to one card "
        "fewer. The first to 21 points (28 with five or more at the table) wins at once, "
        "otherwise the highest score. Two players add the Dummy; variants: dice, Play-Again "
        "and a fixed opening hand."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
