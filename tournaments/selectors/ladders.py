"""Reads of ladders: their matches by status, from the counters the match table's trigger
keeps (``LadderCount``), so a ladder of a million matches costs one row, not a count."""

from __future__ import annotations

from tournaments.models import Ladder, LadderCount, Match


def ladder_progress(*, ladder: Ladder) -> dict:
    """The ladder's matches by status (every status, zero when none). No query when the
    ladder was read with its counter row (``select_related("count")``)."""
    if Ladder.count.is_cached(ladder):
        row = getattr(ladder, "count", None)  # None when the ladder has no counter row
    else:
        row = LadderCount.objects.filter(ladder=ladder).first()
    return {status: getattr(row, status, 0) if row else 0 for status in Match.Status.values}
