"""Reads for tournaments, matches and ratings, one module per kind of page."""

from tournaments.read_models.leaderboard_rows import version_estimate  # noqa: F401
from tournaments.readcache.replay_answers import (  # noqa: F401
    REPLAY_CACHE_SECONDS,
    SEAT_PATTERN,
    parse_seat,
    replay_cache_key,
    replay_key,
)
from tournaments.selectors.ladders import ladder_progress  # noqa: F401
from tournaments.selectors.leaderboard_pages import (  # noqa: F401
    LEADERBOARD_MAX_PAGE_SIZE,
    LEADERBOARD_PAGE_SIZE,
    BoardCursor,
    InvalidCursor,
    leaderboard,
    leaderboard_direct,
    leaderboard_page,
)
from tournaments.selectors.matches import (  # noqa: F401
    REPLAY_LOOKUP_FIELDS,
    as_rows,
    match_detail,
    match_list,
    match_log_cache,
    owned_seats,
    public_seats,
    recent_matches,
    replay_body,
    replay_events,
    replay_lookup,
    replay_moves,
    reproduce,
    seat_count,
    seat_fault_details,
    seat_logs,
    spliced_json,
    stored_piece,
    with_seats,
)
from tournaments.selectors.ratings import (  # noqa: F401
    HISTORY_POINTS,
    MAX_HISTORY_POINTS,
    bot_has_gates,
    gates_of_bot,
    head_to_head,
    opponents_met,
    pool_fit_info,
    pools_of_game,
    rated_matches_by_pool,
    rating_history,
    rating_points,
    rating_pools_of_bot,
    rating_series,
    resolve_pool,
)
from tournaments.selectors.tournaments import (  # noqa: F401
    DURATION_SAMPLE,
    decider_points,
    entrants,
    entrants_being_validated,
    expected_games,
    game_points,
    held_overview,
    load_entrants,
    lowest_score_wins,
    overview,
    overview_for,
    overview_from_matches,
    planned_games,
    progress,
    standings,
    time_left,
    tournament_list,
    tournament_read,
    withdrawal_reasons,
)
from tournaments.visibility import (  # noqa: F401
    match_view,
    match_views,
    seen_moves,
    tournament_seed_shown,
)
