"""Thin Celery tasks: ids in, one service call."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from tournaments import services
from tournaments.read_models import replays
from tournaments.services import competition_ladder, competition_phases, human_games

# A database that is down or restarting must not cost the message. The task is sent
# again with a jittered backoff, at most RETRY_BACKOFF_MAX seconds apart, so play resumes
# within seconds of the database's return. Re-raising instead would ack (or, without
# acks_on_failure, drop) the message, and the filesystem transport cannot redeliver at
# all; a retry is a new message, which works on every transport. After RETRY_LIMIT
# tries the reaper, which re-sends queued matches the broker no longer holds, takes over.
DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_BACKOFF_MAX = 8
RETRY_LIMIT = 200


# Both kinds of match: acked once played, delivered again if the worker is lost.
MATCH_TASK = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": DATABASE_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": RETRY_LIMIT,
}


# In a worker the result is recorded behind the next match (tournaments/services/recorder.py):
# the message is acked once the match is played and its result handed over. Called eagerly
# or directly, the call returns with the result recorded.
@shared_task(bind=True, **MATCH_TASK)
def play_match(self, match_id: int) -> None:
    request = self.request
    in_a_worker = not request.called_directly and not request.is_eager
    services.play_queued_match(match_id=match_id, record_behind=in_a_worker)


# A game a person plays holds its worker process for as long as they play; its own queue.
@shared_task(**MATCH_TASK)
def play_human_game(match_id: int) -> None:
    human_games.play_human_game(match_id=match_id)


# Maintenance runs again on the next beat tick; a database error just skips this one.
@shared_task
def start_due_tournaments() -> None:
    services.start_due_tournaments()


@shared_task
def requeue_stuck_matches() -> None:
    services.requeue_stuck_matches()


@shared_task
def schedule_ladders() -> None:
    services.schedule_ladders()


@shared_task
def advance_competitions() -> None:
    competition_phases.advance_competitions()


@shared_task
def schedule_competition_ladders() -> None:
    competition_ladder.schedule_competition_ladders()


@shared_task
def fit_pool(pool: str) -> None:
    services.fit_pool(pool=pool)


@shared_task
def refit_stale_pools() -> None:
    services.refit_stale_pools()


@shared_task
def check_gates() -> None:
    services.check_gates()


@shared_task
def check_challenges() -> None:
    services.check_challenges()


# Acked on receipt, unlike the rest: a build that kills its worker (a huge match, memory) is
# not delivered again and again. A lost, expired or failed build costs nothing but time:
# the match's first read builds what is missing.
@shared_task(acks_late=False)
def store_replay(match_id: int) -> None:
    replays.store_replay(match_id=match_id)
