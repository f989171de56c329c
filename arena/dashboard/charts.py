"""Data for the dashboard's charts; static/arena/chart.js draws them at the page's width."""

from __future__ import annotations

import math
from datetime import datetime

from django.utils.html import format_html, json_script
from django.utils.safestring import mark_safe


def rating_series(history: list[dict]) -> dict | None:
    """A bot's rating history as the chart script reads it: one point per rated match, each
    naming its version, so that each version is drawn as its own line (a new version starts
    from its parent's rating: joining them would draw a jump that never happened in play)."""
    if not history:
        return None
    points = [
        {
            "version": h["version"],
            "match": h["match"],
            "elo": h["after"],
            "change": round(h["after"] - h["before"], 1),
            "at": h["at"].isoformat() if h["at"] else None,
        }
        for h in history
    ]
    return {
        "points": points,
        "versions": sorted({p["version"] for p in points}),
        "last": round(points[-1]["elo"]),
        "low": round(min(p["elo"] for p in points)),
        "high": round(max(p["elo"] for p in points)),
    }


def rating_chart(points: list[tuple]) -> dict | None:
    """``rating_series`` of the history ``points`` (``selectors.rating_points``' tuples,
    oldest first) with the chart's data element already written (``script``: what
    ``json_script(rating_series(...), "rating-data")`` writes, the same bytes), and its
    ``last``, ``low`` and ``high``. Each point is written straight from its tuple: a dict
    per point, its time encoded, then the JSON encoder were most of the page's chart.
    ``points``: what it draws (``points`` themselves, or the series' dicts)."""
    if not points:
        return None
    elos = [point[5] for point in points]
    if not math.isfinite(math.fsum(elos) + math.fsum(point[4] for point in points)):
        # JSON writes NaN and Infinity its own way: the encoder's path, as it was.
        history = [
            {"version": v, "match": m, "before": before, "after": after, "at": point_time(at)}
            for v, _, m, _, before, after, at in points
        ]
        chart = rating_series(history)
        return {**chart, "script": json_script(chart, "rating-data")}
    written = ", ".join(
        f'{{"version": {v:d}, "match": {m:d}, "elo": {after!r}, "change":'
        f' {round(after - before, 1)!r}, "at": {_json_time(at)}}}'
        for v, _, m, _, before, after, at in points
    )
    versions = ", ".join(str(v) for v in sorted({point[0] for point in points}))
    last, low, high = round(elos[-1]), round(min(elos)), round(max(elos))
    data = (
        f'{{"points": [{written}], "versions": [{versions}], "last": {last}, "low": {low},'
        f' "high": {high}}}'
    )
    # Nothing written above holds a character json_script escapes (<, > or &).
    script = format_html(
        '<script id="rating-data" type="application/json">{}</script>', mark_safe(data)
    )
    return {"points": points, "script": script, "last": last, "low": low, "high": high}


def point_time(at: str | None) -> datetime | None:
    """A point's time (``selectors.rating_points``' text) as a datetime."""
    return None if at is None else datetime.fromisoformat(at)


def _json_time(at: str | None) -> str:
    """A point's time (its ``isoformat()``) as the JSON encoder writes it (null for none)."""
    return "null" if at is None else f'"{at}"'
