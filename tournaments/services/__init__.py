"""Writes for tournaments, matches and ratings."""

from tournaments.services.ladder import schedule_ladders, set_ladder_paused
from tournaments.services.playing import play_match, requeue_stuck_matches
from tournaments.services.rating import rate_match, recompute_ratings
from tournaments.services.scheduling import (
    cancel_tournament,
    create_tournament,
    start_due_tournaments,
    start_tournament,
)

__all__ = [
    "cancel_tournament",
    "create_tournament",
    "play_match",
    "rate_match",
    "recompute_ratings",
    "requeue_stuck_matches",
    "schedule_ladders",
    "set_ladder_paused",
    "start_due_tournaments",
    "start_tournament",
]
