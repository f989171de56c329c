"""The always-on ladder: rated games between current versions, fed by the beat.

Each game's standard configuration gets a ladder as soon as two of its bots
have an active version. Every beat, each ladder that is not paused asks the
matchmaking (tournaments.formats.ladder) how many tables to add and whom to
seat, and stores them as matches: one table is a duplicate set of games,
the same deal with the seats rotated, so neither side gains from the cards.
"""

from __future__ import annotations

import random
import secrets
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from bots.models import Bot, BotVersion
from bots.selectors import current_version
from games import registry
from tournaments.formats.common import rotation
from tournaments.formats.ladder import Candidate, Policy, choose_tables, tables_wanted
from tournaments.models import Ladder, LadderCount, Match, MatchSeat, Rating, RatingFit
from tournaments.ratings import pools
from tournaments.ratings.match import Z95
from tournaments.services import admission
from tournaments.services.queueing import queue_match_after_commit

LIVE = (Match.Status.QUEUED, Match.Status.RUNNING)


def policy() -> Policy:
    return Policy(
        slots=settings.ARENA_LADDER_SLOTS,
        placement_games=settings.ARENA_LADDER_PLACEMENT_GAMES,
        trickle_seconds=settings.ARENA_LADDER_TRICKLE_SECONDS,
    )


def ensure_ladders() -> list[Ladder]:
    """A ladder for the standard configuration of every game with two active bots."""
    created = []
    active = (
        Bot.objects.filter(versions__status=BotVersion.Status.ACTIVE)
        .values("game")
        .annotate(bots=Count("pk", distinct=True))
        .order_by()
    )
    for row in active:
        game = row["game"]
        if row["bots"] < 2 or game not in registry.slugs():
            continue
        engine = registry.get(game)
        options = engine.resolve_options({})
        players = pools.standard_players(engine)
        ladder, made = Ladder.objects.get_or_create(
            key=pools.pool_key(game, players, options),
            defaults={"game": game, "players": players, "options": options},
        )
        if made:
            created.append(ladder)
    return created


def schedule_ladders(*, now: datetime | None = None) -> int:
    """Add the tables every ladder wants now; returns how many matches were queued."""
    if not settings.ARENA_LADDER:
        return 0
    ensure_ladders()
    queued = 0
    for ladder_id in Ladder.objects.filter(paused=False).values_list("pk", flat=True):
        queued += schedule_ladder(ladder_id=ladder_id, now=now)
    return queued


@transaction.atomic
def schedule_ladder(*, ladder_id: int, now: datetime | None = None) -> int:
    now = now or timezone.now()
    # The row lock makes two beats (or two schedulers) take turns.
    ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
    if ladder.paused:
        return 0
    candidates = ladder_candidates(ladder=ladder)
    live = Match.objects.filter(ladder=ladder, status__in=LIVE).count()
    since = (now - ladder.last_scheduled_at).total_seconds() if ladder.last_scheduled_at else None
    wanted = tables_wanted(
        list(candidates.values()),
        players=ladder.players,
        policy=policy(),
        ladder_busy=-(-live // ladder.players),
        # Tournaments and version gates were asked for by people: they go first.
        tournament_backlog=Match.objects.filter(
            Q(tournament__isnull=False) | Q(gate__isnull=False), status=Match.Status.QUEUED
        ).count(),
        seconds_since_last=since,
    )
    tables = choose_tables(
        list(candidates.values()),
        players=ladder.players,
        count=wanted,
        policy=policy(),
        rng=random.Random(secrets.randbits(64)),
    )
    queued = 0
    for table in tables:
        ladder.tables += 1
        queued += _store_table(ladder, table, now)
    if tables:
        ladder.last_scheduled_at = now
        ladder.save(update_fields=["tables", "last_scheduled_at"])
    return queued


def ladder_candidates(*, ladder: Ladder) -> dict[int, Candidate]:
    """The current version of every bot of the ladder's game that may play the ladder's
    configuration, with its rating so far."""
    versions = [
        v
        for bot in Bot.objects.filter(game=ladder.game)
        if (v := current_version(bot=bot)) is not None
    ]
    # A ladder of another configuration than the one versions are validated under admits a
    # version once it passed a validation match under it (asked for here).
    validations = admission.validations_for(
        game=ladder.game, players=ladder.players, options=ladder.options, versions=versions
    )
    versions = [v for v in versions if admission.admitted(v.pk, validations)]
    ids = [v.pk for v in versions]
    ratings = {r.version_id: r for r in Rating.objects.filter(pool=ladder.key, version__in=ids)}
    # The fitted interval says when a rating has settled; a version not fitted yet has none.
    stdev = dict(
        RatingFit.objects.filter(pool=ladder.key, version__in=ids).values_list(
            "version_id", "stdev"
        )
    )
    start = float(settings.ARENA_ELO_START)
    return {
        v.pk: Candidate(
            version=v.pk,
            elo=ratings[v.pk].elo if v.pk in ratings else start,
            games=ratings[v.pk].matches if v.pk in ratings else 0,
            interval=2 * Z95 * stdev[v.pk] if v.pk in stdev else None,
        )
        for v in versions
    }


def _store_table(ladder: Ladder, table: tuple[int, ...], now: datetime) -> int:
    return store_duplicate_set(
        table=table,
        seed=secrets.randbits(62),
        now=now,
        ladder=ladder,
        round=ladder.tables,
        game=ladder.game,
        options=ladder.options,
        move_ms=settings.ARENA_LADDER_MOVE_MS,
        bank_ms=settings.ARENA_LADDER_BANK_MS,
    )


def store_duplicate_set(*, table: tuple[int, ...], seed: int, now: datetime, **fields) -> int:
    """One ladder table as a duplicate set, queued: a game per rotation of the seats, every
    game on the same deal (``seed``), so neither side gains from the cards. ``fields``: the
    matches' own (their ladder or competition, round, game, options, clocks). Returns how
    many matches were queued."""
    engine = registry.get(fields["game"])
    for game in range(len(table)):
        seats, _ = rotation(table, game)
        match = Match.objects.create(
            **fields,
            number=game + 1,
            engine_version=engine.version,
            seed=seed,
            status=Match.Status.QUEUED,
            queued_at=now,
        )
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=s, version_id=v) for s, v in enumerate(seats)]
        )
        queue_match_after_commit(match.pk)
    return len(table)


