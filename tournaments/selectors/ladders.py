"""Reads of ladders: their matches by status, from the counters the match table's trigger
keeps (``LadderCount``), so a ladder of a million matches costs one row, not a count."""

from __future__ import annotations

from tournaments.models import Ladder, LadderCount, Match


def ladder_progress(*, ladder: Ladder) -> dict:
    """The ladder's matches by status (every status, zero when none)."""
    row = LadderCount.objects.filter(ladder=ladder).first()
    return {status: getattr(row, status, 0) if row else 0 for status in Match.Status.values}


def ladders_progress(*, ladders: list[Ladder]) -> dict[int, dict]:
    """``ladder_progress`` of several ladders in one query, by ladder id."""
    rows = {row.ladder_id: row for row in LadderCount.objects.filter(ladder__in=ladders)}
    return {
        ladder.pk: {s: getattr(rows.get(ladder.pk), s, 0) for s in Match.Status.values}
        for ladder in ladders
    }
