"""Query parameters of the pages, read so that no value a reader types can fail a page."""

from __future__ import annotations

MAX_ID = 2**63 - 1


def query_text(request, name: str) -> str:
    """A short query parameter, without NUL characters PostgreSQL refuses."""
    return request.GET.get(name, "").replace("\x00", "").strip()[:40]


def query_id(request, name: str) -> int | None:
    """A row id given as a query parameter; None for anything that is not one."""
    raw = query_text(request, name)
    if not raw.isascii() or not raw.isdigit() or not 0 < int(raw) <= MAX_ID:
        return None
    return int(raw)
