"""Reads of the integrations."""

from __future__ import annotations

from arena.integrations.events import KINDS
from arena.integrations.models import (
    ApiToken,
    ChannelPreference,
    Notification,
    Webhook,
    WebhookDelivery,
)
from arena.integrations.services import channels_of


def unread_count(*, user) -> int:
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def notifications(*, user, limit: int = 50) -> list[Notification]:
    return list(Notification.objects.filter(user=user)[:limit])


def tokens(*, user) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user=user))


def webhooks(*, user) -> list[Webhook]:
    return list(Webhook.objects.filter(user=user).select_related("tournament"))


def deliveries(*, webhook: Webhook, limit: int = 20) -> list[WebhookDelivery]:
    return list(webhook.deliveries.defer("body")[:limit])


def channel_rows(*, user) -> list[dict]:
    """Every kind of event, with where it goes for ``user``."""
    chosen = {p.kind: p for p in ChannelPreference.objects.filter(user=user)}
    rows = []
    for kind, label in KINDS.items():
        inbox, email, webhooks = channels_of(chosen.get(kind))
        rows.append(
            {"kind": kind, "label": label, "inbox": inbox, "email": email, "webhooks": webhooks}
        )
    return rows
