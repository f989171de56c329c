"""Which versions may play an event's configuration: validated under it, or being validated.

A version's own validation plays its game's fewest players under the default options. An
event that seats it at another player count or under other options (a continuous Pairs
tournament, a 3-seat one) first has it play one validation match under those
(``bots.services.request_options_validation``, on the validations queue), once per version
and configuration: a version that faults there is kept out of the event (a tournament
withdraws its entry before round 1, with the fault kept for its owner), not made to forfeit
every game.

A tournament waits for these validations from its start time for at most
ARENA_OPTIONS_VALIDATION_WAIT_SECONDS; then it starts all the same, and an entry whose
validation has not ended plays unvalidated (a slow queue is not the bot's fault), as does
one whose validation could not be run at all (``unrun``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings

from bots import services as bot_services
from bots.models import BotVersion, OptionsValidation
from games import registry

Status = OptionsValidation.Status
# Statuses under which a version may play: its validation passed, or could not be run.
ADMITTED = (Status.PASSED, Status.UNRUN)
UNDECIDED = (Status.PENDING, Status.VALIDATING)


def configuration_key(*, game: str, players: int, options: dict | None) -> str:
    """``pairs:3`` or ``pairs:2:{"continuous":true}``: the game, the player count and every
    option that differs from its default (what the bot is told at its start)."""
    engine = registry.get(game)
    resolved = engine.resolve_options(options)
    changed = {name: v for name, v in resolved.items() if v != engine.options[name].default}
    key = f"{engine.slug}:{players}"
    if changed:
        key += ":" + json.dumps(changed, sort_keys=True, separators=(",", ":"))
    return key


def validated_by_default(*, game: str, key: str) -> bool:
    """Whether a version's own validation played this configuration."""
    engine = registry.get(game)
    return key == configuration_key(game=game, players=engine.min_players, options={})


def validations_for(
    *, game: str, players: int, options: dict | None, versions: Iterable[BotVersion]
) -> dict[int, OptionsValidation]:
    """Each version's validation under this configuration, asked for where there is none
    yet; versions that their own validation covers are left out."""
    key = configuration_key(game=game, players=players, options=options)
    if validated_by_default(game=game, key=key):
        return {}
    versions = list(versions)
    found = {
        row.version_id: row
        for row in OptionsValidation.objects.filter(version__in=[v.pk for v in versions], key=key)
    }
    resolved = registry.get(game).resolve_options(options)
    for version in versions:
        if version.pk not in found:
            found[version.pk] = bot_services.request_options_validation(
                version=version, key=key, players=players, options=resolved
            )
    return found


def still_waiting(
    validations: dict[int, OptionsValidation], *, start_at: datetime, now: datetime
) -> bool:
    """Whether an event starting at ``start_at`` should wait for these validations: one
    has not ended and the wait's bound has not passed."""
    bound = start_at + timedelta(seconds=settings.ARENA_OPTIONS_VALIDATION_WAIT_SECONDS)
    return now < bound and any(row.status in UNDECIDED for row in validations.values())


def admitted(version_id: int, validations: dict[int, OptionsValidation]) -> bool:
    """Whether the version may play (a ladder's rule: undecided is not yet)."""
    row = validations.get(version_id)
    return row is None or row.status in ADMITTED
