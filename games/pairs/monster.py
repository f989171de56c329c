"""Monster: keep a pair-free secret hand; the best hand must beat the Monster.

The Monster is built from everyone's discards; losing to it costs 5 chips
and your seat in the game. Rules in docs/rules/pairs-monster.md.
"""

from __future__ import annotations

from functools import lru_cache

from games.cards import Shoe, pairs_deck
from games.pairs.counting import unseen_counts
from games.policies import random_policy
from games.protocol import Game
from games.rng import Rng
from games.secret_hands import ChipSession, deal_order, redistribute, rotations_option, shoe_piles

HAND_SIZE = 6
MAX_DISCARD = 3
PENALTY = 5
OPTIONS = {"rotations": rotations_option(1)}

FOLD = "fold"


def ante_for(players: int) -> int:
    """Two chips with four or five players, one with six or more."""
    return 2 if players <= 5 else 1


def hand_key(cards: list[int]) -> tuple[int, ...]:
    """Higher is better: highest card first, then the next; a card beats no card."""
    return (*sorted(cards, reverse=True), 0)


def monster_key(cards: list[int]) -> tuple[int, ...]:
    """The Monster counts each rank once: pairs in its pile are ignored."""
    return hand_key(list(set(cards)))


def discard_options(hand: list[int]) -> list[list[int]]:
    """Every distinct discard (lists shared between calls: do not mutate)."""
    return _discard_options(tuple(hand))


@lru_cache(maxsize=8192)
def _discard_options(hand: tuple[int, ...]) -> list[list[int]]:
    """Every distinct discard of 0 to 3 cards that leaves no pair, fewest cards first.

    Of each rank you hold ``c`` copies of, you must discard ``c - 1`` or all ``c``.
    """
    counts: dict[int, int] = {}
    for card in hand:
        counts[card] = counts.get(card, 0) + 1
    options: list[list[int]] = [[]]
    for rank in sorted(counts):
        copies = counts[rank]
        options = [
            option + [rank] * take
            for option in options
            for take in (copies - 1, copies)
            if len(option) + take <= MAX_DISCARD
        ]
    options.sort(key=lambda option: (len(option), option))
    return options


class MonsterState(ChipSession):
    def setup(self) -> None:
        self.last_showdown: dict | None = None
        super().setup()

    # -- the course of one game -------------------------------------------
    def _start_game(self) -> None:
        self.game_events_start = len(self._events)
        self.alive = [True] * self.players
        self.rng = self.game_rng()
        self.round = 0
        self.ante_all(ante_for(self.players))
        self._start_round()

    def _start_round(self) -> None:
        """Shuffle the whole deck and deal six cards to everyone still in."""
        players = self.players
        self.round += 1
        if self.round == 1:
            forced = self.game_forced()
        else:
            forced = None
            # A round deals at most 48 of the 55 cards, so its deck shuffles lazily;
            # the last round's pending steps come first, as in an eager shuffle (the
            # last round of a game skips them: the next game has its own Rng). Their
            # cards are never seen: only the Rng is moved on.
            self.shoe.drop_pending()
        self.shoe = Shoe(pairs_deck(), self.rng, forced, lazy=True)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.monster: list[list[int]] = [[] for _ in range(players)]  # discards, by who made them
        self.dead: list[list[int]] = [[] for _ in range(players)]  # folded hands
        self.acted = [False] * players
        self._legal_cache: dict[int, list] = {}
        order = [seat for seat in deal_order(self.session.dealer, players) if self.alive[seat]]
        self.deal_hands(self.hands, order, HAND_SIZE, round=self.round)
        self.order = order
        self.turn_index = 0
        self.phase = "play"

    def _showdown(self) -> None:
        contenders = [seat for seat in self.order if self.alive[seat]]
        monster = [card for pile in self.monster for card in pile]
        keys = [hand_key(self.hands[seat]) for seat in contenders]
        best = max(keys)
        top = [seat for seat, key in zip(contenders, keys) if key == best]
        beaten = best > monster_key(monster)
        self.last_showdown = {
            "round": self.round,
            "hands": {str(seat): list(self.hands[seat]) for seat in contenders},
            "monster": sorted(monster),
            "high": top,
            "beat_monster": beaten,
        }
        self.log({"type": "showdown", **self.last_showdown})
        if beaten:
            self._end_game(top)
            return
        for seat in top:
            self.pay_pot(seat, PENALTY)
        # Tied losers who are all that is left pay, but stay in for another round.
        if len(top) < sum(self.alive):
            for seat in top:
                self.alive[seat] = False
        self.log(
            {"type": "penalty", "seats": top, "amount": PENALTY, "out": [not a for a in self.alive]}
        )
        if sum(self.alive) == 1:
            self._end_game([self.alive.index(True)])
        else:
            self._start_round()

    def _end_game(self, winners: list[int]) -> None:
        pot = self.share_pot(winners)
        self.close_game(winners=winners, pot=pot, rounds=self.round)

    # -- protocol hooks ---------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "play":
            return (self.order[self.turn_index],)
        return ()

    def _legal_actions(self, seat: int) -> list:
        cached = self._legal_cache.get(seat)
        if cached is None:
            cached = [*discard_options(self.hands[seat]), FOLD]  # a fresh outer list
            self._legal_cache[seat] = cached
        return cached

    def _default_action(self, seat: int) -> object:
        return FOLD

    def _apply(self, actions: dict) -> None:
        self._legal_cache = {}
        seat = self.order[self.turn_index]
        action = actions[seat]
        self.acted[seat] = True
        if action == FOLD:
            self.alive[seat] = False
            self.dead[seat] = self.hands[seat]
            self.hands[seat] = []
            self.log({"type": "fold", "seat": seat})
            if sum(self.alive) == 1:
                self._end_game([self.alive.index(True)])
                return
        else:
            for card in action:
                self.hands[seat].remove(card)
            self.monster[seat] = list(action)
            self.log(
                {"type": "discard", "seat": seat, "count": len(action)},
                {seat: {"cards": list(action)}},
            )
        self.turn_index += 1
        if self.turn_index == len(self.order):
            self._showdown()

    def _observation(self, seat: int | None) -> dict:
        view = self.table_view(
            seat,
            round=self.round,
            order=list(self.order),
            alive=list(self.alive),
            acted=list(self.acted),
            hand_sizes=[len(hand) for hand in self.hands],
            discarded=[len(pile) for pile in self.monster],
            monster_size=sum(len(pile) for pile in self.monster),
            last_showdown=self.last_showdown,
        )
        if seat is not None:
            view["hand"] = list(self.hands[seat])
            view["my_discards"] = list(self.monster[seat])
        return view

    def card_piles(self) -> tuple[list[list[int]], ...]:
        return self.hands, self.monster, self.dead

    def shuffle_unseen(self, seat: int | None, rng: Rng) -> None:
        # Another seat's discards and folded hand are as hidden as its hand.
        others = [other for other in range(self.players) if other != seat]
        boxes = [
            box
            for other in others
            for box in (self.hands[other], self.monster[other], self.dead[other])
        ]
        redistribute(rng, [*boxes, *shoe_piles(self.shoe)])
        for other in others:
            self.hands[other].sort()


