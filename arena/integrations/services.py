"""Writes of the integrations: tokens, the inbox, channel choices, webhooks and their
deliveries, and turning an emitted event into all of these."""

from __future__ import annotations

import logging
import secrets
import time
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.integrations import signing, tokens
from arena.integrations.delivery import address_refusal, post
from arena.integrations.events import DEFAULT_CHANNELS, KINDS, TEST_KIND
from arena.integrations.models import (
    ApiToken,
    ChannelPreference,
    Notification,
    Webhook,
    WebhookDelivery,
)
from bots import hooks, queueing
from tournaments import visibility
from tournaments.models import Tournament

log = logging.getLogger(__name__)

DELIVER_WEBHOOK = "arena.integrations.tasks.deliver_webhook"
MAX_TOKENS = 50  # live tokens per account
MAX_WEBHOOKS = 20  # per account
# A message may arrive this much before its delivery's next attempt is due (clocks differ).
EARLY = timedelta(seconds=2)


# Tokens.


def create_token(
    *, user, name: str, scopes: list[str], expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new token and its key (the only time the key is known: only its hash is kept)."""
    name = (name or "").strip()
    errors = {}
    if not 1 <= len(name) <= 60:
        errors["name"] = "a name of 1-60 characters"
    unknown = [s for s in scopes if s not in ApiToken.Scope.values]
    if not scopes or unknown:
        errors["scopes"] = f"one or more of {', '.join(ApiToken.Scope.values)}" + (
            f" (not {', '.join(map(str, unknown))})" if unknown else ""
        )
    if expires_at is not None and expires_at <= timezone.now():
        errors["expires_at"] = "the expiry must be in the future"
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    if live.count() >= MAX_TOKENS:
        errors["name"] = f"at most {MAX_TOKENS} live tokens: revoke one first"
    if errors:
        raise ValidationError(errors)
    key = tokens.new_key()
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user,
                name=name,
                prefix=key[: len(tokens.KEY_START) + 6],
                key_hash=tokens.key_hash(key),
                scopes=sorted(set(scopes), key=ApiToken.Scope.values.index),
                expires_at=expires_at,
            )
    except IntegrityError as exc:
        raise ValidationError({"name": "you already have a token of that name"}) from exc
    return token, key


def revoke_token(*, token: ApiToken) -> ApiToken:
    """A revoked token authenticates nothing from now on; it stays listed. The name
    becomes free for a new token."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.name = f"{token.name[:40]} (revoked {token.pk})"
        token.save(update_fields=["revoked_at", "name"])
    return token


# The inbox and channel choices.


def set_channels(*, user, kind: str, inbox: bool, email: bool, webhooks: bool) -> ChannelPreference:
    if kind not in KINDS:
        raise ValidationError({"kind": f"no event kind {kind!r}"})
    preference, _ = ChannelPreference.objects.update_or_create(
        user=user, kind=kind, defaults={"inbox": inbox, "email": email, "webhooks": webhooks}
    )
    return preference


def mark_read(*, user, ids: list[int] | None = None) -> int:
    """Mark ``ids`` (all when None) of the user's unread notifications read; how many."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    return unread.update(read_at=timezone.now())


def channels_of(preference: ChannelPreference | None) -> tuple[bool, bool, bool]:
    if preference is None:
        return DEFAULT_CHANNELS
    return preference.inbox, preference.email, preference.webhooks


def dispatch_event(event: hooks.Event) -> None:
    """Tell each of the event's users by the channels they chose for its kind, and send it
    to its tournament's webhooks. Webhooks (which may post to a public chat) never get an
    event about a match whose whole record is not everyone's yet."""
    hidden = event.match_id is not None and not record_public(event.match_id)
    document = event_document(event)
    users = list(get_user_model().objects.filter(pk__in=event.user_ids, is_active=True))
    chosen = {
        p.user_id: p for p in ChannelPreference.objects.filter(user__in=users, kind=event.kind)
    }
    to_hooks: dict[int, Webhook] = {}
    for user in users:
        inbox, email, webhooks = channels_of(chosen.get(user.pk))
        if inbox:
            Notification.objects.create(
                user=user, kind=event.kind, text=event.text[:500], link=event.link, data=event.data
            )
        if email and user.email:
            send_email(user=user, document=document)
        if webhooks and not hidden:
            for hook in Webhook.objects.filter(user=user, tournament__isnull=True, active=True):
                if hook.wants(event.kind):
                    to_hooks[hook.pk] = hook
    if event.tournament_id is not None and not hidden:
        for hook in Webhook.objects.filter(tournament_id=event.tournament_id, active=True):
            if hook.wants(event.kind):
                to_hooks[hook.pk] = hook
    for hook in to_hooks.values():
        queue_delivery(webhook=hook, document=document)


def record_public(match_id: int) -> bool:
    found = visibility.read_exposure(pk=match_id)
    return found is not None and found[0].public


def site_url(path: str) -> str:
    return settings.ARENA_SITE_URL.rstrip("/") + path if path else ""


def event_document(event: hooks.Event) -> dict:
    """The JSON document a webhook of the plain format receives."""
    return {
        "event": event.kind,
        "id": secrets.token_hex(8),
        "created_at": timezone.now().isoformat(timespec="seconds"),
        "text": event.text,
        "url": site_url(event.link),
        "data": event.data,
    }


def send_email(*, user, document: dict) -> None:
    body = document["text"] + (f"\n\n{document['url']}" if document["url"] else "")
    body += f"\n\nChoose what Arena emails you: {site_url('/account/notifications/settings/')}"
    try:
        send_mail(f"Arena: {document['text'][:120]}", body, None, [user.email])
    except Exception:  # the mail server's trouble is logged, never the event's
        log.exception("could not email %s about %s", user.pk, document["event"])


def notify(*, user, kind: str, text: str, link: str = "", data: dict | None = None) -> None:
    """An event of this app's own (a hook turned off, a test), told like any other."""
    hooks.emit(hooks.Event(kind=kind, user_ids=(user.pk,), text=text, link=link, data=data or {}))


# Webhooks.


def create_webhook(
    *,
    user,
    url: str,
    events: list[str],
    format: str = "",
    tournament_id: int | None = None,
) -> Webhook:
    """A new hook; its secret is read from the returned row (shown to its owner once)."""
    errors = {}
    if (reason := address_refusal(url, resolve=False)) is not None:
        errors["url"] = reason
    unknown = [e for e in events if e not in KINDS]
    if unknown:
        errors["events"] = f"unknown event kinds: {', '.join(map(str, unknown))}"
    format = format or signing.format_for(url)
    if format not in Webhook.Format.values:
        errors["format"] = f"one of {', '.join(Webhook.Format.values)}"
    if Webhook.objects.filter(user=user).count() >= MAX_WEBHOOKS:
        errors["url"] = f"at most {MAX_WEBHOOKS} webhooks: delete one first"
    tournament = None
    if tournament_id is not None:
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            errors["tournament"] = f"no tournament {tournament_id}"
        elif tournament.organiser_id != user.pk and not user.is_staff:
            raise PermissionDenied("only its organiser may add a tournament's webhooks")
    if errors:
        raise ValidationError(errors)
    return Webhook.objects.create(
        user=user,
        url=url,
        format=format,
        events=sorted(set(events)),
        secret=secrets.token_hex(32),
        tournament=tournament,
    )


def turn_on(*, webhook: Webhook) -> Webhook:
    webhook.active, webhook.failures, webhook.disabled_reason = True, 0, ""
    webhook.save(update_fields=["active", "failures", "disabled_reason"])
    return webhook


def send_test(*, webhook: Webhook) -> WebhookDelivery:
    """A test event to this hook alone, whatever kinds it takes."""
    if not webhook.active:
        raise ValidationError({"webhook": "this webhook is off: turn it on first"})
    event = hooks.Event(
        kind=TEST_KIND,
        user_ids=(webhook.user_id,),
        text=f"A test from Arena for {webhook.user.username}: this webhook works.",
        link="/account/webhooks/",
        data={"webhook_id": webhook.pk},
    )
    return queue_delivery(webhook=webhook, document=event_document(event))


def queue_delivery(*, webhook: Webhook, document: dict) -> WebhookDelivery:
    delivery = WebhookDelivery.objects.create(
        webhook=webhook,
        kind=document["event"],
        body=signing.body(webhook.format, document),
        next_attempt_at=timezone.now(),
    )
    queueing.publish_after_commit(DELIVER_WEBHOOK, args=[delivery.pk])
    return delivery


def resend_lost_deliveries() -> int:
    """The beat's safety net: a pending delivery whose attempt is overdue by more than
    ARENA_LOST_MESSAGE_SECONDS (and a request's timeout) lost its message (the broker was
    down when it was sent, or a worker died holding it): send it again. How many."""
    overdue = timezone.now() - timedelta(
        seconds=settings.ARENA_LOST_MESSAGE_SECONDS + 2 * settings.ARENA_WEBHOOK_TIMEOUT_SECONDS
    )
    lost = WebhookDelivery.objects.filter(
        status=WebhookDelivery.Status.PENDING, next_attempt_at__lt=overdue
    ).order_by("next_attempt_at")
    ids = list(lost.values_list("pk", flat=True)[:500])
    for delivery_id in ids:
        queueing.publish(DELIVER_WEBHOOK, args=[delivery_id])
    return len(ids)


def backoff(attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones: doubling each time."""
    return settings.ARENA_WEBHOOK_BACKOFF_SECONDS * 2 ** (attempts - 1)


def attempt_delivery(*, delivery_id: int) -> float | None:
    """One attempt at a pending delivery. Returns the seconds to wait before the next one,
    or None when there is none (delivered, out of attempts, or the hook was turned off).

    The attempt is counted before the request is made, so a worker lost during it still
    uses one up. Failed attempts in a row, over all of a hook's deliveries, turn the hook
    off at ARENA_WEBHOOK_DISABLE_AFTER, and its owner is told."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .select_related("webhook")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
            return None
        if delivery.next_attempt_at and delivery.next_attempt_at > timezone.now() + EARLY:
            return None  # a copy of a message re-sent while its own waits for its time
        hook = delivery.webhook
        if not hook.active:
            delivery.status, delivery.error = WebhookDelivery.Status.FAILED, "the webhook is off"
            delivery.save(update_fields=["status", "error"])
            return None
        delivery.attempts += 1
        delivery.attempted_at = timezone.now()
        delivery.save(update_fields=["attempts", "attempted_at"])
    body = delivery.body.encode()
    started = time.monotonic()
    code, error = post(hook.url, body, signing.headers(hook.secret, int(time.time()), body))
    delivery.duration_ms = int((time.monotonic() - started) * 1000)
    delivery.status_code, delivery.error = code, error
    ok = code is not None and 200 <= code < 300
    wait = None
    with transaction.atomic():
        hook = Webhook.objects.select_for_update().get(pk=hook.pk)
        if ok:
            delivery.status = WebhookDelivery.Status.DELIVERED
            hook.failures = 0
        else:
            hook.failures += 1
            if hook.failures >= settings.ARENA_WEBHOOK_DISABLE_AFTER and hook.active:
                hook.active = False
                hook.disabled_reason = (
                    f"turned off after {hook.failures} failed attempts in a row"
                    f" (the last: {error or code})"
                )[:300]
                notify(
                    user=hook.user,
                    kind="webhook.disabled",
                    text=f"Your webhook to {urlsplit(hook.url).hostname} was turned off: "
                    f"{hook.disabled_reason}.",
                    link="/account/webhooks/",
                    data={"webhook_id": hook.pk},
                )
            if not hook.active or delivery.attempts >= settings.ARENA_WEBHOOK_ATTEMPTS:
                delivery.status = WebhookDelivery.Status.FAILED
            else:
                wait = backoff(delivery.attempts)
                delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait)
        hook.save(update_fields=["failures", "active", "disabled_reason"])
        delivery.save(
            update_fields=["status", "status_code", "error", "duration_ms", "next_attempt_at"]
        )
    return wait
