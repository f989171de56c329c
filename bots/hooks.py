"""Callbacks other apps register for bot events, so that bots never imports them.

``tournaments`` registers its version gate here (bots sits below tournaments in the
layers, so it cannot call it directly). A callback that raises is logged and does not
undo the event: the periodic ``check_gates`` task starts whatever a callback missed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

_version_active: list[Callable[[int], None]] = []


def on_version_active(callback: Callable[[int], None]) -> Callable[[int], None]:
    """Call ``callback(version_id)`` after a version becomes active (once per callback)."""
    if callback not in _version_active:
        _version_active.append(callback)
    return callback


def version_became_active(version_id: int) -> None:
    for callback in list(_version_active):
        try:
            callback(version_id)
        except Exception:
            log.exception("a callback for active version %s failed", version_id)
