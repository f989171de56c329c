"""The plan of a bulk local run (``manage.py play --games``): who meets whom, and every game's
deal, seed and seating. Pure data and arithmetic, shared by the player and the report."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

from bots.runner import Clock
from bots.sandbox import Limits
from games.rng import derive_seed

MODES = ("match", "round-robin", "gauntlet")


@dataclass(frozen=True)
class Entrant:
    """A bot of the event: a built-in policy, or a program unpacked once into ``bot_dir``."""

    spec: str  # as given on the command line
    label: str  # unique within the event
    builtin: bool
    bot_dir: str | None = None


@dataclass(frozen=True)
class Plan:
    """One game to play: its pairing, deal, seed, and which entrant sits in each seat."""

    index: int
    pairing: int
    deal: int
    rotation: int
    seed: int
    lineup: tuple[int, ...]


@dataclass
class GameResult:
    index: int
    pairing: int
    deal: int
    seed: int
    lineup: tuple[int, ...]
    ranks: list[int]
    scores: list[int]
    faults: list[dict | None]
    moves: int
    digest: str  # of every action played: equal digests, equal games
    # What each faulted seat wrote that shows why (its stderr's end, its answer), "" for none.
    fault_details: list[str] = field(default_factory=list)


@dataclass
class Settings:
    game: str
    options: dict
    clock: Clock
    limits: Limits | None = None
    fail_on: frozenset[str] = field(default_factory=frozenset)


def pairings(mode: str, bots: int, players: int) -> list[tuple[int, ...]]:
    """The groups of entrants that meet: index tuples, first entrant first."""
    if mode == "match":
        return [tuple(range(bots))]
    if mode == "round-robin":
        return list(combinations(range(bots), players))
    return [(0, *rest) for rest in combinations(range(1, bots), players - 1)]


def schedule(*, groups: list[tuple[int, ...]], games: int, seed: int) -> list[Plan]:
    """Every game: per group, ``ceil(games / seats)`` deals, each played in every rotation.

    Deal d has the same seed in every group, so a round robin is duplicate across pairings
    too. A game's seed is its deal's; the built-in bots' seeds derive from it and the seat,
    as in a single ``play --seed``, so any game can be played again alone.
    """
    plans = []
    for number, group in enumerate(groups):
        seats = len(group)
        for deal in range(math.ceil(games / seats)):
            deal_seed = derive_seed(seed, "deal", deal) % 2**31
            for rotation in range(seats):
                lineup = tuple(group[(seat + rotation) % seats] for seat in range(seats))
                plans.append(Plan(len(plans), number, deal, rotation, deal_seed, lineup))
    return plans
