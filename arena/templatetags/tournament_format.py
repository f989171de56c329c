"""Labels for the tournament page: tie-break names, bracket stages, lookups by key."""

from __future__ import annotations

from django import template

register = template.Library()

TIEBREAK_LABELS = {
    "buchholz": "Buchholz",
    "sonneborn_berger": "Sonneborn-Berger",
    "head_to_head": "Head-to-head",
    "faults": "Faults",
}
# Narrow screens: short column heads, the full name in the abbreviation's title.
TIEBREAK_SHORT = {
    "buchholz": "Bh",
    "sonneborn_berger": "SB",
    "head_to_head": "H2H",
    "faults": "Flt",
}
STAGE_LABELS = {
    "winners": "Winners' bracket",
    "losers": "Losers' bracket",
    "final": "Grand final",
    "third_place": "Third place",
}


@register.filter
def tiebreak_label(name: str) -> str:
    return TIEBREAK_LABELS.get(name, name.replace("_", " "))


@register.filter
def tiebreak_short(name: str) -> str:
    return TIEBREAK_SHORT.get(name, name[:3])


@register.filter
def stage_label(name: str) -> str:
    return STAGE_LABELS.get(name, name)


@register.filter
def get_item(mapping: dict | None, key):
    """``mapping[key]``, or an empty string when it is missing."""
    return (mapping or {}).get(key, "")
