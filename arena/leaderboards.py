"""The leaderboard page's rows: searched, paginated, with interval whiskers where they exist."""

from __future__ import annotations

from django.core.paginator import Page, Paginator

ROWS_PER_PAGE = 25
WHISKER_WIDTH = 120


def matching(rows: list[dict], query: str) -> list[dict]:
    """Rows whose bot or owner name holds ``query`` (any case)."""
    needle = query.strip().casefold()
    if not needle:
        return rows
    return [
        r
        for r in rows
        if needle in str(r.get("bot", "")).casefold()
        or needle in str(r.get("owner", "")).casefold()
    ]


def with_whiskers(rows: list[dict]) -> list[dict]:
    """Adds ``whisker`` (pixel positions on one shared scale) to rows that carry an interval
    (``elo_low`` and ``elo_high``); rows without one are left as they are."""
    spans = [
        (r["elo_low"], r["elo_high"])
        for r in rows
        if r.get("elo_low") is not None and r.get("elo_high") is not None
    ]
    if not spans:
        return rows
    low = min(s[0] for s in spans)
    high = max(s[1] for s in spans)
    scale = WHISKER_WIDTH / max(high - low, 1.0)
    out = []
    for row in rows:
        if row.get("elo_low") is None or row.get("elo_high") is None:
            out.append(row)
            continue
        out.append(
            {
                **row,
                "whisker": {
                    "x1": round((row["elo_low"] - low) * scale + 4, 1),
                    "x2": round((row["elo_high"] - low) * scale + 4, 1),
                    "x": round((row["elo"] - low) * scale + 4, 1),
                    "width": WHISKER_WIDTH + 8,
                },
            }
        )
    return out


def leaderboard_page(rows: list[dict], *, query: str, page: str | None) -> Page:
    return Paginator(with_whiskers(matching(rows, query)), ROWS_PER_PAGE).get_page(page)
