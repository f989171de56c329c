"""Competitions: a season around one pool, with a deadline, a final and released results.

A competition runs its own ladder (``Match.competition``, unrated in the public pools so
nothing of it shows through the leaderboards), freezes each entry's version at the
deadline, plays a final tournament among the eligible entrants and shows results as the
organiser releases them (docs/competitions.md).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import Bot, BotVersion
from tournaments.models.tournaments import Tournament


class Competition(models.Model):
    class Phase(models.TextChoices):
        OPEN = "open"  # entries taken; the competition's ladder plays current versions
        FROZEN = "frozen"  # past the deadline: versions fixed, the final scheduled
        FINAL = "final"  # the final tournament is being played
        CLOSED = "closed"  # the final is over (or the organiser closed it)

    class Release(models.TextChoices):
        """Who sees results that are held back (the final's, and the ladder's from
        ``ladder_hidden_from``): nobody but the organiser and staff, the entrants' owners
        and team members too, or everyone."""

        HIDDEN = "hidden"
        PARTICIPANTS = "participants"
        PUBLIC = "public"

    class Eligibility(models.TextChoices):
        OPEN = "open"  # any bot of the game may enter
        INVITE = "invite"  # with the competition's invite code
        APPROVAL = "approval"  # the organiser accepts each entry

    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="")
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="competitions"
    )
    # The pool every match of the competition plays.
    game = models.CharField(max_length=40, db_index=True)
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    move_ms = models.PositiveIntegerField(default=1000)
    bank_ms = models.PositiveIntegerField(default=10000)
    # The dates of the phases: entries close and versions freeze at ``deadline``; the
    # final tournament starts at ``final_at``; the competition closes when it ends.
    opens_at = models.DateTimeField()
    deadline = models.DateTimeField()
    final_at = models.DateTimeField()
    phase = models.CharField(max_length=8, choices=Phase.choices, default=Phase.OPEN, db_index=True)
    # Paused: no phase changes at their dates and no ladder matches queued; what is queued
    # still plays. A phase whose date passed while paused begins at the resume.
    paused = models.BooleanField(default=False)
    # The final tournament's parameters (tournaments.services.scheduling.create_tournament's
    # keywords: format, games_per_pairing, rounds, advance, third_place, ...).
    final_settings = models.JSONField(default=dict, blank=True)
    final = models.OneToOneField(
        Tournament,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="competition",
    )
    release = models.CharField(max_length=12, choices=Release.choices, default=Release.PUBLIC)
    # From this time the ladder's results are held back like the final's (None: never).
    ladder_hidden_from = models.DateTimeField(null=True, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    eligibility = models.CharField(
        max_length=8, choices=Eligibility.choices, default=Eligibility.OPEN
    )
    invite_code = models.CharField(max_length=64, blank=True, default="")
    # Divisions of the ladder: None plays everyone in one table. Each cycle the top
    # ``promote`` of a division move up and the bottom ``promote`` move down.
    division_size = models.PositiveSmallIntegerField(null=True, blank=True)
    promote = models.PositiveSmallIntegerField(default=1)
    cycle_minutes = models.PositiveIntegerField(default=60)
    cycle = models.PositiveIntegerField(default=0)
    cycle_started_at = models.DateTimeField(null=True, blank=True)
    # The ladder's deals come from this seed, committed at creation (SHA-256 of
    # "salt:seed", tournaments.services.scheduling.seed_commitment) and revealed at close.
    seed = models.BigIntegerField()
    seed_salt = models.CharField(max_length=64)
    seed_commitment = models.CharField(max_length=64)
    tables = models.PositiveIntegerField(default=0)  # ladder tables scheduled so far
    last_scheduled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    frozen_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-opens_at", "-id"]

    def __str__(self) -> str:
        return self.name


class Team(models.Model):
    """People who enter and manage bots together in one competition."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=60)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    # The bots the team owns: every member uploads versions of them and challenges with them.
    bots = models.ManyToManyField(Bot, blank=True, related_name="teams")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="unique_team_name")
        ]

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The team's competition again, so the database keeps a person to one team in it.
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="+")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "user"], name="one_team_per_competition")
        ]


class CompetitionEntry(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"  # waiting for the organiser's approval
        ACCEPTED = "accepted"
        REFUSED = "refused"
        DISQUALIFIED = "disqualified"  # its matches stay, out of the standings

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="competition_entries")
    team = models.ForeignKey(
        Team, on_delete=models.SET_NULL, null=True, blank=True, related_name="entries"
    )
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.ACCEPTED, db_index=True
    )
    reason = models.TextField(blank=True, default="")  # why refused or disqualified; public
    # 1 is the top division; None before the entry is placed.
    division = models.PositiveSmallIntegerField(null=True, blank=True)
    # The version that counts: its last valid version uploaded before the deadline.
    frozen_version = models.ForeignKey(
        BotVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "bot"], name="unique_competition_entry")
        ]


class Announcement(models.Model):
    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="announcements"
    )
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
