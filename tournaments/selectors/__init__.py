"""Reads for tournaments, matches and ratings, one module per kind of page."""

from tournaments.selectors.ladders import ladder_progress  # noqa: F401
from tournaments.selectors.leaderboard import (  # noqa: F401
    LEADERBOARD_MAX_PAGE_SIZE,
    LEADERBOARD_PAGE_SIZE,
    BoardCursor,
    InvalidCursor,
    leaderboard,
    leaderboard_direct,
    leaderboard_page,
)
from tournaments.selectors.matches import (  # noqa: F401
    REPLAY_CACHE_SECONDS,
    REPLAY_LOOKUP_FIELDS,
    SEAT_PATTERN,
    match_detail,
    match_list,
    match_log_cache,
    owned_seats,
    parse_seat,
    public_seats,
    recent_matches,
    replay_body,
    replay_cache_key,
    replay_events,
    replay_key,
    replay_lookup,
    replay_moves,
    reproduce,
    seat_logs,
    spliced_json,
    stored_piece,
)
from tournaments.selectors.ratings import (  # noqa: F401
    HISTORY_POINTS,
    MAX_HISTORY_POINTS,
    gates_of_bot,
    head_to_head,
    opponents_met,
    pool_fit_info,
    pools_of_game,
    rated_matches_by_pool,
    rated_matches_of_bot,
    rating_history,
    rating_pools_of_bot,
    rating_series,
    resolve_pool,
    version_estimate,
)
from tournaments.selectors.replay_bodies import (  # noqa: F401
    cached_replay_body,
    remembered_body,
)
from tournaments.selectors.replay_bodies import forget_all as forget_replay_bodies  # noqa: F401
from tournaments.selectors.tournaments import (  # noqa: F401
    DURATION_SAMPLE,
    entrants,
    expected_games,
    game_points,
    load_entrants,
    overview,
    overview_from_matches,
    progress,
    standings,
    time_left,
    tournament_list,
)
from tournaments.selectors.versions import (  # noqa: F401
    bot_game,
    bot_list_api_version,
    bot_list_version,
    bot_page_version,
    bot_version,
    finished_match_version,
    finished_tournament_version,
    ladder_version,
    ladders_version,
    tournament_list_version,
    version_version,
)
