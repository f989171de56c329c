"""Readable text for the JSON the engines and the runner record (events, moves, options)."""

from __future__ import annotations

import json

from django import template

register = template.Library()


def _compact(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


@register.filter
def as_json(value) -> str:
    """JSON as recorded (true/false/null, not Python's True/False/None)."""
    return json.dumps(value, separators=(", ", ": "), sort_keys=False)


@register.filter
def options_text(options: dict | None) -> str:
    """``name=value`` pairs, or "defaults" for an empty set."""
    if not options:
        return "defaults"
    return ", ".join(f"{name}={_compact(value)}" for name, value in options.items())


@register.filter
def event_text(event: dict) -> str:
    """``hit: seat=0 card=6`` for ``{"type": "hit", "seat": 0, "card": 6}``."""
    fields = " ".join(f"{key}={_compact(value)}" for key, value in event.items() if key != "type")
    return f"{event.get('type', '?')}: {fields}" if fields else str(event.get("type", "?"))


@register.filter
def move_text(move: dict) -> str:
    """``seat 0: "hit" (3 ms, CPU 2 ms)`` for each seat that acted in one step of the match
    (``(hidden)`` for a seat whose action this view may not see)."""
    walls, cpus = move.get("ms") or {}, move.get("cpu_ms") or {}
    hidden = move.get("hidden") or ()
    parts = []
    for seat, action in (move.get("actions") or {}).items():
        times = [f"{walls[seat]} ms"] if walls.get(seat) is not None else []
        if cpus.get(seat) is not None:
            times.append(f"CPU {cpus[seat]} ms")
        shown = "(hidden)" if seat in hidden else json.dumps(action)
        parts.append(f"seat {seat}: {shown}" + (f" ({', '.join(times)})" if times else ""))
    return " · ".join(parts)


@register.filter
def players_text(game) -> str:
    """``2–8``, or ``2, 3, 4, 6`` when the game skips a table size."""
    counts = game.player_counts()
    if counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}–{counts[-1]}" if len(counts) > 1 else str(counts[0])
    return ", ".join(map(str, counts))


@register.filter
def breakable(name: str) -> str:
    """``pieces_of_eight`` with a line-break opportunity after each ``_`` (narrow screens)."""
    from django.utils.html import escape, mark_safe

    return mark_safe(escape(name).replace("_", "_<wbr>"))


@register.filter
def seconds_text(seconds) -> str:
    """An age in its two largest whole units: "42 s", "7 min 5 s", "2 min", "3 h 12 min"."""
    if seconds is None:
        return ""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, minutes = divmod(whole // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


# Django's User has no display name: its first_name column (150 characters, already in
# every account's row) holds the name a person chose to show beside their username.
@register.filter
def who(user) -> str:
    """``Display Name (username)``, or the username alone when no display name is set."""
    if user is None:
        return ""
    shown = (getattr(user, "first_name", "") or "").strip()
    return f"{shown} ({user.get_username()})" if shown else user.get_username()