# -- policies ------------------------------------------------------------------


# Discards we expect from each player still to act (a guess between careful and careless play).
EXPECTED_DISCARDS = 2.0


def chance_to_beat_monster(kept: list[int], in_monster: list[float]) -> float:
    """Chance ``kept`` beats a Monster holding rank r with probability ``in_monster[r]``.

    Walking down from the 10s, the first rank held by one side only decides;
    identical sets tie, and the Monster wins ties. Ranks are taken as independent.
    """
    held = set(kept)
    same_so_far = 1.0
    chance = 0.0
    for rank in range(10, 0, -1):
        p = in_monster[rank]
        if rank in held:
            chance += same_so_far * (1 - p)
            same_so_far *= p
        else:
            same_so_far *= 1 - p
    return chance


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Fight the Monster with a hand that should beat it; otherwise duck under the others.

    Ducking means throwing the high cards: the hand drops out of contention
    and the Monster grows for whoever does hold the best hand.
    """
    options = [action for action in legal if action != FOLD]
    if not options:
        return FOLD
    hand = observation.get("hand", [])
    seat = observation["seat"]
    unseen = unseen_counts(hand)
    total = sum(unseen[1:])
    still_to_act = sum(
        1
        for other in observation["order"]
        if other != seat and observation["alive"][other] and not observation["acted"][other]
    )
    others_discards = sum(observation["discarded"]) - len(observation.get("my_discards", []))
    others_discards += EXPECTED_DISCARDS * still_to_act

    def kept(option: list[int]) -> list[int]:
        rest = list(hand)
        for card in option:
            rest.remove(card)
        return rest

    def beat_chance(option: list[int]) -> float:
        in_monster = [0.0] * 11
        for rank in range(1, 11):
            miss = (1 - unseen[rank] / total) ** others_discards if total else 1.0
            in_monster[rank] = 1.0 if rank in option else 1 - miss
        return chance_to_beat_monster(kept(option), in_monster)

    best = max(options, key=beat_chance)
    if beat_chance(best) >= 0.5:
        return best
    # Duck: keep the weakest hand the rules allow.
    return min(options, key=lambda option: hand_key(kept(option)))


GAME = Game(
    slug="pairs-monster",
    title="Monster",
    version=1,
    min_players=4,
    max_players=8,
    state_class=MonsterState,
    summary=(
        "Everyone antes (2 chips with 4-5 players, 1 with more) and gets six secret cards. In "
        "turn, each player discards up to three cards face down, keeping no pair, or folds. "
        "The best remaining hand, compared card by card from the highest, must beat the Monster, "
        "a hand made of the discards with each rank counted once; failing costs 5 chips and the "
        "player's place. Rounds repeat until someone beats the Monster or one player is left."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
