"""A worker's claim of a match and the read of what it plays, in one statement.

The claim is the conditional UPDATE of ``playing._claim`` (queued, or running with a
heartbeat gone stale; attempts left); the seats with their versions, bots and entrant
numbers come back from the same statement (``WITH claimed AS (UPDATE ... RETURNING)``),
so the claim and the read are one round trip and commit together: no claim can be left
behind by a database lost between them (the task's retry finds the match claimable).

Its commit does not wait for the WAL to reach the disk (``synchronous_commit = off`` for
that transaction alone: one of a match's two fsync waits off the worker's path). Other sessions see the claim at once all the same; only a crash
of PostgreSQL itself could lose it, and a lost claim leaves the match queued: the result's
conditional UPDATE then records nothing, and the reaper sends the match again. The
result's commit stays synchronous (a result recorded is on disk; a worker's task is acked
once its result is handed to its recording thread, tournaments/services/recorder.py), and
it flushes the WAL of the claim with its own.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache

from django.conf import settings
from django.db import connection
from django.utils import timezone

from bots.models import Bot, BotVersion
from tournaments.models import Entry, Match, MatchSeat
from tournaments.models.row_statements import Batch, from_row, select_sql

ASYNC_COMMIT = "SET LOCAL synchronous_commit = off"


def claim_and_load(*, match_id: int, worker: str) -> tuple[Match, list[MatchSeat]] | None:
    """Claim the match for ``worker``; the claimed match and its seats in seat order (each
    with its version and bot, not the upload, and its ``entrant`` number in the match's
    tournament, None outside one), or None when it could not be claimed."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    batch = Batch()
    if connection.get_autocommit() and not connection.in_atomic_block:
        batch.add(ASYNC_COMMIT)  # this statement's own transaction only
    claim = batch.add(
        _sql(),
        [
            Match.Status.RUNNING, worker, now, now,
            match_id, settings.ARENA_MAX_MATCH_ATTEMPTS,
            Match.Status.QUEUED, Match.Status.RUNNING, stale,
        ],
        prepare=True,  # its join of four tables planned once per session, not every match
    )  # fmt: skip
    rows = batch.send()[claim].rows
    if not rows:
        return None
    match = from_row(Match, _MATCH, rows[0], 0)
    seats = []
    for row in rows:
        if row[_SEAT_AT] is None:  # a match without seats: the LEFT JOIN's one row
            break
        seat = from_row(MatchSeat, _SEAT, row, _SEAT_AT)
        version = from_row(BotVersion, _VERSION, row, _VERSION_AT)
        version.bot = from_row(Bot, _BOT, row, _BOT_AT)
        seat.match, seat.version, seat.entrant = match, version, row[-1]
        seats.append(seat)
    return match, seats


def _fields(model, leave_out: tuple[str, ...] = ()) -> list:
    return [f for f in model._meta.concrete_fields if f.name not in leave_out]


_MATCH = _fields(Match)
_SEAT = _fields(MatchSeat)
_VERSION = _fields(BotVersion, leave_out=("upload",))  # read only if not unpacked yet
_BOT = _fields(Bot)
_SEAT_AT = len(_MATCH)
_VERSION_AT = _SEAT_AT + len(_SEAT)
_BOT_AT = _VERSION_AT + len(_VERSION)


@cache  # one database vendor per process
def _sql() -> str:
    quote = connection.ops.quote_name
    match = quote(Match._meta.db_table)
    return (
        f"WITH claimed AS (UPDATE {match} SET status = %s, attempts = attempts + 1,"
        " worker = %s, heartbeat_at = %s, started_at = %s"
        " WHERE id = %s AND attempts < %s AND human_game_id IS NULL"
        " AND (status = %s OR (status = %s AND heartbeat_at < %s))"
        f" RETURNING {', '.join(quote(f.column) for f in _MATCH)})"
        f" SELECT {select_sql(_MATCH, 'm')}, {select_sql(_SEAT, 's')},"
        f" {select_sql(_VERSION, 'v')}, {select_sql(_BOT, 'b')},"
        f" (SELECT e.seed_number FROM {quote(Entry._meta.db_table)} e"
        "   WHERE e.tournament_id = m.tournament_id AND e.version_id = s.version_id"
        "   AND e.seed_number IS NOT NULL LIMIT 1)"
        f" FROM claimed m LEFT JOIN {quote(MatchSeat._meta.db_table)} s ON s.match_id = m.id"
        f" LEFT JOIN {quote(BotVersion._meta.db_table)} v ON v.id = s.version_id"
        f" LEFT JOIN {quote(Bot._meta.db_table)} b ON b.id = v.bot_id"
        " ORDER BY s.seat"
    )
