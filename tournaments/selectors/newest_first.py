"""Pages of a list shown newest first (tournaments by start, competitions by opening).

Pages are keyset, never an offset: a page is asked for as the rows after (or before) a row
named by its id, so the hundredth page costs what the first does and a row added while a
reader pages does not shift the rows under them."""

from __future__ import annotations

from django.db.models import Q, QuerySet

PAGE_SIZE = 50


def newest_first(
    rows: QuerySet,
    *,
    field: str,
    after: int | None = None,
    before: int | None = None,
    size: int = PAGE_SIZE,
) -> dict:
    """One page of ``rows`` ordered by ``field`` descending, then id descending.

    ``after``: the page following the row of that id; ``before``: the page ending just
    before it; neither (or an id that names no row of ``rows``) gives the first page.
    Returns ``rows`` (the page, in order) and ``next`` / ``previous``: the ids to ask for
    the pages either side, or None at an end."""
    anchor_id = before or after
    anchor = rows.filter(pk=anchor_id).values_list(field, flat=True).first() if anchor_id else None
    if anchor is None:
        found = list(rows.order_by(f"-{field}", "-id")[: size + 1])
        return _page(found[:size], more_after=len(found) > size, more_before=False)
    if before:
        later = Q(**{f"{field}__gt": anchor}) | Q(**{field: anchor, "id__gt": anchor_id})
        found = list(rows.filter(later).order_by(field, "id")[: size + 1])
        return _page(found[:size][::-1], more_after=True, more_before=len(found) > size)
    earlier = Q(**{f"{field}__lt": anchor}) | Q(**{field: anchor, "id__lt": anchor_id})
    found = list(rows.filter(earlier).order_by(f"-{field}", "-id")[: size + 1])
    return _page(found[:size], more_after=len(found) > size, more_before=True)


def _page(rows: list, *, more_after: bool, more_before: bool) -> dict:
    return {
        "rows": rows,
        "next": rows[-1].pk if rows and more_after else None,
        "previous": rows[0].pk if rows and more_before else None,
    }
