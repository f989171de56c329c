"""Tournaments, their entries and matches, Elo ratings per pool, and version gates.

One module per kind of table: ``tournaments`` (tournaments and entries), ``ladders``,
``matches`` (matches and seats), ``read_tables`` (what pages read instead of recomputing)
and ``ratings`` (what results move, gates and the leaderboard rows). ``row_statements``
holds no table: it writes and reads many rows of them in one statement.
"""

from tournaments.models.challenges import Challenge, ChallengeOpponent
from tournaments.models.competitions import (
    Announcement,
    Competition,
    CompetitionEntry,
    Team,
    TeamMember,
)
from tournaments.models.human_games import HumanGame
from tournaments.models.ladders import Ladder
from tournaments.models.matches import HostFailure, Match, MatchSeat
from tournaments.models.ratings import (
    BotOpponent,
    Gate,
    LeaderboardRow,
    PoolFit,
    Rating,
    RatingChange,
    RatingFit,
    RatingLedger,
    RatingPair,
)
from tournaments.models.read_tables import (
    EntryTally,
    LadderCount,
    MatchReplay,
    PairTally,
    ReadVersion,
    StandingsSnapshot,
)
from tournaments.models.tournaments import Entry, Tournament

__all__ = [
    "Tournament",
    "Entry",
    "EntryTally",
    "PairTally",
    "StandingsSnapshot",
    "Ladder",
    "Challenge",
    "ChallengeOpponent",
    "HumanGame",
    "Competition",
    "CompetitionEntry",
    "Team",
    "TeamMember",
    "Announcement",
    "ReadVersion",
    "LadderCount",
    "HostFailure",
    "Match",
    "MatchReplay",
    "MatchSeat",
    "RatingLedger",
    "Rating",
    "RatingChange",
    "RatingPair",
    "BotOpponent",
    "PoolFit",
    "RatingFit",
    "Gate",
    "LeaderboardRow",
]
