"""A competition's own ladder: tables among its accepted entries' current versions within
each division, fed by the beat, and the cycles that move entries between divisions.

From ``opens_at`` until the deadline, while the competition is open and not paused, every
beat fills each division's free slots (ARENA_LADDER_SLOTS tables queued or running per
division) with the public ladder's matchmaking (tournaments.formats.ladder): the entry that
played least this cycle first, its opponents at random among its division. A table is a
duplicate set of games like the public ladder's, the same deal with the seats rotated; its
deal comes from the competition's committed seed and the table's number, so an archive's
reader checks it. The matches belong to the competition alone (no ladder, no tournament)
and are never rated in the public pools.

Cycles: the first starts with the ladder, everyone in one division. Once ``cycle_minutes``
have passed no new table of the cycle is added; when its last game has ended, each
division's table for the cycle promotes and relegates entries and the divisions are cut
again (tournaments.formats.divisions), then the next cycle starts. An entry accepted meanwhile
is placed at once in the bottom division.
"""

from __future__ import annotations

import random
import secrets
import sys
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from bots.selectors import current_versions_of
from games import registry
from tournaments.formats.divisions import competition_table_seed, next_divisions
from tournaments.formats.ladder import Candidate, Policy, choose_tables, tables_wanted
from tournaments.models import Competition, CompetitionEntry, Match, MatchSeat
from tournaments.selectors.competition_standings import division_tables
from tournaments.services import admission
from tournaments.services.ladder import store_duplicate_set

LIVE = (Match.Status.QUEUED, Match.Status.RUNNING)
ACCEPTED = CompetitionEntry.Status.ACCEPTED


def policy() -> Policy:
    # Within a cycle nobody settles: every free slot is filled, the least played first.
    return Policy(slots=settings.ARENA_LADDER_SLOTS, placement_games=0, settled_games=sys.maxsize)


def schedule_competition_ladders(*, now: datetime | None = None) -> int:
    """Add the tables every running competition's ladder wants now (and end the cycles
    that are over); returns how many matches were queued."""
    now = now or timezone.now()
    running = Competition.objects.filter(
        phase=Competition.Phase.OPEN, paused=False, opens_at__lte=now, deadline__gt=now
    ).order_by("pk")
    return sum(
        schedule_competition(competition_id=pk, now=now)
        for pk in running.values_list("pk", flat=True)
    )


def ladder_running(competition: Competition, now: datetime) -> bool:
    """Whether the competition's ladder plays at ``now``: open, not paused, between
    ``opens_at`` and the deadline."""
    return (
        competition.phase == Competition.Phase.OPEN
        and not competition.paused
        and competition.opens_at <= now < competition.deadline
    )


@transaction.atomic
def schedule_competition(*, competition_id: int, now: datetime) -> int:
    # The row lock makes two beats take turns (and holds the cycle still meanwhile).
    competition = Competition.objects.select_for_update().get(pk=competition_id)
    if not ladder_running(competition, now):
        return 0
    _place_unplaced(competition)
    if competition.cycle == 0 or competition.cycle_started_at is None:
        competition.cycle = max(competition.cycle, 1)
        competition.cycle_started_at = now
        competition.save(update_fields=["cycle", "cycle_started_at"])
    elif now >= competition.cycle_started_at + timedelta(minutes=competition.cycle_minutes):
        # The cycle's games still being played count in its tables: wait for them.
        if Match.objects.filter(
            competition=competition, cycle=competition.cycle, status__in=LIVE
        ).exists():
            return 0
        end_cycle(competition=competition, now=now)
    return _schedule_tables(competition, now)


def end_cycle(*, competition: Competition, now: datetime) -> list[list[int]]:
    """Close the cycle in progress: each division's table for it moves its top up and its
    bottom down, the divisions are cut again (new entrants through the bottom), and the
    next cycle starts at ``now``. Returns the new divisions' entry ids, top first. The
    caller holds the competition's row (``schedule_competition``)."""
    tables = division_tables(competition=competition)
    divisions = next_divisions(
        [[row["entry_id"] for row in table["rows"]] for table in tables],
        promote=competition.promote,
        size=competition.division_size,
        minimum=max(2, competition.players),
    )
    was = {row["entry_id"]: table["division"] for table in tables for row in table["rows"]}
    moved = [
        CompetitionEntry(pk=entry, division=d)
        for d, members in enumerate(divisions, start=1)
        for entry in members
        if was.get(entry) != d
    ]
    CompetitionEntry.objects.bulk_update(moved, ["division"])
    competition.cycle += 1
    competition.cycle_started_at = now
    competition.save(update_fields=["cycle", "cycle_started_at"])
    return divisions


