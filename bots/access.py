"""Who may manage a bot (upload its versions, enter it, challenge with it): its owner, and
whoever a grant registered by a later layer names (a competition's team members).

bots cannot import the layers above it, so they register their grants here from their
AppConfig.ready; every owner check for uploading and challenging asks ``may_manage``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db.models import Q

from bots.models import Bot

# (user id, bot) -> whether the grant lets that user manage the bot.
Grant = Callable[[int, Bot], bool]
# user id -> the ids of the bots the grant lets that user manage (for querysets).
GrantedIds = Callable[[int], Iterable[int]]

_grants: list[tuple[Grant, GrantedIds]] = []


def register_grant(*, grant: Grant, granted_ids: GrantedIds) -> None:
    """Let ``grant`` open bots to users besides their owners (once per grant)."""
    if all(existing is not grant for existing, _ in _grants):
        _grants.append((grant, granted_ids))


def may_manage(user, bot: Bot) -> bool:
    """Whether ``user`` may upload versions of ``bot`` and enter and challenge with it."""
    if user is None or not user.is_authenticated:
        return False
    if bot.owner_id == user.pk:
        return True
    return any(grant(user.pk, bot) for grant, _ in _grants)


def managed_bots_q(user) -> Q:
    """A filter over Bot for the bots ``user`` may manage (nothing for an anonymous user)."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    granted: set[int] = set()
    for _, granted_ids in _grants:
        granted.update(granted_ids(user.pk))
    return Q(owner_id=user.pk) | Q(pk__in=sorted(granted))
