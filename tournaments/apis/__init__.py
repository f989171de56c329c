"""Thin API views for tournaments, matches, ratings and ladders, one module per kind of resource."""

from tournaments.apis.bots import (  # noqa: F401
    BotDetailApi,
    BotListCreateApi,
    BotVersionsApi,
    VersionDetailApi,
)
from tournaments.apis.challenges import (  # noqa: F401
    BotChallengesApi,
    ChallengeAcceptApi,
    ChallengeAgainApi,
    ChallengeCancelApi,
    ChallengeDeclineApi,
    ChallengeDetailApi,
    ChallengeListCreateApi,
)
from tournaments.apis.human_games import (  # noqa: F401
    HumanGameActApi,
    HumanGameDetailApi,
    HumanGameListCreateApi,
    HumanGameRematchApi,
    HumanGameResignApi,
)
from tournaments.apis.ladders import (  # noqa: F401
    LadderDetailApi,
    LadderListApi,
    LadderMatchesApi,
    LadderPauseApi,
    LadderResumeApi,
    LadderSerializer,
)
from tournaments.apis.matches import (  # noqa: F401
    DetailSeatSerializer,
    MatchDetailApi,
    MatchDetailSerializer,
    MatchReplayApi,
    MatchSerializer,
    ReplaySerializer,
    ReproduceFileSerializer,
    ReproduceSerializer,
    SeatLogApi,
    SeatSerializer,
)
from tournaments.apis.ratings import (  # noqa: F401
    POOL_PARAMETER,
    BotGatingApi,
    BotGatingSerializer,
    BotRatingsApi,
    GateSerializer,
    GatingSerializer,
    HeadToHeadApi,
    HeadToHeadQuery,
    HeadToHeadSerializer,
    HeadToHeadSideSerializer,
    LeaderboardApi,
    LeaderboardRowSerializer,
    LeaderboardSerializer,
    PairedSerializer,
    PoolSerializer,
    RatingHistorySerializer,
    RatingPointSerializer,
    RatingSeriesSerializer,
)
from tournaments.apis.tournaments import (  # noqa: F401
    TournamentCancelApi,
    TournamentDetailApi,
    TournamentDetailSerializer,
    TournamentFilter,
    TournamentListCreateApi,
    TournamentMatchesApi,
    TournamentSerializer,
)