def place_entry(*, entry: CompetitionEntry) -> CompetitionEntry:
    """An accepted entry's division: the bottom one (the top until there are divisions);
    an entry placed already, or not accepted, stays as it is."""
    if entry.status != ACCEPTED or entry.division is not None:
        return entry
    placed = CompetitionEntry.objects.filter(
        competition_id=entry.competition_id, status=ACCEPTED, division__isnull=False
    ).exclude(pk=entry.pk)
    bottom = max(placed.values_list("division", flat=True), default=1)
    CompetitionEntry.objects.filter(pk=entry.pk).update(division=bottom)
    entry.division = bottom
    return entry


def _place_unplaced(competition: Competition) -> None:
    """Accepted entries not placed yet (accepted by a path that did not place them) go to
    the bottom division, in entry order."""
    for entry in CompetitionEntry.objects.filter(
        competition=competition, status=ACCEPTED, division__isnull=True
    ).order_by("pk"):
        place_entry(entry=entry)


def _schedule_tables(competition: Competition, now: datetime) -> int:
    entries = list(
        CompetitionEntry.objects.filter(
            competition=competition, status=ACCEPTED, division__isnull=False
        )
        .select_related("bot")
        .order_by("pk")
    )
    current = current_versions_of(bots=[e.bot for e in entries])
    versions = [current[e.bot_id] for e in entries if e.bot_id in current]
    # A configuration other than the one versions are validated under admits a version
    # once it passed a validation match under it (asked for here), as the public ladder.
    validations = admission.validations_for(
        game=competition.game,
        players=competition.players,
        options=competition.options,
        versions=versions,
    )
    admitted = {v.pk for v in versions if admission.admitted(v.pk, validations)}
    played = dict(
        MatchSeat.objects.filter(match__competition=competition, match__cycle=competition.cycle)
        .values("version__bot_id")
        .annotate(games=Count("pk"))
        .values_list("version__bot_id", "games")
    )
    by_division: dict[int, list[Candidate]] = {}
    for entry in entries:
        version = current.get(entry.bot_id)
        if version is None or version.pk not in admitted:
            continue
        by_division.setdefault(entry.division, []).append(
            Candidate(version=version.pk, elo=0.0, games=played.get(entry.bot_id, 0))
        )
    live = dict(
        Match.objects.filter(competition=competition, status__in=LIVE)
        .values("division")
        .annotate(count=Count("pk"))
        .values_list("division", "count")
    )
    rng = random.Random(secrets.randbits(64))
    queued = 0
    for division in sorted(by_division):
        candidates = by_division[division]
        busy = live.get(_match_division(competition, division), 0)
        wanted = tables_wanted(
            candidates,
            players=competition.players,
            policy=policy(),
            ladder_busy=-(-busy // competition.players),
            tournament_backlog=0,
            seconds_since_last=None,
        )
        for table in choose_tables(
            candidates, players=competition.players, count=wanted, policy=policy(), rng=rng
        ):
            competition.tables += 1
            queued += _store_table(competition, division, table, now)
    if queued:
        competition.last_scheduled_at = now
        competition.save(update_fields=["tables", "last_scheduled_at"])
    return queued


def _match_division(competition: Competition, division: int) -> int | None:
    """A match's division: None when the competition has no divisions."""
    return None if competition.division_size is None else division


def _store_table(
    competition: Competition, division: int, table: tuple[int, ...], now: datetime
) -> int:
    """One duplicate set on the table's deal, derived from the competition's seed."""
    return store_duplicate_set(
        table=table,
        seed=competition_table_seed(competition.seed, competition.tables),
        now=now,
        competition=competition,
        division=_match_division(competition, division),
        cycle=competition.cycle,
        round=competition.tables,
        game=competition.game,
        options=registry.get(competition.game).resolve_options(competition.options),
        move_ms=competition.move_ms,
        bank_ms=competition.bank_ms,
    )
