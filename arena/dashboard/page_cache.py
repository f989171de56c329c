"""Pages stored for anonymous readers under a mark of what they show (see the cache's
module, ``tournaments.readcache``, for the keys and when an answer is stored)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from tournaments import readcache


def cached_page(*, mark: Callable, kind: str = "page"):
    """A page view answered from the cache: ``mark(request, *args, **kwargs)`` reads the
    mark of what the page shows (None: built every time), read before the view runs so that a
    write between the two stores newer rows under the older mark, never the reverse.

    ``kind`` other than ``"page"`` stores any answer (JSON too) under that name, whether or
    not a message waits for the reader. Other methods than GET are never stored, so their
    mark is not read."""

    def decorate(view):
        @functools.wraps(view)
        def cached(request, *args, **kwargs):
            def build():
                return view(request, *args, **kwargs)

            if request.method != "GET":
                return build()
            parts = mark(request, *args, **kwargs)
            if kind == "page":
                return readcache.page(request, parts, build)
            return readcache.response(request, kind, parts, build)

        return cached

    return decorate


def for_anonymous(mark: Callable) -> Callable:
    """``mark`` for anonymous readers only (a logged-in reader's page is never stored:
    this spares its mark's query)."""

    @functools.wraps(mark)
    def anonymous_mark(request, *args, **kwargs):
        return mark(request, *args, **kwargs) if readcache.anonymous(request) else None

    return anonymous_mark
