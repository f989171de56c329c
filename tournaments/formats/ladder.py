"""Ladder matchmaking: which versions of a pool play next, and how many tables now.

An always-on ladder keeps a share of the workers busy with rated games so a
new version finds its level without anyone organising a tournament. Pure
logic: the scheduler passes the pool's candidates and what is already
queued, and stores the tables this returns.

- Tournaments come first: while any tournament match waits in the queue, no
  ladder table is added.
- New versions first: a version with fewer than ``placement_games`` games
  is placed before anyone else; among the rest the least played go first.
- Opponents by rating proximity, with some exploration so ratings do not
  form isolated clusters.
- Once every version is settled (enough games and a narrow interval) the
  ladder slows to one table per ``trickle_seconds``; a new version or a new
  bot is unsettled, so it wakes the ladder at once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    version: int  # a version id
    elo: float
    games: int
    interval: float | None = None  # width of the 95% interval, None when unknown


@dataclass(frozen=True)
class Policy:
    slots: int = 1  # ladder tables queued or running at once
    placement_games: int = 20
    settled_games: int = 40
    settled_interval: float = 150.0
    trickle_seconds: float = 600.0
    exploration: float = 0.2


def settled(candidate: Candidate, policy: Policy) -> bool:
    if candidate.games < policy.settled_games:
        return False
    return candidate.interval is None or candidate.interval <= policy.settled_interval


def tables_wanted(
    candidates: Sequence[Candidate],
    *,
    players: int,
    policy: Policy,
    ladder_busy: int,
    tournament_backlog: int,
    seconds_since_last: float | None,
) -> int:
    """How many new tables to schedule now (0 or more)."""
    if tournament_backlog > 0 or len(candidates) < players:
        return 0
    free = max(0, policy.slots - ladder_busy)
    if free == 0:
        return 0
    if all(settled(c, policy) for c in candidates):
        if seconds_since_last is not None and seconds_since_last < policy.trickle_seconds:
            return 0
        return 1
    return free


def choose_tables(
    candidates: Sequence[Candidate],
    *,
    players: int,
    count: int,
    policy: Policy,
    rng: random.Random,
) -> list[tuple[int, ...]]:
    """``count`` tables of ``players`` version ids: the neediest version and its neighbours."""
    if count <= 0 or len(candidates) < players:
        return []
    by_need = sorted(
        candidates,
        key=lambda c: (c.games >= policy.placement_games, c.games, rng.random()),
    )
    tables: list[tuple[int, ...]] = []
    used: set[int] = set()
    for _ in range(count):
        # Each table's focus is the neediest version not yet seated this time round.
        fresh = [c for c in by_need if c.version not in used] or by_need
        focus = fresh[0]
        others = [c for c in candidates if c.version != focus.version]
        if rng.random() < policy.exploration:
            opponents = rng.sample(others, players - 1)
        else:
            others.sort(key=lambda c: (abs(c.elo - focus.elo), rng.random()))
            opponents = others[: players - 1]
        table = (focus.version, *(c.version for c in opponents))
        used.update(table)
        tables.append(table)
    return tables
