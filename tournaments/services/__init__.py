"""Writes for tournaments, matches, ratings and version gates."""

from tournaments.services.challenges import check_challenges, create_challenge
from tournaments.services.fitting import fit_pool, refit_stale_pools
from tournaments.services.gating import advance_gate, check_gates, start_gate
from tournaments.services.ladder import schedule_ladders, set_ladder_paused
from tournaments.services.playing import play_match, play_queued_match, requeue_stuck_matches
from tournaments.services.rating import rate_match
from tournaments.services.recompute import rebuild_ratings, recompute_ratings
from tournaments.services.scheduling import (
    cancel_tournament,
    create_tournament,
    start_due_tournaments,
    start_tournament,
    update_tournament,
)

__all__ = [
    "advance_gate",
    "cancel_tournament",
    "check_challenges",
    "check_gates",
    "create_challenge",
    "create_tournament",
    "fit_pool",
    "play_match",
    "play_queued_match",
    "rate_match",
    "rebuild_ratings",
    "recompute_ratings",
    "refit_stale_pools",
    "requeue_stuck_matches",
    "schedule_ladders",
    "set_ladder_paused",
    "start_due_tournaments",
    "start_gate",
    "start_tournament",
    "update_tournament",
]
