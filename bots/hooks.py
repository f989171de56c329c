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


_bot_changed: list[Callable[[int], None]] = []


def on_bot_changed(callback: Callable[[int], None]) -> Callable[[int], None]:
    """Call ``callback(bot_id)`` inside the transaction that may have changed the bot's
    current version (a choice, an activation, a disabling), so read models built on it
    change with it."""
    if callback not in _bot_changed:
        _bot_changed.append(callback)
    return callback


def bot_changed(bot_id: int) -> None:
    """Unlike ``version_became_active`` this runs in the caller's transaction and lets an
    error through: the change and the read models it moves commit together or not at all."""
    for callback in list(_bot_changed):
        callback(bot_id)
