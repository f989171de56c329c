"""Scoped API tokens, inbox notifications, per-event channel choices, webhooks and their
deliveries."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A named key for scripts, limited to some scopes and (optionally) an expiry. Only a
    hash of the key is kept: it is shown once, when made."""

    class Scope(models.TextChoices):
        READ = "read"  # GET everything the account may read; inbox and webhooks
        UPLOAD = "upload"  # bots and versions: create, upload, change, delete
        CHALLENGE = "challenge"  # make, answer, cancel and replay challenges
        ORGANISE = "organise"  # tournaments and ladders: create, cancel, pause

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60)
    # The first characters of the key, to tell tokens apart in lists; not secret alone.
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="unique_token_name_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def throttle_ident(self) -> str:
        """Whom the throttles count a request made with this token as (arena.throttling)."""
        return f"token{self.pk}"


class Notification(models.Model):
    """One line of a user's inbox."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=40)
    text = models.CharField(max_length=500)
    link = models.CharField(max_length=300, blank=True)  # a path on this site
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_unread")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}"


class ChannelPreference(models.Model):
    """Where one kind of event goes for one user; no row means the defaults
    (``arena.integrations.events.DEFAULT_CHANNELS``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="channel_preferences"
    )
    kind = models.CharField(max_length=40)
    inbox = models.BooleanField(default=True)
    email = models.BooleanField(default=False)
    webhooks = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="unique_channel_preference")
        ]


class Webhook(models.Model):
    """A URL that receives signed JSON deliveries: a user's events, or (for its organiser)
    every event of one tournament."""

    class Format(models.TextChoices):
        JSON = "json"  # the signed event document
        DISCORD = "discord"  # Discord's incoming webhook body ({"content": ...})
        SLACK = "slack"  # Slack's incoming webhook body ({"text": ...})

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    tournament = models.ForeignKey(
        "tournaments.Tournament",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="webhooks",
    )
    url = models.URLField(max_length=500)
    format = models.CharField(max_length=8, choices=Format.choices, default=Format.JSON)
    # Kinds of event sent; empty: every kind.
    events = models.JSONField(default=list, blank=True)
    secret = models.CharField(max_length=64)
    active = models.BooleanField(default=True)
    # Failed attempts in a row; at ARENA_WEBHOOK_DISABLE_AFTER the hook is turned off.
    failures = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.url

    def wants(self, kind: str) -> bool:
        return not self.events or kind in self.events


class WebhookDelivery(models.Model):
    """One event sent (or being sent) to one webhook, with its attempts."""

    class Status(models.TextChoices):
        PENDING = "pending"  # waiting for its next attempt
        DELIVERED = "delivered"  # a 2xx answer
        FAILED = "failed"  # out of attempts, or its hook was turned off

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    kind = models.CharField(max_length=40)
    body = models.TextField()  # the exact bytes signed and sent, as text
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    attempted_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.kind} to webhook {self.webhook_id}"
