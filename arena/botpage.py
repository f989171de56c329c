"""The bot page's recent matches, arranged for reading: result, rank, opponents, tournament."""

from __future__ import annotations

from tournaments import selectors
from tournaments.models import Match, MatchSeat


def result_text(rank: int | None, ranks: list[int]) -> str:
    """``won``, ``lost``, ``draw``, or ``2nd of 4`` for a table of more than two."""
    if rank is None:
        return ""
    shared = ranks.count(rank) > 1
    if len(ranks) == 2:
        return "draw" if shared else ("won" if rank == 1 else "lost")
    if rank == 1:
        return "shared 1st" if shared else "won"
    suffix = {2: "nd", 3: "rd"}.get(rank, "th")
    return f"{'shared ' if shared else ''}{rank}{suffix} of {len(ranks)}"


HISTORY_ROWS = 50


def latest_history(history: list[dict], *, limit: int = HISTORY_ROWS) -> list[dict]:
    """The last ``limit`` rating changes, newest first, each with its number (1 = first)."""
    start = max(0, len(history) - limit)
    return [{**h, "n": start + i + 1} for i, h in enumerate(history[start:])][::-1]


def recent_match_rows(*, bot_id: int, with_cancelled: bool, limit: int = 30) -> tuple[list, int]:
    """The bot's latest matches, newest first, and how many cancelled ones were left out."""
    # The newest match ids from the bot's seats (narrow rows, no DISTINCT over whole
    # matches), then those matches with their seats.
    seats = MatchSeat.objects.filter(version__bot_id=bot_id)
    cancelled = seats.filter(match__status=Match.Status.CANCELLED)
    hidden = 0 if with_cancelled else cancelled.values("match_id").distinct().count()
    if not with_cancelled:
        seats = seats.exclude(match__status=Match.Status.CANCELLED)
    ids = list(seats.order_by("-match_id").values_list("match_id", flat=True).distinct()[:limit])
    matches = selectors.match_list().filter(pk__in=ids).select_related("tournament")
    rows = []
    for match in matches.order_by("-id"):
        seats = list(match.seats.all())
        mine = [s for s in seats if s.version.bot_id == bot_id]
        ranks = [s.rank for s in seats if s.rank is not None]
        me = mine[0] if mine else None
        rows.append(
            {
                "match": match,
                "version": me.version.number if me else None,
                "rank": me.rank if me else None,
                "result": result_text(me.rank, ranks) if me and len(ranks) == len(seats) else "",
                "fault": me.fault if me else None,
                "opponents": [s for s in seats if s.version.bot_id != bot_id],
                "when": match.finished_at or match.started_at or match.queued_at,
            }
        )
    return rows, hidden
