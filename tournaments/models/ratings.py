"""Ratings per pool (live Elo, the ledger, fits), version gates and leaderboard rows."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Upper

from bots.models import Bot, BotVersion
from tournaments.models.matches import Match


class RatingLedger(models.Model):
    """One row per pool; locked while a result is rated so updates apply in order."""

    pool = models.CharField(max_length=200, unique=True)
    last_seq = models.PositiveBigIntegerField(default=0)
    # Set when a refit is asked for and cleared when it starts: results arriving in
    # between ride on the refit already asked for (one per pool at a time).
    fit_requested_at = models.DateTimeField(null=True, blank=True)


class Rating(models.Model):
    """A version's live Elo in a pool, with its record there (sides, not seats)."""

    pool = models.CharField(max_length=200)
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="ratings")
    elo = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    # Two-sided matches: wins, draws, losses. Every match: the sum of its side's rank
    # and of the number of sides, for the average rank and its best possible value.
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    rank_total = models.PositiveIntegerField(default=0)
    sides_total = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-elo"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "version"], name="unique_rating_per_version")
        ]


class RatingChange(models.Model):
    """History for charts; unique per (match, version) so a result is rated once."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="rating_changes")
    pool = models.CharField(max_length=200)
    seq = models.PositiveBigIntegerField()
    before = models.FloatField()
    after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq", "id"]
        # A bot's history in a pool, newest first (bounded: tournaments.selectors.ratings).
        indexes = [models.Index(fields=["version", "pool", "-seq"], name="rating_change_history")]
        constraints = [
            models.UniqueConstraint(fields=["match", "version"], name="unique_change_per_match")
        ]


class RatingPair(models.Model):
    """Pairwise results summed per pool and pair of versions (first has the lower id).

    Kept up to date under the ledger lock as results are rated, so a refit reads one
    row per pair that met instead of every match. Multi-seat comparisons weigh
    1 / (sides - 1), hence floats.
    """

    pool = models.CharField(max_length=200)
    first = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    wins = models.FloatField(default=0.0)
    draws = models.FloatField(default=0.0)
    losses = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "first", "second"], name="unique_rating_pair")
        ]


class BotOpponent(models.Model):
    """A bot's pairwise results against another bot in a pool: the pool's ``RatingPair``
    sums over every version of each, seen from ``bot`` (a meeting is in two rows, one per
    side; two versions of one bot meeting are in none). Kept with the pairs, in the same
    transaction (``tournaments.read_models.opponents``), so a bot's most met opponents
    are a range of one index instead of a sum over its versions' pairs per read."""

    pool = models.CharField(max_length=200)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    wins = models.FloatField(default=0.0)
    draws = models.FloatField(default=0.0)
    losses = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "bot", "opponent"], name="unique_bot_opponent")
        ]


class PoolFit(models.Model):
    """The latest Bradley-Terry fit of a pool: which ledger position it covers, and how."""

    pool = models.CharField(max_length=200, unique=True)
    seq = models.PositiveBigIntegerField(default=0)
    anchor = models.FloatField(default=0.0)
    players = models.PositiveIntegerField(default=0)
    pairs = models.PositiveIntegerField(default=0)
    converged = models.BooleanField(default=False)
    seconds = models.FloatField(default=0.0)
    fitted_at = models.DateTimeField(null=True, blank=True)


class RatingFit(models.Model):
    """A version's fitted Elo in a pool with the standard deviation of its estimate."""

    pool = models.CharField(max_length=200)
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="rating_fits")
    elo = models.FloatField()
    stdev = models.FloatField()
    games = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "version"], name="unique_fit_per_version")
        ]


class Gate(models.Model):
    """An SPRT between a new version and its parent on paired duplicate deals.

    The new version becomes its bot's current one only if H1 (stronger by ``elo1``)
    is accepted. ``counts`` are pentanomial: pairs in which the candidate scored
    0, 1/2, 1, 3/2 or 2 points over the two games of the pair.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        PASSED = "passed"  # H1 accepted
        FAILED = "failed"  # H0 accepted
        CAPPED = "capped"  # the game cap came first: no verdict, not promoted
        CANCELLED = "cancelled"

    candidate = models.OneToOneField(BotVersion, on_delete=models.CASCADE, related_name="gate")
    parent = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    pool = models.CharField(max_length=200)
    elo0 = models.FloatField()
    elo1 = models.FloatField()
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    pairs_scheduled = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=list)
    llr = models.FloatField(default=0.0)
    lower = models.FloatField()
    upper = models.FloatField()
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]


class LeaderboardRow(models.Model):
    """A bot's leaderboard row in a pool, as shown: the read model of ``selectors.leaderboard``.

    Written only by ``tournaments.read_models.leaderboard_rows`` in the transaction that changes what it
    shows (a rated result, a refit, a change of the bot's current version), under the
    game's leaderboard lock; ``rebuild_read_models`` writes every row again from the
    ratings. Positions and the likelihood of superiority over the next row depend on the
    neighbours, so reads derive them from the order (unrated last, best figure first).
    """

    pool = models.CharField(max_length=200)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="leaderboard_rows")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    bot_name = models.CharField(max_length=40)
    version_number = models.PositiveIntegerField()
    # The board's order, ascending with the bot's name after it: minus the shown Elo, or
    # UNRATED_KEY when nothing in the bot's line has played in the pool (those go last).
    sort_key = models.FloatField()
    elo = models.FloatField()
    stdev = models.FloatField()
    estimate = models.CharField(max_length=6)
    live_elo = models.FloatField(null=True)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(null=True)
    draws = models.PositiveIntegerField(null=True)
    losses = models.PositiveIntegerField(null=True)
    average_rank = models.FloatField(null=True)
    # The name as a search's ``icontains`` compares it (upper case), kept by the database:
    # a search reads it from the board's index instead of upper-casing every row's name.
    search_name = models.GeneratedField(
        expression=Upper("bot_name"), output_field=models.TextField(), db_persist=True
    )

    UNRATED_KEY = 1e12

    class Meta:
        ordering = ["pool", "sort_key", "bot_name"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "bot"], name="unique_leaderboard_row")
        ]
        indexes = [
            # What a search's numbering of the whole board reads (position and the next
            # row's figure) rides along, so that walk reads the index alone, in order.
            models.Index(
                fields=["pool", "sort_key", "bot_name"],
                include=["id", "bot", "elo", "stdev", "estimate", "search_name"],
                name="leaderboard_order",
            )
        ]
