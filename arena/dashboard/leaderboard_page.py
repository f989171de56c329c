"""The leaderboard page's rows: one keyset page of the board (searched or not), its links,
and interval whiskers where rows carry an interval."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from tournaments import selectors
from tournaments.models import LeaderboardRow

ROWS_PER_PAGE = 25
WHISKER_WIDTH = 120
# A cursor after every row: read backwards from it, the last page.
END = selectors.BoardCursor(LeaderboardRow.UNRATED_KEY * 10, "", backwards=True)


def with_whiskers(rows: list[dict]) -> list[dict]:
    """Adds ``whisker`` (pixel positions on one scale shared by ``rows``) to rows that carry
    an interval (``elo_low`` and ``elo_high``); rows without one are left as they are."""
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


@dataclass
class BoardPage:
    object_list: list[dict]
    count: int
    searched: bool = False
    first_url: str | None = None
    previous_url: str | None = None
    next_url: str | None = None
    last_url: str | None = None

    @property
    def summary(self) -> str:
        """Which rows these are: places on the board, or how many a search found."""
        bots = f"{self.count} bot{'s' if self.count != 1 else ''}"
        if self.searched:
            return f"{bots} found"
        if not self.object_list:
            return bots
        first, last = self.object_list[0]["position"], self.object_list[-1]["position"]
        return f"{first}–{last} of {bots}" if last != first else f"{first} of {bots}"


def parse_cursor(raw: str | None) -> selectors.BoardCursor | None:
    """``?cursor=`` of a page link, ``last`` for the last page; anything else is the first."""
    if raw == "last":
        return END
    if not raw:
        return None
    try:
        return selectors.BoardCursor.decode(raw)
    except selectors.InvalidCursor:
        return None


def board_page(
    *, pool: str, query: str, cursor: str | None, page_size: int = ROWS_PER_PAGE
) -> BoardPage:
    found = selectors.leaderboard_page(
        pool=pool, search=query, cursor=parse_cursor(cursor), page_size=page_size
    )

    def link(position: str | None) -> str:
        params = {"pool": pool}
        if query:
            params["q"] = query
        if position:
            params["cursor"] = position
        return "?" + urlencode(params)

    page = BoardPage(
        object_list=with_whiskers(found["rows"]), count=found["count"], searched=bool(query)
    )
    if found["previous"] is not None:
        page.first_url = link(None)
        page.previous_url = link(found["previous"].encode())
    if found["next"] is not None:
        page.next_url = link(found["next"].encode())
        page.last_url = link("last")
    return page
