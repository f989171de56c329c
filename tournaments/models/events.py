"""Tournaments and ladders, their entries, matches and seats, and what their pages read."""

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

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="unique_entry_per_bot")
        ]


class EntryTally(models.Model):
    """An entrant's running totals in its tournament, kept in each result's transaction.

    ``points`` counts in units of 1 / ``points_scale`` of a game (game points are
    fractions: 1/2 a draw, 1/(2(n-1)) steps at n seats). Decided games count for the
    format (failed ones as draws, their faults not counted); ``played``, ``wins`` and
    ``score`` count the games played to an end only, as the standings rows show them.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tallies")
    entrant = models.PositiveSmallIntegerField()  # the entry's seed number
    points = models.BigIntegerField(default=0)
    faults = models.PositiveIntegerField(default=0)
    played = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    score = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["tournament", "entrant"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "entrant"], name="unique_tally_entrant")
        ]


class PairTally(models.Model):
    """What two entrants (``first`` the lower seed number) scored against each other in
    their decided games, in the units of :class:`EntryTally`; rows exist while games > 0."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    first = models.PositiveSmallIntegerField()
    second = models.PositiveSmallIntegerField()
    first_points = models.BigIntegerField(default=0)
    second_points = models.BigIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "first", "second"], name="unique_tally_pair"
            )
        ]


class StandingsSnapshot(models.Model):
    """The tournament's overview (standings, rounds, bracket by bot id, names left out) as
    of ``version``; current while it equals the tournament's ``results_version``."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="snapshot"
    )
    version = models.PositiveBigIntegerField()
    # JSON text, not a JSONField: jsonb would reorder the keys the API shows in order.
    data = models.TextField()
    built_at = models.DateTimeField(auto_now=True)


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


class ReadVersion(models.Model):
    """A version of a list that has no row of its own to carry one (``tournaments``: the
    tournament list), moved by database triggers in the writer's transaction with every
    write of what the list shows (migration 0011_read_versions); only ever grows. Also
    ``bot:<id>``, a bot's page (0013_bot_page_version)."""

    name = models.CharField(max_length=40, primary_key=True)
    changes = models.BigIntegerField(default=0)


class LadderCount(models.Model):
    """How many of a ladder's matches are in each status: a read model kept by a database
    trigger on the match table (migration 0007_ladder_counts), so every write path, the ORM's bulk
    updates included, keeps it equal to a recount. One row per ladder, so a transaction
    locks one counter row whatever statuses it moves between (no lock-order deadlocks).
    ``tournaments.services.ladder.recount_ladders`` rebuilds it from the matches."""

    ladder = models.OneToOneField(
        Ladder, on_delete=models.CASCADE, primary_key=True, related_name="count"
    )
    scheduled = models.BigIntegerField(default=0)
    queued = models.BigIntegerField(default=0)
    running = models.BigIntegerField(default=0)
    finished = models.BigIntegerField(default=0)
    failed = models.BigIntegerField(default=0)
    cancelled = models.BigIntegerField(default=0)
    # The version of the ladder's matches as its reads show them: moved by a trigger with
    # every write of a shown column (migration 0010_ladder_changes); only ever grows.
    changes = models.BigIntegerField(default=0, db_default=0)


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
    # Position in the pool's rating ledger: ratings replay matches in this order.
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
            # the planner preferred the primary key and filtered 20,000 rows (375 ms).
            models.Index(
                fields=["ladder", "-id"],
                condition=models.Q(ladder__isnull=False),
                name="match_ladder_newest",
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


class MatchReplay(models.Model):
    """A finished match's replay answers, every viewer's (the spectator and each seat),
    built once from its record and kept: a cache miss reads this row instead of replaying
    every move (tournaments.read_models.replays). Current while ``finished_at`` equals the
    match's (a match played again finishes at another time) and ``version`` names the same
    storage format, engine version and parts; any other is rebuilt on the next read."""

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="stored_replay"
    )
    finished_at = models.DateTimeField(null=True)
    version = models.CharField(max_length=200)
    # Piece name ("moves", "events:all", "frames:0", ...) -> [offset, length] in ``data``.
    index = models.JSONField()
    # The pieces' JSON, compressed (tournaments.read_models.replays.pack).
    data = models.BinaryField()
    built_at = models.DateTimeField(auto_now=True)


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    score = models.IntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    fault = models.JSONField(null=True, blank=True)
    # What the bot wrote on stderr in this match (bounded: bots.wire.LOG_BYTES). Its owner's
    # alone: serializers, pages and selectors leave it out unless the reader owns the bot.
    log = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["match", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="unique_match_seat")]
