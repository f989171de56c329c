"""Tournaments, their entries and matches, Elo ratings per pool, and version gates.

Two modules: ``events`` (what is played and shown) and ``ratings`` (what results move).
"""

from tournaments.models.events import (
    Entry,
    EntryTally,
    Ladder,
    LadderCount,
    Match,
    MatchReplay,
    MatchSeat,
    PairTally,
    ReadVersion,
    StandingsSnapshot,
    Tournament,
)
from tournaments.models.ratings import (
    Gate,
    LeaderboardRow,
    PoolFit,
    Rating,
    RatingChange,
    RatingFit,
    RatingLedger,
    RatingPair,
)

__all__ = [
    "Tournament",
    "Entry",
    "EntryTally",
    "PairTally",
    "StandingsSnapshot",
    "Ladder",
    "ReadVersion",
    "LadderCount",
    "Match",
    "MatchReplay",
    "MatchSeat",
    "RatingLedger",
    "Rating",
    "RatingChange",
    "RatingPair",
    "PoolFit",
    "RatingFit",
    "Gate",
    "LeaderboardRow",
]
