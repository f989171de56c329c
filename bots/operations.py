"""What the broker and the workers say right now, for ``/metrics`` and the operations
page: each queue's depth, the workers answering a ping and what each is running.

Every question is bounded: an answer not in within its time counts as none, so a broker
that hangs slows a page or a scrape by the bound, never more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TypeVar

from celery import current_app
from django.core.cache import cache

from bots.queueing import HUMAN_GAMES, MAINTENANCE, MATCHES, VALIDATIONS, waiting

log = logging.getLogger(__name__)
QUEUES = (MATCHES, VALIDATIONS, HUMAN_GAMES, MAINTENANCE)
T = TypeVar("T")


def bounded(ask: Callable[[], T], *, timeout: float, default: T) -> T:
    """``ask()``'s answer, or ``default`` when it raises or takes longer than ``timeout``."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ask")
    try:
        return pool.submit(ask).result(timeout=timeout)
    except FutureTimeout:
        log.warning(
            "%s did not answer within %g s", getattr(ask, "__name__", "a question"), timeout
        )
        return default
    except Exception:
        log.warning("%s failed", getattr(ask, "__name__", "a question"), exc_info=True)
        return default
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def queue_depths(*, timeout: float) -> dict[str, int | None]:
    """{queue: messages waiting} for every queue of the app; None where unknown."""

    def ask() -> dict[str, int | None]:
        return {queue: waiting(queue) for queue in QUEUES}

    return bounded(ask, timeout=timeout, default=dict.fromkeys(QUEUES))


@dataclass
class Worker:
    name: str
    queues: list[str] = field(default_factory=list)  # the queues it consumes
    running: list[dict] = field(default_factory=list)  # {"task", "args"} of each task


def workers_alive(*, timeout: float) -> list[Worker]:
    """The workers that answered within ``timeout``, each with the queues it consumes and
    the tasks it is running. The two broadcasts go out together: a broadcast waits its
    whole timeout for replies, since it cannot know how many workers there are."""

    def ask() -> list[Worker]:
        inspect = current_app.control.inspect(timeout=timeout)
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="inspect") as pool:
            queues_asked = pool.submit(inspect.active_queues)
            active_asked = pool.submit(inspect.active)
            queues, active = queues_asked.result() or {}, active_asked.result() or {}
        return [
            Worker(
                name=name,
                queues=sorted(queue["name"] for queue in queues.get(name) or ()),
                running=[
                    {"task": task.get("name", ""), "args": list(task.get("args") or ())}
                    for task in active.get(name) or ()
                ],
            )
            for name in sorted(set(queues) | set(active))
        ]

    # The broadcasts' own wait, plus the connection's.
    return bounded(ask, timeout=timeout + 2, default=[])


def drained_key(queue: str) -> str:
    return f"arena:drained:{queue}"


def drain_queue(*, queue: str, timeout: float) -> list[str]:
    """Drain ``queue``: every worker finishes what it holds and takes no more from it (its
    messages wait). The workers that stopped, remembered (in the shared cache) for
    ``resume_queue``. A worker restarted meanwhile consumes its queues again."""
    if queue not in QUEUES:
        raise ValueError(f"no queue {queue!r}")
    replies = current_app.control.cancel_consumer(queue, reply=True, timeout=timeout) or []
    stopped = sorted(name for reply in replies for name in reply)
    earlier = cache.get(drained_key(queue)) or []
    cache.set(drained_key(queue), sorted(set(earlier) | set(stopped)), timeout=None)
    return stopped


def drained_by(queue: str) -> list[str]:
    """The workers a drain of ``queue`` stopped and nothing resumed yet."""
    return cache.get(drained_key(queue)) or []


def resume_queue(*, queue: str, timeout: float) -> list[str]:
    """The workers ``drain_queue`` stopped consume ``queue`` again; those that answered.
    (Only those: a worker started for other queues alone is not given this one.)"""
    workers = drained_by(queue)
    if not workers:
        return []
    replies = (
        current_app.control.add_consumer(queue, destination=workers, reply=True, timeout=timeout)
        or []
    )
    resumed = sorted(name for reply in replies for name in reply)
    cache.delete(drained_key(queue))
    return resumed
