"""Matches of a tournament or a ladder, and their seats (which version sat where)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import BotVersion
from tournaments.models.ladders import Ladder
from tournaments.models.tournaments import Tournament


class Match(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"
        CANCELLED = "cancelled"

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="matches", null=True, blank=True
    )
    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="matches", null=True, blank=True
    )
    round = models.PositiveIntegerField(default=1)
    number = models.PositiveIntegerField(default=1)
    # The format's name for this game (unique in its tournament) and its series, if any.
    pairing_key = models.CharField(max_length=40, blank=True)
    series = models.CharField(max_length=20, blank=True)
    game = models.CharField(max_length=40)
    engine_version = models.PositiveIntegerField()
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    move_ms = models.PositiveIntegerField(default=1000)
    bank_ms = models.PositiveIntegerField(default=10000)
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.SCHEDULED, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    moves = models.JSONField(null=True, blank=True)
    record = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Position in the pool's rating ledger: ratings take matches in this order.
    rated_seq = models.PositiveBigIntegerField(null=True, blank=True)
    # The rating pool (tournaments.ratings.pools.pool_key of game, seats and options), set when rated.
    pool = models.CharField(max_length=200, blank=True, default="")
    # What the tournament's standings totals count this match as: "finished", "failed" or
    # "" (not counted); follows ``status`` in the same transaction (tournaments.read_models).
    # (A database default too, so rows bulk-loaded without it read as not counted.)
    standings_counted = models.CharField(max_length=12, blank=True, default="", db_default="")
    # A version gate's match (tournament None): new version against its parent.
    gate = models.ForeignKey(
        "Gate", on_delete=models.CASCADE, null=True, blank=True, related_name="matches"
    )
    # A challenge's match (tournament None): unrated, played on the challenge's deals.
    challenge = models.ForeignKey(
        "Challenge", on_delete=models.CASCADE, null=True, blank=True, related_name="matches"
    )
    # A competition's ladder match (tournament None), in its division (1 the top; None
    # without divisions). Unrated in the public pools: the competition keeps its own table.
    competition = models.ForeignKey(
        "Competition", on_delete=models.CASCADE, null=True, blank=True, related_name="matches"
    )
    division = models.PositiveSmallIntegerField(null=True, blank=True)
    # A competition's ladder match: the cycle its table was scheduled in (its division's
    # table for that cycle counts it). ``round`` is then the competition's table number,
    # whose deal the competition's seed gives (tournaments.formats.divisions).
    cycle = models.PositiveIntegerField(null=True, blank=True)
    # A game a person plays against bots (tournament None): unrated, on its own queue.
    human_game = models.OneToOneField(
        "HumanGame", on_delete=models.CASCADE, null=True, blank=True, related_name="match"
    )

    class Meta:
        ordering = ["round", "number", "id"]
        indexes = [
            models.Index(fields=["status", "heartbeat_at"]),
            # A tournament's progress counts its matches by status from this index alone.
            models.Index(fields=["tournament", "status"], name="match_tournament_status"),
            # The lists' keyset order of a tournament's matches.
            models.Index(
                fields=["tournament", "round", "number", "id"], name="match_tournament_order"
            ),
            # A ladder's newest matches (its pages and API) without walking past the
            # tournament matches played since: keyed by ladder first, since on (-id) alone
            # the planner preferred the primary key and filtered every newer match.
            models.Index(
                fields=["ladder", "-id"],
                condition=models.Q(ladder__isnull=False),
                name="match_ladder_newest",
            ),
            # The unfinished games dealt a seed (tournaments.visibility: a finished game's
            # record stays hidden while another game of its deal is still to be played).
            models.Index(
                fields=["seed"],
                condition=models.Q(status__in=["scheduled", "queued", "running"]),
                name="match_live_seed",
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["pool", "rated_seq"], name="unique_rated_seq_per_pool"),
            models.UniqueConstraint(
                fields=["tournament", "pairing_key"],
                condition=~models.Q(pairing_key=""),
                name="unique_pairing_per_tournament",
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    # Who plays the seat: a bot version; or, in a game a person plays (Match.human_game),
    # that person (``user``) or a game's built-in policy (``policy``, its name).
    version = models.ForeignKey(
        BotVersion, on_delete=models.PROTECT, related_name="seats", null=True, blank=True
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    policy = models.CharField(max_length=40, blank=True, default="", db_default="")
    score = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    # {"kind", "reason", "move"}, as in the match's result: public, so never what the bot wrote.
    fault = models.JSONField(null=True, blank=True)
    # What the bot wrote on stderr in this match (bounded: bots.wire.LOG_BYTES). Its owner's
    # alone: serializers, pages and selectors leave it out unless the reader owns the bot.
    log = models.TextField(blank=True, default="")
    # What the bot wrote that shows why it faulted (bots.players.Fault.detail: its stderr's
    # end, the line or action it answered); "" for none. Its owner's alone, like ``log``.
    fault_detail = models.TextField(blank=True, default="", db_default="")

    class Meta:
        ordering = ["match", "seat"]
        indexes = [
            # A version's matches read from the index alone: the matches two bots both
            # played (head to head) join two short runs of it without visiting a seat row.
            models.Index(fields=["version", "match"], name="seat_version_match"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="unique_match_seat"),
            models.CheckConstraint(
                condition=(
                    models.Q(version__isnull=False, user__isnull=True, policy="")
                    | models.Q(version__isnull=True, user__isnull=False, policy="")
                    | (models.Q(version__isnull=True, user__isnull=True) & ~models.Q(policy=""))
                ),
                name="match_seat_one_player",
            ),
        ]

    @property
    def player_name(self) -> str:
        """The seat's player as pages and lists name it."""
        if self.version_id is not None:
            return self.version.bot.name
        if self.user_id is not None:
            return f"{self.user.username} (person)"
        return f"{self.policy} (built-in)"

    def owned_by(self, user_id: int) -> bool:
        """Whether ``user_id`` may take this seat's own view: its bot's owner, or the
        person who played it."""
        if self.version_id is not None:
            return self.version.bot.owner_id == user_id
        return self.user_id == user_id

    @property
    def player_kind(self) -> str:
        """``bot``, ``human`` or ``builtin``."""
        return player_kind(version_id=self.version_id, user_id=self.user_id)


def player_kind(*, version_id: int | None, user_id: int | None) -> str:
    """Who plays a seat, from its columns: ``bot`` (a version), ``human`` (a user) or
    ``builtin`` (a policy); for reads of plain columns and the model alike."""
    if version_id is not None:
        return "bot"
    return "human" if user_id is not None else "builtin"


class HostFailure(models.Model):
    """An attempt at a match that the host could not play (the worker or the sandbox
    failed, not a bot): what the operations page lists and ``arena_host_failures_total``
    counts. The match's own ``error`` keeps only the last one."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="host_failures")
    attempt = models.PositiveSmallIntegerField()
    worker = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    failed_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-failed_at", "-pk"]

    def __str__(self) -> str:
        return f"match {self.match_id} attempt {self.attempt}: {self.error[:60]}"
