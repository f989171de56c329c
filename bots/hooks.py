"""Callbacks other apps register for bot events, so that bots never imports them.

``tournaments`` registers its version gate here (bots sits below tournaments in the
layers, so it cannot call it directly). A callback that raises is logged and does not
undo the event: the periodic ``check_gates`` task starts whatever a callback missed.
``arena.integrations`` listens to the events every layer emits (:func:`emit`) to tell people.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction

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


@dataclass(frozen=True)
class Event:
    """Something people may want to hear of: a version validated or refused, a challenge
    finished... ``arena.integrations`` turns it into inbox lines, emails and webhook
    deliveries for ``user_ids``, as each chose (docs/integrations.md lists the kinds)."""

    kind: str  # "version.validated", "challenge.finished", ...
    user_ids: tuple[int, ...]  # who is told
    text: str  # one sentence for people
    link: str = ""  # a path on the site where it shows
    data: dict = field(default_factory=dict)  # ids and figures, JSON-safe
    tournament_id: int | None = None  # its tournament's own webhooks get it too
    # A match the event reports: webhooks (which may post to a public channel) get the
    # event only once the match's whole record is everyone's.
    match_id: int | None = None


_event_listeners: list[Callable[[Event], None]] = []


def on_event(callback: Callable[[Event], None]) -> Callable[[Event], None]:
    """Call ``callback(event)`` for every event, after the transaction that made it commits."""
    if callback not in _event_listeners:
        _event_listeners.append(callback)
    return callback


def emit(event: Event) -> None:
    """Announce ``event`` once the current transaction commits (at once outside one); a
    rolled-back change tells nobody. A listener that fails is logged, never the caller's
    error: what happened has happened."""
    if event.user_ids or event.tournament_id is not None:
        transaction.on_commit(lambda: _tell(event))


def _tell(event: Event) -> None:
    for callback in list(_event_listeners):
        try:
            callback(event)
        except Exception:
            log.exception("a listener for the %s event failed", event.kind)
