"""Log lines as JSON objects (``ARENA_LOG_JSON=1``): one per line, with the time, level,
logger and message of every record, and the event name and fields of ``bots.events``."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

# A record's own attributes; anything else on it came through ``extra``.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        event = getattr(record, "event", None)
        if event is not None:
            line["event"] = event
            line.update(getattr(record, "fields", {}))
        for name, value in vars(record).items():
            if name not in _STANDARD and name not in ("event", "fields") and name not in line:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)
