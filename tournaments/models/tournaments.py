"""Tournaments and their entries (who plays, with which version, seeded how)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import Bot, BotVersion


class Tournament(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"
        SWISS = "swiss"
        SINGLE_ELIMINATION = "single_elimination"
        DOUBLE_ELIMINATION = "double_elimination"
        GAUNTLET = "gauntlet"

    class Seeding(models.TextChoices):
        RATING = "rating"  # by the entrants' current ratings, best first
        ENTRY = "entry"  # in the order the organiser listed the bots

    class RecordVisibility(models.TextChoices):
        """Who sees a finished match's whole record (every seat's hidden cards and
        actions, the seed) beyond what the rules make public (tournaments.visibility)."""

        FINISHED = "finished"  # everyone, once the match and its deal's other games end
        TOURNAMENT_END = "tournament_end"  # everyone, once the tournament ends
        OWNERS = "owners"  # the owners of the match's bots and staff, once it ends

    name = models.CharField(max_length=100)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournaments"
    )
    game = models.CharField(max_length=40, db_index=True)
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.ROUND_ROBIN)
    players_per_match = models.PositiveSmallIntegerField()
    games_per_pairing = models.PositiveSmallIntegerField(default=1)
    rotate_seats = models.BooleanField(default=True)
    move_ms = models.PositiveIntegerField(default=1000)
    bank_ms = models.PositiveIntegerField(default=10000)
    rated = models.BooleanField(default=True)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # swiss; None = default
    advance = models.PositiveSmallIntegerField(default=1)  # elimination tables of 3+ seats
    third_place = models.BooleanField(default=False)  # single elimination
    grand_final_reset = models.BooleanField(default=True)  # double elimination
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    record_visibility = models.CharField(
        max_length=16,
        choices=RecordVisibility.choices,
        default=RecordVisibility.FINISHED,
        db_default=RecordVisibility.FINISHED,
    )
    seed = models.BigIntegerField()
    # SHA-256 of the salt and the seed, published at creation; both revealed at the start.
    seed_salt = models.CharField(max_length=64, blank=True)
    seed_commitment = models.CharField(max_length=64, blank=True)
    start_at = models.DateTimeField()
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.SCHEDULED, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Bumped in the transaction of every change to what the standings are drawn from (the
    # seeding at the start, each result recorded, failed or taken back): the standings
    # snapshot of another version is stale.
    results_version = models.PositiveBigIntegerField(default=0, db_default=0)
    # Why a tournament cancelled itself (too few entrants left at the start); public.
    cancel_reason = models.CharField(max_length=500, blank=True, default="", db_default="")

    class Meta:
        ordering = ["-start_at", "-id"]
        indexes = [models.Index(fields=["-start_at", "-id"], name="tournament_list_order")]

    def __str__(self) -> str:
        return self.name

    def refresh_from_db(self, *args, **kwargs) -> None:
        # Reads kept on the instance for one request (selectors, read models) go too.
        for name in ("_entrants", "_standings_snapshot", "_overview"):
            self.__dict__.pop(name, None)
        super().refresh_from_db(*args, **kwargs)

    @property
    def challenger_ids(self) -> list[int]:
        """Gauntlet: the bots who play every other entrant."""
        rows = getattr(self, "_entrants", None)  # selectors.entrants, read in this request
        if rows is not None:
            return [row["bot_id"] for row in rows if row["challenger"]]
        return list(self.entries.filter(challenger=True).values_list("bot_id", flat=True))


class Entry(models.Model):
    """A bot entered in a tournament; its version is pinned when the tournament starts."""

    # What everyone is told of a withdrawn entry.
    WITHDRAWN_TEXT = "withdrawn: failed validation under this event's options"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="entries")
    version = models.ForeignKey(
        BotVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="entries"
    )
    challenger = models.BooleanField(default=False)  # gauntlet
    # The entrant's index for the format (0 = top seed), fixed at the start.
    seed_number = models.PositiveSmallIntegerField(null=True, blank=True)
    # The final standing, stored when the tournament finishes.
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.FloatField(null=True, blank=True)
    tiebreaks = models.JSONField(null=True, blank=True)
    # Taken out before round 1: its version failed a validation match under the event's
    # options (tournaments/services/admission.py). Everyone may know that much; the fault
    # itself (``withdrawal_reason``, which may quote the bot's stderr) is its owner's.
    withdrawn = models.BooleanField(default=False, db_default=False)
    withdrawal_reason = models.TextField(blank=True, default="", db_default="")

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="unique_entry_per_bot")
        ]