def pull_matches_of_benched_versions(bot_id: int) -> int:
    """Cancel the queued ladder matches (the public ladder's and competitions') in which a
    version of this bot that may no longer play has a seat: taken out of play by a crash
    streak or by staff, it would only fault in them. A match a worker has claimed plays
    on. Tournament matches stay: their format waits for every result. Runs in the
    transaction of the change (``bots.hooks.on_bot_changed``); returns how many."""
    benched = BotVersion.objects.filter(bot_id=bot_id).exclude(status=BotVersion.Status.ACTIVE)
    pulled = Match.objects.filter(
        Q(ladder__isnull=False) | Q(competition__isnull=False),
        status=Match.Status.QUEUED,
        seats__version__in=benched,
    )
    return Match.objects.filter(pk__in=list(pulled.values_list("pk", flat=True))).update(
        status=Match.Status.CANCELLED,
        error="cancelled before it was played: a bot's version was taken out of play",
    )


def set_ladder_paused(*, ladder: Ladder, paused: bool) -> Ladder:
    """Staff pause a ladder (nothing new is queued; what is queued still plays) or resume it."""
    Ladder.objects.filter(pk=ladder.pk).update(paused=paused)
    ladder.refresh_from_db()
    return ladder


# Migration 0007_ladder_counts's initial fill, as an upsert: a recount never takes a
# ladder's ``changes`` back (a stored read keyed by it could answer again), it moves it.
RECOUNT = """
DELETE FROM tournaments_laddercount
WHERE ladder_id NOT IN (SELECT id FROM tournaments_ladder);
INSERT INTO tournaments_laddercount
    (ladder_id, scheduled, queued, running, finished, failed, cancelled, changes)
SELECT l.id,
    count(m.id) FILTER (WHERE m.status = 'scheduled'),
    count(m.id) FILTER (WHERE m.status = 'queued'),
    count(m.id) FILTER (WHERE m.status = 'running'),
    count(m.id) FILTER (WHERE m.status = 'finished'),
    count(m.id) FILTER (WHERE m.status = 'failed'),
    count(m.id) FILTER (WHERE m.status = 'cancelled'),
    1
FROM tournaments_ladder l LEFT JOIN tournaments_match m ON m.ladder_id = l.id
WHERE true  -- SQLite: a SELECT before ON CONFLICT needs a WHERE
GROUP BY l.id
ON CONFLICT (ladder_id) DO UPDATE SET
    scheduled = EXCLUDED.scheduled,
    queued = EXCLUDED.queued,
    running = EXCLUDED.running,
    finished = EXCLUDED.finished,
    failed = EXCLUDED.failed,
    cancelled = EXCLUDED.cancelled,
    changes = tournaments_laddercount.changes + 1;
"""


@transaction.atomic
def recount_ladders() -> int:
    """Rebuild every ladder's match counters (``LadderCount``) from the matches: for rows
    loaded with triggers off (bulk loads, restores). The match table is locked against
    writes meanwhile, so no change slips between the count and the store."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # SQLite's write lock already covers this
            cursor.execute("LOCK TABLE tournaments_match IN SHARE MODE")
        for statement in RECOUNT.strip().split(";"):
            if statement.strip():
                cursor.execute(statement)
    return LadderCount.objects.count()
