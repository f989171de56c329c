"""Stax: play cards from a hand of five onto five shared face-up stacks, scoring
for how well each card matches the one it covers. Rules in docs/rules/stax.md.
"""

from __future__ import annotations

from games.cards import Shoe, standard_deck
from games.policies import random_policy
from games.protocol import Game, InvalidOptions, Option, State
from games.rng import Rng
from games.scoring import Session, seat_results
from games.secret_hands import redistribute, shoe_piles

HAND_SIZE = 5
STACKS = 5
FULL_STACK = 5
SAME_NUMBER = 3
MATCHED_COMPLETION = 3
PLAIN_COMPLETION = 1
GOING_OUT = 5
MAX_GAMES = 20
END = "end"

VALUE = {rank: value for value, rank in enumerate("A23456789TJQK", start=1)}
RED = frozenset("DH")

OPTIONS = {
    "games": Option(
        1,
        minimum=1,
        help=f"games in the match (1 to {MAX_GAMES}); points add up over the games",
    ),
}


def is_red(card: str) -> bool:
    return card[1] in RED


def match_points(card: str, top: str) -> int:
    """Points for playing ``card`` on a stack whose top card is ``top``."""
    played, covered = VALUE[card[0]], VALUE[top[0]]
    if played == covered:
        return SAME_NUMBER
    points = 0
    if is_red(card) == is_red(top):
        points += 1
    if card[1] == top[1]:
        points += 1
    if played < covered:
        points += 1
        if played == covered - 1:
            points += 1
    return points


def completion_points(card: str, top: str) -> int:
    """The bonus for the fifth card of a stack: more when it matched number or suit."""
    return MATCHED_COMPLETION if card[0] == top[0] or card[1] == top[1] else PLAIN_COMPLETION


def chains(card: str, last: str) -> bool:
    """Whether ``card`` may follow ``last`` in the same turn."""
    if card[0] == last[0]:
        return True
    return card[1] == last[1] and VALUE[card[0]] == VALUE[last[0]] - 1


def card_key(card: str) -> tuple[int, str]:
    return VALUE[card[0]], card[1]


class StaxState(State):
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        if options["games"] > MAX_GAMES:
            raise InvalidOptions(f"option 'games' must be at most {MAX_GAMES}", option="games")

    def setup(self) -> None:
        self.session = Session(self.players, self.seed)
        self.games_total = self.options["games"]
        self.over = False
        self._start_game()

    # -- one game -------------------------------------------------------------
    def _start_game(self) -> None:
        rng = Rng(self.session.hand_seed())
        # The first player is drawn before the shuffle, so a forced deck does
        # not change who starts.
        self.first = rng.below(self.players)
        forced = self.forced_deck if self.session.hand == 0 else None
        self.deck = Shoe(standard_deck(1), rng, forced)
        self.game_events_start = len(self._events)
        self.stacks: list[list[str]] = [[self.deck.draw()] for _ in range(STACKS)]
        self.discards: list[str] = []
        self.points = [0] * self.players
        self.log(
            {
                "type": "game",
                "game": self.session.hand,
                "stacks": [stack[0] for stack in self.stacks],
                "first": self.first,
            }
        )
        self.hands: list[list[str]] = []
        for seat in range(self.players):
            hand = sorted((self.deck.draw() for _ in range(HAND_SIZE)), key=card_key)
            self.hands.append(hand)
            self.log(
                {"type": "deal", "seat": seat, "count": HAND_SIZE}, {seat: {"cards": list(hand)}}
            )
        self.turn = self.first
        self.played: list[str] = []
        self._legal: list | None = None

    def _play(self, seat: int, card: str, index: int) -> None:
        stack = self.stacks[index]
        top = stack[-1]
        points = match_points(card, top)
        self.hands[seat].remove(card)
        stack.append(card)
        self.played.append(card)
        event = {"type": "play", "seat": seat, "card": card, "stack": index, "points": points}
        if len(stack) == FULL_STACK:
            bonus = completion_points(card, top)
            points += bonus
            self.discards.extend(stack)
            event["completed"] = bonus
            if len(self.deck):
                new = self.deck.draw()
                self.stacks[index] = [new]
                event["new_stack"] = new
            else:
                del self.stacks[index]
                event["removed"] = True
        self.points[seat] += points
        self.log(event)
        if not self.hands[seat] and not len(self.deck):
            self.points[seat] += GOING_OUT
            self.log({"type": "out", "seat": seat, "points": GOING_OUT})
            self._end_game(seat)
        elif not self.stacks:
            # The last stack is gone and the deck cannot start another: nobody
            # can ever play again, so the game ends without a going-out bonus.
            self.log({"type": "no_stacks"})
            self._end_game(None)

    def _end_turn(self, seat: int) -> None:
        hand = self.hands[seat]
        drawn = [self.deck.draw() for _ in range(min(HAND_SIZE - len(hand), len(self.deck)))]
        hand.extend(drawn)
        hand.sort(key=card_key)
        self.log({"type": "end", "seat": seat, "drew": len(drawn)}, {seat: {"cards": drawn}})
        self.played = []
        self.turn = (seat + 1) % self.players

    def _end_game(self, out: int | None) -> None:
        self.log({"type": "game_over", "game": self.session.hand, "points": list(self.points)})
        self.session.finish_hand(list(self.points), out=out)
        if self.session.hand < self.games_total:
            self._start_game()
        else:
            self.over = True

    # -- protocol hooks -------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return () if self.over else (self.turn,)

    def _legal_actions(self, seat: int) -> list:
        if self._legal is not None:
            return self._legal
        hand = self.hands[seat]
        targets = range(len(self.stacks))
        if self.played:
            last = self.played[-1]
            legal: list = [[card, i] for card in hand if chains(card, last) for i in targets]
            legal.append(END)
        else:
            legal = [[card, i] for card in hand for i in targets]
        self._legal = legal
        return legal

    def _default_action(self, seat: int) -> object:
        legal = self._legal_actions(seat)
        return END if END in legal else legal[0]

    def _apply(self, actions: dict) -> None:
        self._legal = None
        seat = self.turn
        action = actions[seat]
        if action == END:
            self._end_turn(seat)
        else:
            self._play(seat, action[0], action[1])

    def _observation(self, seat: int | None) -> dict:
        view = {
            "seat": seat,
            "players": self.players,
            "game": self.session.hand,
            "games": self.games_total,
            "first": self.first,
            "turn": self.turn,
            "to_act": list(self._to_act()),
            "stacks": [list(stack) for stack in self.stacks],
            "deck": len(self.deck),
            "discards": list(self.discards),
            "hand_sizes": [len(hand) for hand in self.hands],
            "played": list(self.played),
            "points": list(self.points),
            "totals": [
                total + (0 if self.over else now)
                for total, now in zip(self.session.totals, self.points)
            ],
            "past_games": [dict(game) for game in self.session.hands],
            "history": self.events(seat, self.game_events_start),
        }
        if seat is not None:
            view["hand"] = list(self.hands[seat])
        return view

    def _result(self) -> dict:
        totals = list(self.session.totals)
        return {"seats": seat_results(totals)}

    def clone(self) -> StaxState:
        # Logged events and moves are never changed once written: share them.
        dup = self.__class__.__new__(self.__class__)
        dup.__dict__.update(self.__dict__)
        dup.moves = list(self.moves)
        dup._events = list(self._events)
        dup.hands = [list(hand) for hand in self.hands]
        dup.stacks = [list(stack) for stack in self.stacks]
        dup.discards = list(self.discards)
        dup.points = list(self.points)
        dup.played = list(self.played)
        dup.deck = _copy_shoe(self.deck)
        dup.session = _copy_session(self.session)
        return dup

    def perturb_hidden(self, seat: int | None, rng: Rng) -> StaxState:
        dup = self.clone()
        hidden = [hand for other, hand in enumerate(dup.hands) if other != seat]
        redistribute(rng, hidden + [shoe_piles(dup.deck)[0]])
        for hand in hidden:
            hand.sort(key=card_key)
        dup._legal = None
        return dup

    def conserved(self) -> dict[str, int]:
        cards = len(self.deck) + len(self.discards)
        cards += sum(map(len, self.hands)) + sum(map(len, self.stacks))
        return {"cards": cards}


