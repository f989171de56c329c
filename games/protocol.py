"""The engine protocol every game implements (described in docs/engines.md).

A ``Game`` is the static description of a game: slug, title, version, player
counts, typed options, teams, built-in policies. ``Game.new_match`` returns a
``State``: the whole match, possibly many hands, driven through ``to_act``,
``legal_actions`` and ``apply``.

Subclasses of ``State`` implement the underscored hooks; the public methods
here check the caller's input so that every engine refuses bad actions the
same way and never changes state on a refused call.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.native import MOVES
from games.rng import Rng

JSON = Any
Policy = Callable[[dict, list, Rng], JSON]


class IllegalAction(ValueError):
    """An action that is not legal now. The message never reveals hidden cards."""


class InvalidOptions(ValueError):
    """Options or player count a game does not accept.

    ``option`` names the one option at fault when there is one, so a form can show the
    refusal beside that option's input; None for a player count or a combination.
    """

    def __init__(self, message: str, *, option: str | None = None):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class Option:
    """One typed variant option. ``choices`` lists allowed values; ints may give a range."""

    default: JSON
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""

    @property
    def kind(self) -> type:
        return type(self.default)

    def allowed_values(self) -> list:
        """Every value, when the option is small enough to enumerate (conformance tests)."""
        if self.choices is not None:
            return list(self.choices)
        if self.kind is bool:
            return [False, True]
        if self.minimum is not None and self.maximum is not None:
            return list(range(self.minimum, self.maximum + 1))
        return [self.default]

    def check(self, name: str, value: JSON) -> JSON:
        kind = self.kind
        ok_type = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not ok_type:
            raise InvalidOptions(
                f"option {name!r} must be {kind.__name__}, got {value!r}", option=name
            )
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise InvalidOptions(
                f"option {name!r} must be one of {allowed}, got {value!r}", option=name
            )
        if self.minimum is not None and value < self.minimum:
            raise InvalidOptions(
                f"option {name!r} must be at least {self.minimum}, got {value!r}", option=name
            )
        if self.maximum is not None and value > self.maximum:
            raise InvalidOptions(
                f"option {name!r} must be at most {self.maximum}, got {value!r}", option=name
            )
        return value

    def describe(self) -> dict:
        out: dict = {"default": self.default, "type": self.kind.__name__}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.help:
            out["help"] = self.help
        return out


@dataclass
class Game:
    """Static description of one game. Each engine module defines ``GAME = Game(...)``."""

    slug: str
    title: str
    version: int
    min_players: int
    max_players: int
    state_class: type[State]
    summary: str = ""
    options: dict[str, Option] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    team_rule: Callable[[int, dict], list[list[int]]] | None = None
    # Max actions a match can take before a conformance test calls it endless.
    max_actions: int = 10_000

    def resolve_options(self, options: dict | None) -> dict:
        """Fill in defaults and check every value; unknown names are refused."""
        if not options:
            return {name: opt.default for name, opt in self.options.items()}
        options = dict(options)
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise InvalidOptions(
                f"unknown option(s) {', '.join(unknown)} for {self.slug}; known: {known}"
            )
        return {
            name: opt.check(name, options[name]) if name in options else opt.default
            for name, opt in self.options.items()
        }

    def check_players(self, players: int) -> None:
        if not isinstance(players, int) or isinstance(players, bool):
            raise InvalidOptions(f"players must be an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                f"{self.slug} takes {self.min_players} to {self.max_players} players, got {players}"
            )

    def player_counts(self, options: dict | None = None) -> list[int]:
        """Every table size the game accepts with ``options`` (Paks, say, skips 5)."""
        resolved = self.resolve_options(options)
        counts = []
        for players in range(self.min_players, self.max_players + 1):
            try:
                self.state_class.check_players_with_options(players, resolved)
            except InvalidOptions:
                continue
            counts.append(players)
        return counts

    def teams(self, players: int, options: dict | None = None) -> list[list[int]]:
        """Seats grouped by team; ``[]`` when every seat plays for itself."""
        if self.team_rule is None:
            return []
        return self.team_rule(players, self.resolve_options(options))

    def new_match(
        self,
        players: int,
        options: dict | None = None,
        seed: int = 0,
        deck: list | None = None,
    ) -> State:
        self.check_players(players)
        resolved = self.resolve_options(options)
        self.state_class.check_players_with_options(players, resolved)
        state = self.state_class.__new__(self.state_class)
        State.__init__(state, self, players, resolved, int(seed), deck)
        state.setup()
        return state

    def describe(self) -> dict:
        return {
            "slug": self.slug,
            "title": self.title,
            "version": self.version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "player_counts": self.player_counts(),
            "summary": self.summary,
            "options": {name: opt.describe() for name, opt in self.options.items()},
            "policies": sorted(self.policies),
        }


class State:
    """One match in progress. Engines override the underscored hooks and ``setup``."""

    def __init__(self, game: Game, players: int, options: dict, seed: int, deck: list | None):
        self.game = game
        self.players = players
        self.options = options
        self.seed = seed
        self.forced_deck = list(deck) if deck is not None else None
        self.moves: list[dict[str, JSON]] = []
        # Move lists are JSON, so their seat keys are strings; made once, not per move.
        names = _SEAT_NAMES.get(players)
        if names is None:
            names = _SEAT_NAMES[players] = tuple(str(seat) for seat in range(players))
        self._seat_names = names
        # Each event: (public fields, {seat: private fields}).
        self._events: list[tuple[dict, dict[int, dict]]] = []

    # -- hooks for engines -------------------------------------------------
    @classmethod
    def check_players_with_options(cls, players: int, options: dict) -> None:
        """Refuse combinations of player count and options the rules forbid."""

    def setup(self) -> None:
        raise NotImplementedError

    def _to_act(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _legal_actions(self, seat: int) -> list:
        raise NotImplementedError

    def _apply(self, actions: dict[int, JSON]) -> None:
        """Apply already-validated actions."""
        raise NotImplementedError

    def _observation(self, seat: int | None) -> dict:
        raise NotImplementedError

    def _result(self) -> dict:
        raise NotImplementedError

    def perturb_hidden(self, seat: int | None, rng: Rng) -> State:
        """A copy in which every card ``seat`` cannot see is shuffled among the
        places it cannot see (tests assert ``seat``'s observation is unchanged).
        """
        raise NotImplementedError

    def _default_action(self, seat: int) -> JSON:
        return self._legal_actions(seat)[0]

    def _legal_table(self) -> list | dict | None:
        """Acting seats' legal lists, indexed by seat (a list) or keyed by it (a dict), for
        an engine that keeps them: exactly what ``_legal_actions`` gives for each seat it
        holds (a seat missing is asked of ``_legal_actions``). None: ask seat by seat."""
        return None

    def conserved(self) -> dict[str, int]:
        """Quantities that never change during a match, e.g. ``{"chips": 120, "cards": 55}``.

        The conformance suite checks them after every action.
        """
        return {}

    # -- the protocol ------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        return self._to_act()

    def is_over(self) -> bool:
        return not self._to_act()

    def legal_actions(self, seat: int) -> list:
        if seat not in self._to_act():
            return []
        return self._legal_actions(seat)

    def apply(self, actions: dict[int, JSON]) -> None:
        acting = self._to_act()
        if not acting:
            raise IllegalAction("the match is over")
        if not isinstance(actions, dict):
            raise IllegalAction("apply() takes a mapping of seat to action")
        if len(acting) == 1:
            # Most turns have one seat acting: the same checks, without the sets and sorts.
            seat = acting[0]
            if len(actions) == 1 and seat in actions:
                action = actions[seat]
                if not is_legal(action, self._legal_actions(seat)):
                    raise IllegalAction(f"seat {seat}: {_short(action)} is not a legal action now")
                self._apply({seat: action})
                self.moves.append({self._seat_names[seat]: action})
                return
        # The acting tuple usually stays the same object for a whole phase, so its set
        # and its seats in order with their names are kept for it rather than rebuilt on
        # every action.
        global _acting_checked
        checked = _acting_checked
        if checked[0] is not acting:
            names = self._seat_names
            seats = tuple((seat, names[seat]) for seat in sorted(acting))
            checked = (acting, frozenset(acting), seats)
            if acting.__class__ is tuple:
                _acting_checked = checked
        if len(actions) != len(acting):
            raise _not_together(acting, actions)
        # One pass (this runs on every action of every match): every move is checked
        # before any is applied, in seat order, and recorded under its JSON key. The
        # right number of moves for the wrong seats shows as a seat missing (KeyError);
        # that error comes before any move's, as if the seats were compared first.
        legal_actions = self._legal_actions
        if _checked is not None:
            # The loop below in C, which accepts only what the loop accepts; on anything
            # else (a refusal, say) it gives None and the loop finds out and says why.
            both = _checked(actions, checked[2], self._legal_table(), legal_actions, is_legal)
            if both is not None:
                self._apply(both[0])
                self.moves.append(both[1])
                return
        ordered = {}
        record = {}
        try:
            for seat, name in checked[2]:
                action = actions[seat]
                legal = legal_actions(seat)
                # ``is_legal``'s two commonest cases inline (a call per seat is dear at a
                # big table): a whole number whose first equal candidate is one too, and
                # a string.
                kind = action.__class__
                if kind is int:
                    try:
                        ok = legal[legal.index(action)].__class__ is int or is_legal(action, legal)
                    except ValueError:
                        ok = False
                elif kind is str:
                    ok = action in legal
                else:
                    ok = is_legal(action, legal)
                if not ok:
                    if actions.keys() != checked[1]:
                        raise _not_together(acting, actions)
                    raise IllegalAction(f"seat {seat}: {_short(action)} is not a legal action now")
                ordered[seat] = action
                record[name] = action
        except KeyError:
            if actions.keys() != checked[1]:
                raise _not_together(acting, actions) from None
            raise
        self._apply(ordered)
        self.moves.append(record)

    def default_action(self, seat: int) -> JSON:
        if seat not in self._to_act():
            raise IllegalAction(f"seat {seat} is not to act")
        return self._default_action(seat)

    def observation(self, seat: int | None) -> dict:
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player match")
        return self._observation(seat)

    def events(self, seat: int | None, since: int = 0) -> list[dict]:
        """The log as ``seat`` may see it (``None`` = spectator), from index ``since``.

        Each seat's view of an event is made once, then handed out again by later calls
        (an observation's history shares it with the next one's): read-only, as all an
        engine hands out is (docs/engines.md). The log itself is never handed out."""
        log = self._events
        kept = self.__dict__.get("_event_views")
        if kept is None or kept[0] is not log:  # a clone that copied the log starts afresh
            kept = self._event_views = (log, {})
        views = kept[1].get(seat)
        if views is None:
            views = kept[1][seat] = []
        if len(views) < len(log):
            for public, private in log[len(views) :]:
                event = dict(public)
                if seat is not None and seat in private:
                    event.update(private[seat])
                views.append(event)
        return views[since:]

    def result(self) -> dict:
        if self._to_act():
            raise ValueError("the match is not over")
        result = self._result()
        result.setdefault("teams", self.game.teams(self.players, self.options))
        return result

    # -- helpers for engines -----------------------------------------------
    def log(self, public: dict, private: dict[int, dict] | None = None) -> None:
        """Record an event: ``public`` for everyone, ``private[seat]`` added for that seat only."""
        self._events.append((public, private or {}))

    def to_json(self) -> dict:
        """Everything needed to rebuild this state by replay (``games.registry.rebuild``)."""
        return {
            "game": self.game.slug,
            "version": self.game.version,
            "players": self.players,
            "options": dict(self.options),
            "seed": self.seed,
            "deck": self.forced_deck,
            "moves": copy.deepcopy(self.moves),
        }

    def clone(self) -> State:
        return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        # The Game is static and shared; never copy it.
        cls = self.__class__
        dup = cls.__new__(cls)
        memo[id(self)] = dup
        for key, value in self.__dict__.items():
            if key == "_event_views":
                continue  # made again from the copied log when asked
            setattr(dup, key, value if key == "game" else copy.deepcopy(value, memo))
        return dup


def _not_together(acting: tuple[int, ...], actions: dict) -> IllegalAction:
    return IllegalAction(
        f"seats {sorted(acting)} must act together, got {sorted(actions, key=str)}"
    )


def is_legal(action: JSON, legal: list) -> bool:
    """``action in legal`` with JSON types kept apart (``true`` is not ``1``)."""
    # Fast paths (this runs on every action of every match): a string equals only a
    # string; anything else is looked up with one scan (C speed), which finds the first
    # equal candidate, nearly always of the same types, or finds there is none.
    kind = action.__class__
    if kind is str:
        return action in legal
    try:
        first = legal[legal.index(action)]
    except ValueError:
        return False
    if kind is int or kind is bool or kind is float or action is None:
        if first.__class__ is kind:
            return True
        for candidate in legal:
            if candidate.__class__ is kind and candidate == action:
                return True
        return False
    # A list or an object.
    if _same_types(first, action):
        return True
    return any(candidate == action and _same_types(candidate, action) for candidate in legal)


# Each table size's seat names (``State._seat_names``), made once.
_SEAT_NAMES: dict[int, tuple[str, ...]] = {}
# The last multi-seat acting tuple seen by ``State.apply``: (it, its set, its seats in
# order, each with its name in the move record).
_acting_checked: tuple = ((), frozenset(), ())

# The compiled check of a simultaneous decision's moves (games/_moves.c), None where it
# cannot be built or ``ARENA_PYTHON_MOVES=1`` asks for the Python loop.
_checked = getattr(MOVES.chosen(), "checked", None)

_SCALARS = frozenset((str, int, float, bool, type(None)))


def _same_types(a: JSON, b: JSON) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        for x, y in zip(a, b):
            kind = type(x)
            if kind is not type(y):
                return False
            if kind not in _SCALARS and isinstance(x, list | dict) and not _same_types(x, y):
                return False
        return True
    if isinstance(a, dict):
        return all(_same_types(a[k], b[k]) for k in a)
    return True


def _short(value: JSON) -> str:
    text = json.dumps(value, separators=(",", ":"), default=str)
    return text if len(text) <= 80 else text[:77] + "..."
