"""How a verifier says what does not check out: the exception, a match's label, and values
shown short and compared canonically (JSON with sorted keys)."""

from __future__ import annotations

import json


class Discrepancy(Exception):
    """The first thing in the archive that does not check out, said for a person."""


def match_label(match: dict) -> str:
    where = match.get("pairing_key") or (
        f"table {match.get('table')}" if match.get("table") is not None else ""
    )
    return f"match {match.get('id')} ({match.get('stage')} {where})".replace(" )", ")")


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def short(value: object) -> str:
    text = json.dumps(value, separators=(",", ":"), default=str)
    return text if len(text) <= 80 else text[:77] + "..."
