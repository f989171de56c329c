"""The check that everything the engine protocol hands out is plain JSON data."""

from __future__ import annotations

import json


def _strict_json_problem(value, path: str = "$") -> str | None:
    """Why ``value`` is not plain JSON data (tuples, non-str keys, sets...), or None."""
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else path
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = _strict_json_problem(item, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has non-string key {key!r}"
            problem = _strict_json_problem(item, f"{path}.{key}")
            if problem:
                return problem
        return None
    return f"{path} is a {type(value).__name__}"


def assert_strict_json(value, what: str) -> None:
    # A tuple never equals its list, an int key never equals its string and a
    # set does not serialise, so the round trip alone is strict; the walk only
    # runs to explain a failure.
    try:
        same = json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        same = False
    if not same:
        problem = _strict_json_problem(value) or "changes in a JSON round trip"
        raise AssertionError(f"{what} is not plain JSON: {problem}")
