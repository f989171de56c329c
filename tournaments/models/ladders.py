"""Ladders: always-on rated arenas, one per pool."""

from __future__ import annotations

from django.db import models


class Ladder(models.Model):
    """An always-on rated arena for one pool: a game, a player count and its options."""

    key = models.CharField(max_length=200, unique=True)
    game = models.CharField(max_length=40, db_index=True)
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    paused = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_scheduled_at = models.DateTimeField(null=True, blank=True)
    tables = models.PositiveIntegerField(default=0)  # tables scheduled so far

    class Meta:
        ordering = ["game", "players", "key"]

    def __str__(self) -> str:
        return f"ladder {self.key}"
