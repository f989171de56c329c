"""One log line per thing that happens to a match or a version, on the ``arena.events``
logger: a readable sentence, with its fields attached for ``arena.log_format.JsonFormatter``
(``ARENA_LOG_JSON=1``), which writes each as one JSON object a log search can filter on
("what happened to match 123": ``match == 123``).

Events: ``match.claimed``, ``match.finished``, ``match.faulted``, ``match.requeued``,
``match.failed``, ``version.uploaded``, ``version.validated``.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger("arena.events")


def worker_id() -> str:
    """This process as the matches' ``worker`` column names it: host and pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def emit(event: str, message: str, *, level: int = logging.INFO, **fields) -> None:
    """Log ``message`` (its own %-arguments already applied) with ``event`` and ``fields``."""
    log.log(level, message, extra={"event": event, "fields": fields})