def _copy_shoe(shoe: Shoe) -> Shoe:
    dup = Shoe.__new__(Shoe)
    dup.lazy = shoe.lazy
    dup._unshuffled = shoe._unshuffled
    dup._pile = list(shoe._pile)
    dup.discards = list(shoe.discards)
    dup.rng = dup._stepper = Rng(shoe.rng.getstate())
    dup.burn = shoe.burn
    dup.shuffles = shoe.shuffles
    return dup


def _copy_session(session: Session) -> Session:
    dup = Session(session.players, session.seed, list(session.totals), session.dealer)
    dup.hand = session.hand
    dup.hands = [dict(hand) for hand in session.hands]
    return dup


# -- policies ------------------------------------------------------------------


def _value(observation: dict, card: str, index: int, hand: list[str]) -> float:
    """Points now, plus a little for a follow-up chain, minus a gift of a completion."""
    stack = observation["stacks"][index]
    top = stack[-1]
    value = float(match_points(card, top))
    if len(stack) == FULL_STACK - 1:
        value += completion_points(card, top)
    elif len(stack) == FULL_STACK - 2:
        # The next player could complete this stack for a bonus.
        value -= 0.5
    rest = list(hand)
    rest.remove(card)
    if any(chains(other, card) for other in rest):
        value += 1.5
    return value


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Greedy: the play worth most now (chains in view); keep chaining while it scores."""
    hand = observation["hand"]
    plays = [action for action in legal if action != END]
    if not plays:
        return END
    best = max(plays, key=lambda action: _value(observation, action[0], action[1], hand))
    if END in legal and _value(observation, best[0], best[1], hand) < 1:
        return END
    return best


GAME = Game(
    slug="stax",
    title="Stax",
    version=1,
    min_players=2,
    max_players=4,
    state_class=StaxState,
    summary=(
        "Five face-up stacks sit in the middle and everyone holds five cards. On your turn "
        "play a card on any stack and score for how it matches the card it covers (same "
        "number 3; otherwise a point each for same colour, same suit, lower, exactly one "
        "lower); the fifth card of a stack scores a bonus and clears it. You may keep "
        "playing cards of the same number, or the same suit one lower, then draw back to "
        "five. Playing your last card with the deck empty ends the game for 5 more points."
    ),
    options=OPTIONS,
    policies={"random": random_policy, "heuristic": heuristic},
)
