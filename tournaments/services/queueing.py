"""Sending tasks to the workers; shared by the services so none imports another for it."""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.db import transaction

from bots.queueing import PLAY_HUMAN_GAME, PLAY_MATCH, publish_after_commit

log = logging.getLogger(__name__)

FIT_POOL = "tournaments.tasks.fit_pool"
STORE_REPLAY = "tournaments.tasks.store_replay"


def queue_match_after_commit(match_id: int, *, human: bool = False) -> None:
    """Publish the match's task once the transaction commits: a game a person plays
    (``human``) goes to its own queue and task.

    A broker that is down is logged, not raised: the match is stored as queued, and the
    reaper sends it again when the broker no longer holds a message for it.
    """
    publish_after_commit(PLAY_HUMAN_GAME if human else PLAY_MATCH, args=[match_id])


def publish_fit(pool: str, *, countdown: float = 0.0) -> bool:
    """Send a pool's refit (maintenance queue); False, logged, when the broker is away:
    ``refit_stale_pools`` asks again later."""
    try:
        current_app.signature(FIT_POOL, args=(pool,)).apply_async(countdown=countdown)
    except Exception:  # kombu, redis-py and sockets raise their own
        log.warning("could not ask for a refit of %s; the beat asks again", pool, exc_info=True)
        return False
    return True


def request_fit_after_commit(pool: str) -> None:
    """Ask for a refit a little later, so that a burst of results costs one fit."""
    delay = settings.ARENA_FIT_DELAY_SECONDS
    transaction.on_commit(lambda: publish_fit(pool, countdown=delay))


def publish_store_replay(match_id: int) -> bool:
    """Send a finished match's replay build (maintenance queue); False, logged, when the
    broker is away: its first read then builds it, as it would without this message."""
    try:
        current_app.signature(STORE_REPLAY, args=(match_id,)).apply_async(
            expires=settings.ARENA_STORE_REPLAY_EXPIRES
        )
    except Exception:  # kombu, redis-py and sockets raise their own
        log.warning("could not ask for match %s's stored replay", match_id, exc_info=True)
        return False
    return True


def store_replay_after_commit(*, match_id: int, moves: int) -> None:
    """Have a long match's stored replay built once its result commits, so its first reader
    does not wait for it (a second and more at thousands of moves); a short match's is left
    to its first read (ARENA_STORE_REPLAY_MOVES): nothing is sent, nothing is built."""
    if moves >= settings.ARENA_STORE_REPLAY_MOVES:
        transaction.on_commit(lambda: publish_store_replay(match_id))
