"""A process's own copy of the largest stored answers it last served.

Taking a large entry from Redis costs noticeably more than a small one, a share of a
stored read's whole time. What is kept here is exactly what the cache holds under the same
key (the callers say how each stays exact); the bound only limits memory, and the least
recently read goes first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class ProcessCopies:
    """At most ``max_bytes`` of values (each with its size), least recently read dropped
    first; a value over a quarter of the bound is not kept."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[object, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()  # gunicorn's threaded workers share a process

    def get(self, key: str):
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: str, value, size: int) -> None:
        if size > self.max_bytes // 4:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._items[key] = (value, size)
            self._size += size
            while self._size > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._size -= dropped

    def discard(self, key: str) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= old[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0

    @property
    def size(self) -> int:
        return self._size
