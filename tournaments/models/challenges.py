"""Challenges: an author's bot against chosen bots on duplicate deals, on demand, unrated.

A challenge holds its matches (``Match.challenge``), played by the ordinary lifecycle
(claimed, played, recorded, retried); ``tournaments.services.challenges`` schedules them
and keeps the figures below, the same as ``manage.py play --games`` prints for the same
games (``tournaments.bulk.report``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import Bot, BotVersion


class Challenge(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"  # waiting for an opponent's owner to accept
        RUNNING = "running"
        FINISHED = "finished"
        DECLINED = "declined"
        EXPIRED = "expired"
        CANCELLED = "cancelled"

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges"
    )
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="challenges")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=40)
    players = models.PositiveSmallIntegerField()
    # Every option of the game, defaults included (the engine's resolve_options).
    options = models.JSONField(default=dict, blank=True)
    games = models.PositiveIntegerField()  # as asked; played rounded up to whole deals
    seed = models.BigIntegerField()
    move_ms = models.PositiveIntegerField(default=1000)
    bank_ms = models.PositiveIntegerField(default=10000)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    # The challenge this one plays again (same opponents, options and deals).
    again_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="again"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    expires_at = models.DateTimeField(null=True, blank=True)  # while pending
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The challenger's version against the opponents', by rank (summed over opponents).
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    elo_diff = models.FloatField(null=True, blank=True)
    elo_margin = models.FloatField(null=True, blank=True)
    los = models.FloatField(null=True, blank=True)
    pentanomial = models.JSONField(default=list, blank=True)  # two seats only
    # play --games' figures of each head-to-head and its printed lines.
    figures = models.JSONField(default=list, blank=True)
    lines = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["challenger", "created_at"], name="challenge_quota")]

    def __str__(self) -> str:
        return f"challenge {self.pk}"


class ChallengeOpponent(models.Model):
    """One opponent of a challenge: its bot, the version that plays, its owner's answer."""

    class Answer(models.TextChoices):
        ACCEPTED = "accepted"
        WAITING = "waiting"
        DECLINED = "declined"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="opponents")
    position = models.PositiveSmallIntegerField()  # the entrant number (the challenger is 0)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="challenged")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    answer = models.CharField(max_length=8, choices=Answer.choices, default=Answer.ACCEPTED)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["challenge", "position"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "position"], name="unique_opponent_seat")
        ]
