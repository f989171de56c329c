"""One configuration (game, players, options) as both adapters see it.

``spec(slug, players, options)`` gives the fixed action space (from
``games.adapters.actions``) and the observation encoder's layout, worked out
once per process and configuration:

- which lists are positional: those whose length never changed over a
  deterministic probe (random playouts with fixed seeds, every seat's view);
- which slots exist: every feature key the probe produced, completed by
  construction with every card of the game for each bag of cards (so a card the
  probe never saw in a pile still has its slot) and every small integer 0..20
  for each bag of integers.

The probe is deterministic (same game version, players and options -> same
layout), so the vector's size and meaning are fixed per configuration.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from games import registry
from games.adapters.actions import STANDARD_CARDS, catalogue
from games.adapters.codec import SMALL_INT, ActionCodec, ObservationEncoder
from games.adapters.compiled import CompiledActions
from games.policies import random_policy
from games.protocol import Game, State
from games.rng import Rng, derive_seed

PROBE_SEEDS = (1, 2, 3, 4, 5, 6)
PROBE_STEPS = 1500  # actions per configuration, over all the probe's matches
VIEW_EVERY = 3  # the acting seat's view, and another seat's in turn, every few actions
MIN_SIGHTINGS = 3  # a list seen fewer times stays a multiset
MAX_POSITIONS = 16
_CARD_SET = set(STANDARD_CARDS)
_RANKS = "A23456789TJQK"
_SUITS = "CDHS"
_POSITION = re.compile(r"\[(\d+)\]")


@dataclass
class Spec:
    game: Game
    players: int
    options: dict
    actions: ActionCodec
    encoder: ObservationEncoder

    def __deepcopy__(self, memo) -> Spec:
        return self  # static and shared, like the engine's Game (states are cloned often)

    @property
    def slug(self) -> str:
        return self.game.slug

    @property
    def max_decisions(self) -> int:
        """At most this many single-seat decisions in a match (the engine's own bound on
        ``apply`` calls, times the seats that can act in one)."""
        return self.game.max_actions * self.players

    @property
    def lookup(self) -> CompiledActions:
        """The catalogue's lookup in C (built once per spec)."""
        lookup = self.__dict__.get("_lookup")
        if lookup is None:
            lookup = self.__dict__["_lookup"] = CompiledActions(self.actions)
        return lookup

    def indices(self, legal: list) -> list[int]:
        """The integers of the legal actions, ascending (``ActionCodec.indices``, in C)."""
        return self.lookup.indices(legal)

    def new_state(self, seed: int) -> State:
        return self.game.new_match(players=self.players, options=self.options, seed=seed)

    def export(self) -> dict:
        """Everything ``codec.load_codec`` needs, as JSON (shipped with a trained bot)."""
        return {
            "game": self.slug,
            "version": self.game.version,
            "players": self.players,
            "options": dict(self.options),
            "actions": list(self.actions.actions),
            "encoder": self.encoder.to_json(),
        }


def spec(slug: str, players: int, options: dict | None = None) -> Spec:
    game = registry.get(slug)
    resolved = game.resolve_options(options)
    return _spec(slug, players, json.dumps(resolved, sort_keys=True))


@lru_cache(maxsize=256)
def _spec(slug: str, players: int, options_json: str) -> Spec:
    game = registry.get(slug)
    options = json.loads(options_json)
    actions = ActionCodec(catalogue(slug, players, options))
    encoder = build_encoder(game, players, options)
    return Spec(game, players, options, actions, encoder)


def probe_observations(game: Game, players: int, options: dict) -> list[dict]:
    seen: list[dict] = []
    steps = 0
    for seed in PROBE_SEEDS:
        state = game.new_match(players=players, options=options, seed=seed)
        rng = Rng(derive_seed(seed, "adapter-probe"))
        while not state.is_over() and steps < PROBE_STEPS:
            acting = state.to_act()
            if steps % VIEW_EVERY == 0:  # observations of long matches are big: sample
                seen.append(state.observation(acting[0]))
                seen.append(state.observation(steps // VIEW_EVERY % players))
            state.apply(
                {
                    seat: random_policy(None, state.legal_actions(seat), rng)  # type: ignore[arg-type]
                    for seat in acting
                }
            )
            steps += 1
        seen.extend(state.observation(seat) for seat in range(players))
        if steps >= PROBE_STEPS:
            break
    return seen


def _list_lengths(value, pattern: str, lengths: dict[str, list[int]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _list_lengths(item, f"{pattern}.{key}", lengths)
    elif isinstance(value, list):
        lengths.setdefault(pattern, []).append(len(value))
        for item in value:
            _list_lengths(item, pattern + "[]", lengths)


def build_encoder(game: Game, players: int, options: dict) -> ObservationEncoder:
    observations = probe_observations(game, players, options)
    lengths: dict[str, list[int]] = {}
    for observation in observations:
        _list_lengths(observation, "", lengths)
    positional = {
        pattern: seen[0]
        for pattern, seen in sorted(lengths.items())
        if len(seen) >= MIN_SIGHTINGS and len(set(seen)) == 1 and 0 < seen[0] <= MAX_POSITIONS
    }
    walker = ObservationEncoder(positional, [])
    keys: set[str] = set()
    for observation in observations:
        keys.update(walker.features(observation))
    return ObservationEncoder(positional, sorted(complete(keys, positional)))


def _tokens(token: str) -> list[str]:
    """Every token of the kind of ``token``: all small integers, cards, ranks or suits."""
    if token.startswith("i:"):
        return [f"i:{v}" for v in range(SMALL_INT + 1)]
    value = token[2:]
    if token.startswith("s:"):
        if value in _CARD_SET:
            return [f"s:{card}" for card in STANDARD_CARDS]
        if len(value) == 1 and value in _RANKS:
            return [f"s:{rank}" for rank in _RANKS]
        if len(value) == 1 and value in _SUITS:
            return [f"s:{suit}" for suit in _SUITS]
    return [token]


def _positions(path: str, positional: dict[str, int]) -> list[str]:
    """``path`` at every position of each positional list it goes through."""
    parts = _POSITION.split(path)  # text, index, text, index, ..., text
    choices: list[list[str]] = [[parts[0]]]
    prefix = parts[0]
    for i in range(1, len(parts), 2):
        pattern = re.sub(r"\[[^\]]*\]", "[]", prefix)
        length = positional.get(pattern, int(parts[i]) + 1)
        choices.append([f"[{n}]" for n in range(length)])
        choices.append([parts[i + 1]])
        prefix += f"[{parts[i]}]" + parts[i + 1]
    return ["".join(combo) for combo in product(*choices)]


def complete(keys: set[str], positional: dict[str, int]) -> set[str]:
    """The probe's keys, completed by construction: a bag that held one card can hold
    every card (rank, suit, small integer), and what one seat's slot of a per-seat
    list held, every seat's can."""
    out: set[str] = set()
    for key in keys:
        path, sep, token = key.partition("=")
        tokens = _tokens(token) if sep else [None]
        if not sep and path.endswith("#") and "[*]" in path:
            out.update(f"{path[:-1]}={t}" for t in _tokens("i:0"))
        for variant in _positions(path, positional):
            if sep:
                out.update(f"{variant}={t}" for t in tokens)
            else:
                out.add(variant)
    for key in list(out):  # integers summed in a bag are counted as tokens too
        if key.endswith("#") and "[*]" in key:
            out.update(f"{key[:-1]}=i:{v}" for v in range(SMALL_INT + 1))
    return out
