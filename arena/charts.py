"""A rating history as a small inline SVG line: no JavaScript, no CDN."""

from __future__ import annotations

WIDTH, HEIGHT, PAD = 600, 160, 20


def rating_chart(values: list[float]) -> dict | None:
    if not values:
        return None
    low, high = min(values), max(values)
    span = max(high - low, 1.0)
    step = (WIDTH - 2 * PAD) / max(len(values) - 1, 1)
    points = " ".join(
        f"{PAD + i * step:.1f},{HEIGHT - PAD - (v - low) / span * (HEIGHT - 2 * PAD):.1f}"
        for i, v in enumerate(values)
    )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "points": points,
        "low": round(low),
        "high": round(high),
        "last": round(values[-1]),
    }
