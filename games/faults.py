"""Faults in a result: the kinds a seat can be stopped for, and how a result ranks faulted
seats. The runner (bots/runner.py) ranks every match this way, and an archive's verifier
(tournaments/archive/rerun.py) ranks the replayed results the same way; both take it from
here, below both of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

# "resigned" is a person's seat giving up (tournaments/services/human_games.py); the rest are
# a program's.
FAULT_KINDS = (
    "timeout", "cpu", "memory", "processes", "output", "protocol", "illegal", "crashed",
    "resigned",
)  # fmt: skip


class PublicFault(Protocol):
    def to_dict(self) -> dict: ...


def rank_with_faults(result: dict, faults: Mapping[int, PublicFault], labels: list[str]) -> dict:
    """The engine result with ``bot`` and ``fault`` per seat: faulted seats (their whole
    team) last, sharing that rank; the others ranked again among themselves by their engine
    rank, ties sharing; the engine's own rank kept as ``engine_rank``."""
    seats = [dict(s) for s in result["seats"]]
    teams = result.get("teams") or []
    units = [list(t) for t in teams] if teams else [[i] for i in range(len(seats))]
    clean = [u for u in units if not any(s in faults for s in u)]
    dirty = [u for u in units if any(s in faults for s in u)]
    clean.sort(key=lambda u: min(seats[s]["rank"] for s in u))
    rank_of: dict[int, int] = {}
    previous, previous_rank = None, 0
    for position, unit in enumerate(clean, start=1):
        engine = min(seats[s]["rank"] for s in unit)
        rank = previous_rank if engine == previous else position
        previous, previous_rank = engine, rank
        for s in unit:
            rank_of[s] = rank
    for unit in dirty:
        for s in unit:
            rank_of[s] = len(clean) + 1
    for i, seat in enumerate(seats):
        seat["engine_rank"] = seat["rank"]
        seat["rank"] = rank_of.get(i, seat["rank"])
        seat["bot"] = labels[i]
        seat["fault"] = faults[i].to_dict() if i in faults else None
    return {**result, "seats": seats}
