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

from bots.queueing import MAINTENANCE, MATCHES, VALIDATIONS, waiting

log = logging.getLogger(__name__)
QUEUES = (MATCHES, VALIDATIONS, MAINTENANCE)
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
    running: list[dict] = field(default_factory=list)  # {"task", "args"} of each task


def workers_alive(*, timeout: float) -> list[Worker]:
    """The workers that answered a ping, with the tasks each is running, by name."""

    def ask() -> list[Worker]:
        inspect = current_app.control.inspect(timeout=timeout)
        pongs = inspect.ping() or {}
        if not pongs:
            return []
        active = inspect.active() or {}
        return [
            Worker(
                name=name,
                running=[
                    {"task": task.get("name", ""), "args": list(task.get("args") or ())}
                    for task in active.get(name) or ()
                ],
            )
            for name in sorted(pongs)
        ]

    # Two broadcasts, each waiting up to ``timeout`` for the replies, plus the connection.
    return bounded(ask, timeout=2 * timeout + 2, default=[])
