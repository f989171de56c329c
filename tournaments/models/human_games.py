"""Games a person plays in the browser against bots (``Match.human_game``).

A human game is one match, unrated and outside every event, played by the ordinary
lifecycle (claimed, played, recorded, retried) on its own queue. One of its seats is the
person (``MatchSeat.user``); the others are bot versions or built-in policies. While it
is the person's turn the worker waits for ``action`` (written by the web request, checked
against ``legal``) until ``turn_deadline``; see tournaments/services/human_games.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class HumanGame(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="human_games"
    )
    seat = models.PositiveSmallIntegerField()
    # Seconds the person has for each of their moves (ARENA_HUMAN_MOVE_SECONDS when made).
    move_seconds = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    # The person's turn, while it is theirs: the match's move number (as the replay viewer
    # numbers moves), the legal actions as the engine listed them, and when it times out.
    turn = models.PositiveIntegerField(null=True, blank=True)
    legal = models.JSONField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    # The person's answer to ``turn``, waiting for the worker to take it.
    action = models.JSONField(null=True, blank=True)
    answered = models.BooleanField(default=False)
    resigned = models.BooleanField(default=False)
    # The seats that faulted so far ({seat: fault as in the result}) and each one's detail,
    # so a game taken over by another worker keeps them.
    faults = models.JSONField(default=dict, blank=True)
    fault_details = models.JSONField(default=dict, blank=True)
    # The game this one is a rematch of (same seats, a new deal).
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches"
    )

    class Meta:
        indexes = [models.Index(fields=["user", "-id"], name="human_game_user_newest")]

    def __str__(self) -> str:
        return f"human game {self.pk}"
