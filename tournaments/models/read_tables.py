"""Tables that pages read instead of recomputing: standings totals and snapshots, ladder
counters, the marks of lists that have no row of their own, and stored replays.

Each is kept in the writer's transaction (``tournaments.read_models``) or by a database
trigger (the migrations named in each docstring), so a read never sees it apart from the
tables it summarises."""

from __future__ import annotations

from django.db import models

from tournaments.models.ladders import Ladder
from tournaments.models.matches import Match
from tournaments.models.tournaments import Tournament


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
    of ``version``, a results mark; current while it equals the tournament's
    ``results_version``."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="snapshot"
    )
    version = models.PositiveBigIntegerField()
    # JSON text, not a JSONField: jsonb would reorder the keys the API shows in order.
    data = models.TextField()
    built_at = models.DateTimeField(auto_now=True)


class ReadVersion(models.Model):
    """The mark of a list that has no row of its own to carry one (``tournaments``: the
    tournament list), moved by database triggers in the writer's transaction with every
    write of what the list shows (migration 0011_read_versions); only ever grows. Also
    ``bot:<id>``, a bot's page (0013_bot_page_version). The model keeps its name: cached
    reads' marks were called versions when its table was made."""

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
    # The mark of the ladder's matches as its reads show them: moved by a trigger with
    # every write of a shown column (migration 0010_ladder_changes); only ever grows.
    changes = models.BigIntegerField(default=0, db_default=0)


class MatchReplay(models.Model):
    """A finished match's replay answers, every viewer's (the spectator and each seat),
    built once from its record and kept: a cache miss reads this row instead of playing
    every move again (tournaments.read_models.replays). Current while ``finished_at``
    equals the match's (a match played again finishes at another time) and ``version``
    names the same storage format, engine version and parts; any other is rebuilt on the
    next read."""

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
