"""Data for the dashboard's charts; static/arena/chart.js draws them at the page's width."""

from __future__ import annotations


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
