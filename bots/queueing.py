"""Sending tasks by name after a commit, asking the broker which messages it still holds,
and reporting a queue no worker consumes.

Services publish through here instead of importing ``tasks`` modules (which import the
services back): tasks are addressed by name, and the queue each one travels on comes from
``CELERY_TASK_ROUTES``. Nothing here imports a tasks module.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import QuerySet

log = logging.getLogger(__name__)

# Queue names; CELERY_TASK_ROUTES in arena/settings.py routes the tasks to them.
MATCHES = "matches"
VALIDATIONS = "validations"
MAINTENANCE = "maintenance"
HUMAN_GAMES = "human_games"
# The queues whose work would wait in silence without a worker (maintenance runs the check).
WATCHED = (MATCHES, VALIDATIONS, HUMAN_GAMES)

PLAY_MATCH = "tournaments.tasks.play_match"
PLAY_HUMAN_GAME = "tournaments.tasks.play_human_game"
VALIDATE_BOT_VERSION = "bots.tasks.validate_bot_version"
VALIDATE_OPTIONS = "bots.tasks.validate_options"


def publish(task_name: str, *, args: Sequence) -> bool:
    """Send one task message now; False (logged) when the broker cannot take it.

    A failed publish is never an error for the caller: what it announces is already
    stored, and the reapers send a message for whatever the broker does not hold.
    """
    try:
        current_app.signature(task_name, args=tuple(args)).apply_async()
    except Exception:  # kombu raises OperationalError, redis-py and sockets their own
        log.warning(
            "could not publish %s%r; the reaper will send it again", task_name, tuple(args),
            exc_info=True,
        )  # fmt: skip
        return False
    return True


def publish_after_commit(task_name: str, *, args: Sequence) -> None:
    """Send the task once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: publish(task_name, args=args))


def resend_missing(
    waiting: QuerySet, ids: Iterable[int], held: set, *, task_name: str, now: datetime
) -> int:
    """Send ``task_name`` again for each of ``ids`` still in ``waiting`` whose message the
    broker does not hold, stamping its ``queued_at``; how many were sent. The stamp and
    the send share a transaction, so a row another reaper stamped first is skipped."""
    count = 0
    for pk in ids:
        if pk in held:
            continue
        with transaction.atomic():
            if waiting.filter(pk=pk).update(queued_at=now):
                publish_after_commit(task_name, args=[pk])
                count += 1
    return count


def held_first_args(*, task_name: str, queue: str, delivered_within: float) -> set | None:
    """The first argument of every ``task_name`` message the broker still holds.

    Held means waiting in ``queue``, or delivered to a worker no more than
    ``delivered_within`` seconds ago and not yet acknowledged (Redis keeps those in its
    ``unacked`` hash until the ack). A message delivered longer ago to a worker that
    died stays there until the visibility timeout (hours): it does not count. None when
    this transport cannot be asked: the caller then falls back to judging by age alone.
    """
    with current_app.connection_for_read() as connection:
        channel = connection.default_channel
        driver = connection.transport.driver_type
        if driver == "redis":
            payloads = _redis_payloads(channel, queue, delivered_within)
        elif driver == "filesystem":
            payloads = _filesystem_payloads(channel, queue)
        else:
            return None
        return {args[0] for args in _task_args(payloads, task_name) if args}


def _redis_payloads(channel, queue: str, delivered_within: float) -> Iterable[dict]:
    client = channel.client
    keys = {channel._q_for_pri(queue, priority) for priority in channel.priority_steps}
    for key in keys:
        for raw in client.lrange(key, 0, -1):
            yield json.loads(raw)
    # The index scores each delivery tag with its delivery time.
    recent = client.zrangebyscore(channel.unacked_index_key, time.time() - delivered_within, "+inf")
    if recent:
        for raw in client.hmget(channel.unacked_key, recent):
            if raw is not None:  # acknowledged meanwhile
                # Each entry is [message, exchange, routing key].
                yield json.loads(raw)[0]


def _filesystem_payloads(channel, queue: str) -> Iterable[dict]:
    # Files are named "<ms>_<uuid>.<queue>.msg" (kombu's filesystem transport).
    for path in Path(channel.data_folder_in).glob(f"*.{queue}.msg"):
        try:
            yield json.loads(path.read_bytes())
        except (OSError, ValueError):  # taken by a worker meanwhile, or half written
            continue


def _task_args(payloads: Iterable[dict], task_name: str) -> Iterable[list]:
    for payload in payloads:
        if payload.get("headers", {}).get("task") != task_name:
            continue
        body = payload.get("body", "")
        if payload.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        try:
            # Task protocol 2: the body is [args, kwargs, embed].
            yield json.loads(body)[0]
        except (ValueError, IndexError, TypeError):
            continue


def consumed_queues(timeout: float = 1.0) -> set[str] | None:
    """The queues some worker consumes, asked of every worker (Celery's broadcast control);
    None when no worker answered, not even the one asking (its pool or transport cannot
    tell), since that says nothing about the queues."""
    replies = current_app.control.inspect(timeout=timeout).active_queues()
    if not replies:
        return None
    return {queue["name"] for queues in replies.values() for queue in queues or ()}


def waiting(queue: str) -> int:
    """How many messages wait in ``queue`` (delivered ones not counted)."""
    with current_app.connection_for_read() as connection:
        return connection.default_channel.queue_declare(queue=queue).message_count


def report_unserved_queues(*, now: float) -> dict[str, int]:
    """Log a warning for each watched queue no worker has consumed for
    ``ARENA_UNSERVED_QUEUE_SECONDS``, with its backlog; {queue: messages waiting} of those.

    The first time a queue was seen without a consumer is kept in the cache, so the check
    needs no worker to remember it (with the default per-process cache, each pool process
    counts from its own first look)."""
    consumed = consumed_queues()
    if consumed is None:
        log.info("no worker answered the question of which queues it consumes; not checked")
        return {}
    unserved = {}
    for queue in WATCHED:
        key = f"arena:unserved-since:{queue}"
        if queue in consumed:
            cache.delete(key)
            continue
        cache.add(key, now, timeout=None)
        since = cache.get(key, now)
        if now - since < settings.ARENA_UNSERVED_QUEUE_SECONDS:
            continue
        count = waiting(queue)
        unserved[queue] = count
        log.warning(
            "no worker consumes the '%s' queue (for %d s); %d %s there. Start one: "
            "`celery -A arena worker` serves every queue, `-Q %s` this one alone",
            queue, now - since, count, "message waits" if count == 1 else "messages wait",
            queue,
        )  # fmt: skip
    return unserved
