"""Playing one match: claim it, run it in the sandbox, record the result exactly once."""

from __future__ import annotations

import functools
import logging
import os
import random
import socket
import time
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.utils import timezone

from bots import events, held_sandboxes, metrics
from bots import services as bot_services
from bots.players import ProgramPlayer
from bots.queueing import MATCHES, PLAY_HUMAN_GAME, PLAY_MATCH, held_first_args, resend_missing
from bots.runner import Clock, close_players, seat_logs
from bots.runner import play_match as run_match
from bots.sandbox import Limits
from tournaments.models import Entry, HostFailure, Match, MatchSeat, Tournament
from tournaments.read_models import count_result
from tournaments.services import recorder
from tournaments.services.advancing import advance_tournament
from tournaments.services.claiming import claim_and_load
from tournaments.services.queueing import queue_match_after_commit
from tournaments.services.recording import record_result

log = logging.getLogger(__name__)
HEARTBEAT_EVERY_SECONDS = 2.0
FINAL = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)
DATABASE_ERRORS = (OperationalError, InterfaceError)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim_match(*, match_id: int, human: bool = False) -> int | None:
    """Take the match for this worker with one conditional UPDATE; the new attempt number or None.

    A match is claimable when queued, or when running with a heartbeat so old
    that its worker must be gone. A redelivered or duplicated task therefore
    never plays a match someone else is playing. A game a person plays is claimed only
    by its own task (``human``), and other matches only by theirs.
    """
    if not _claim(match_id, human=human):
        return None
    return Match.objects.values_list("attempts", flat=True).get(pk=match_id)


def _claim(match_id: int, *, human: bool = False) -> bool:
    """``claim_match``'s conditional UPDATE; the caller reads the attempt number."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    claimable = Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, heartbeat_at__lt=stale
    )
    claimed = Match.objects.filter(
        claimable,
        pk=match_id,
        attempts__lt=settings.ARENA_MAX_MATCH_ATTEMPTS,
        human_game__isnull=not human,
    ).update(
        status=Match.Status.RUNNING,
        attempts=F("attempts") + 1,
        worker=worker_name(),
        heartbeat_at=now,
        started_at=now,
    )
    if not claimed:
        _fail_if_out_of_attempts(match_id)
    return bool(claimed)


def _fail_if_out_of_attempts(match_id: int) -> None:
    stale = timezone.now() - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    with transaction.atomic():
        tournament_id = _lock_tournament_of(match_id)
        failed = Match.objects.filter(
            Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, heartbeat_at__lt=stale),
            pk=match_id,
            attempts__gte=settings.ARENA_MAX_MATCH_ATTEMPTS,
        ).update(status=Match.Status.FAILED, finished_at=timezone.now(), error="out of attempts")
        if failed:
            transaction.on_commit(
                lambda: events.emit(
                    "match.failed",
                    f"match {match_id} failed: out of attempts",
                    level=logging.WARNING,
                    match=match_id,
                    error="out of attempts",
                )
            )
        if failed and tournament_id is not None:
            count_result(match_id=match_id)
            advance_tournament(tournament_id=tournament_id)


def play_match(*, match_id: int) -> Match:
    """Play the match if this call can claim it; the match as stored afterwards."""
    play_queued_match(match_id=match_id)
    return Match.objects.select_related("tournament").get(pk=match_id)


def play_queued_match(*, match_id: int, record_behind: bool = False) -> bool:
    """What a worker's task runs: claim, play, record. True when this call recorded it.

    One statement before the match starts: the claim, returning the seats with their
    match, versions and entrant numbers (the recording uses them all).

    ``record_behind`` (a worker's task): once played, the result is handed to this
    process's recording thread (tournaments/services/recorder.py) where that is safe, and
    the call returns as soon as the thread takes it, so the worker's next match starts
    while it is recorded; True then means played and handed over.
    """
    claimed = _claim_and_load(match_id)
    if claimed is None:
        return False
    match, seats = claimed
    # Read right after the claim: only a heartbeat gone stale (minutes) lets another
    # worker claim it again, so this is the attempt this worker holds.
    attempt = match.attempts
    events.emit(
        "match.claimed",
        f"match {match_id} claimed, attempt {attempt}",
        match=match_id,
        attempt=attempt,
        worker=worker_name(),
        game=match.game,
        tournament=match.tournament_id,
        versions=[seat.version_id for seat in seats],
    )
    players = []
    try:
        for seat in seats:
            # The upload itself is read only if this worker has not unpacked it yet.
            players.append(
                ProgramPlayer(
                    bot_services.version_dir(version=seat.version),
                    Limits(),
                    label=seat.version.label,
                )
            )
        last_beat = [time.monotonic()]

        def heartbeat(_move: int) -> None:
            if time.monotonic() - last_beat[0] >= HEARTBEAT_EVERY_SECONDS:
                last_beat[0] = time.monotonic()
                _beat(match_id, attempt)

        def while_starting() -> None:  # the worker would only wait for the bots' "ready"
            _close_retired_seats()  # the last match's (see the end of this function)
            if settings.ARENA_PREPARE_AHEAD:  # the next match likely plays the same bots
                held_sandboxes.prepare_like((p.bot_dir, p.limits) for p in players)

        outcome = run_match(
            game_slug=match.game,
            players=players,
            options=match.options,
            seed=match.seed,
            clock=Clock(move_ms=match.move_ms, bank_ms=match.bank_ms),
            on_move=heartbeat,
            while_starting=while_starting,
            # The seats, told the match ended, exit while the result is recorded; their
            # logs are taken just before its last writes, and they are killed after it.
            leave_open=True,
        ).to_dict()
    except Exception as exc:  # the host failed, not a bot: give the match back
        log.exception("match %s attempt %s could not be played", match_id, attempt)
        release_attempt(match_id, attempt, f"{type(exc).__name__}: {exc}")
        raise

    record = functools.partial(
        _record_and_retire,
        match_id=match_id,
        attempt=attempt,
        outcome=outcome,
        match=match,
        seats=seats,
        players=players,
    )
    if record_behind and recorder.records_behind():
        recorder.hand_over(record)
        return True
    return record()


def _record_and_retire(
    *,
    match_id: int,
    attempt: int,
    outcome: dict,
    match: Match,
    seats: list[MatchSeat],
    players: list[ProgramPlayer],
) -> bool:
    """Record the played match (``_record_when_the_database_answers``), then kill its seats;
    on the thread that played it or on the process's recording thread."""
    try:
        return _record_when_the_database_answers(
            match_id=match_id,
            attempt=attempt,
            outcome=outcome,
            match=match,
            seats=seats,
            players=players,
        )
    except SeatsNotClosed as exc:  # as when the play raises: the host's, not the bots'
        log.exception("match %s attempt %s: its seats could not be closed", match_id, attempt)
        release_attempt(match_id, attempt, str(exc))
        raise
    finally:  # after the commit, so the teardown holds no lock
        try:
            # Killed now; their teardown (reap, cgroups, slots, staged copies) waits for the
            # next match's start-up, when the worker would only wait (bots/held_sandboxes.py).
            held_sandboxes.retire(players)
        except Exception:
            log.exception("match %s attempt %s: its seats could not be closed", match_id, attempt)


def _close_retired_seats() -> None:
    try:
        held_sandboxes.close_retired()
    except Exception:  # the host's trouble with an earlier match's seats, not this match's
        log.exception("the seats of an earlier match could not be closed")


class SeatsNotClosed(Exception):
    """Taking a played match's logs or closing its seats failed (the host's fault, not a
    bot's)."""


def _host_step(step: Callable, players: list) -> list[str | None]:
    try:
        return step(players)
    except Exception as exc:
        raise SeatsNotClosed(f"{type(exc).__name__}: {exc}") from exc


def _claim_and_load(match_id: int) -> tuple[Match, list[MatchSeat]] | None:
    """The claim and the read of the seats to play (``seats_to_play``), committed together:
    a database lost between them would leave the match claimed by a task whose retry can
    no longer claim it. (A claim whose answer is lost waits for its heartbeat to go stale
    and the reaper.) On PostgreSQL one statement (tournaments/services/claiming.py)."""
    if connection.vendor == "postgresql":
        claimed = claim_and_load(match_id=match_id, worker=worker_name())
        if claimed is None:
            _fail_if_out_of_attempts(match_id)
        return claimed
    with transaction.atomic():
        if not _claim(match_id):
            return None
        seats = seats_to_play(match_id)
        return (seats[0].match if seats else Match.objects.get(pk=match_id)), seats


def seats_to_play(match_id: int) -> list[MatchSeat]:
    """The match's seats in order, each with its match, version and bot (not the upload)
    and its ``entrant`` number in the match's tournament (None outside one)."""
    entrant = Entry.objects.filter(
        tournament_id=OuterRef("match__tournament_id"),
        version_id=OuterRef("version_id"),
        seed_number__isnull=False,
    ).values("seed_number")[:1]
    return list(
        MatchSeat.objects.filter(match_id=match_id)
        .select_related("match", "version__bot")
        .defer("version__upload")
        .annotate(entrant=Subquery(entrant))
        .order_by("seat")
    )


def _beat(match_id: int, attempt: int) -> None:
    """Refresh the heartbeat; a database away for a moment costs a beat, not the match."""
    try:
        Match.objects.filter(pk=match_id, attempts=attempt).update(heartbeat_at=timezone.now())
    except DATABASE_ERRORS:
        log.warning("match %s: heartbeat missed, the database did not answer", match_id)
        connection.close()  # a fresh connection on the next beat


def _record_when_the_database_answers(
    *,
    match_id: int,
    attempt: int,
    outcome: dict,
    match: Match,
    seats: list[MatchSeat],
    players: list[ProgramPlayer],
) -> bool:
    """``record_result``, retried with a jittered backoff while the database is away.

    The outcome of a played match exists only in this process, so it is worth waiting
    for: until the heartbeat would count as stale (after that the reaper may give the
    match to another worker, and this attempt could no longer record anyway).
    """
    give_up_at = time.monotonic() + settings.ARENA_STALE_MATCH_SECONDS
    delay = 0.5
    while True:
        try:
            return record_result(
                match_id=match_id,
                attempt=attempt,
                outcome=outcome,
                match=match,
                seats=seats,
                # Taken just before the result's last writes: the seats, told the match
                # ended, exit while it is recorded; they are closed after the commit.
                logs=lambda: _host_step(seat_logs, players),
            )
        except DATABASE_ERRORS:
            if time.monotonic() + delay > give_up_at:
                raise
            log.warning("match %s: result not stored yet, the database did not answer", match_id)
            _host_step(close_players, players)  # not kept open through an outage
            connection.close()
            time.sleep(random.uniform(delay / 2, delay))
            delay = min(delay * 2, 4.0)


def release_attempt(match_id: int, attempt: int, error: str, *, human: bool = False) -> None:
    """The host failed this attempt: record the failure, and queue the match again (or
    fail it, out of attempts) if the attempt still holds it."""
    with transaction.atomic():
        tournament_id = _lock_tournament_of(match_id)
        HostFailure.objects.create(
            match_id=match_id,
            attempt=attempt,
            worker=worker_name(),
            error=error[:2000],
            failed_at=timezone.now(),
        )
        transaction.on_commit(metrics.host_failed)
        out_of_attempts = attempt >= settings.ARENA_MAX_MATCH_ATTEMPTS
        updated = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, attempts=attempt
        ).update(
            status=Match.Status.FAILED if out_of_attempts else Match.Status.QUEUED,
            error=error[:2000],
            finished_at=timezone.now() if out_of_attempts else None,
            queued_at=timezone.now(),
        )
        if updated:
            _announce_release(match_id, attempt, error, failed=out_of_attempts)
        if updated and not out_of_attempts:
            queue_match_after_commit(match_id, human=human)
        if updated and out_of_attempts and tournament_id is not None:
            count_result(match_id=match_id)
            advance_tournament(tournament_id=tournament_id)


def _announce_release(match_id: int, attempt: int, error: str, *, failed: bool) -> None:
    event, done = ("match.failed", "failed") if failed else ("match.requeued", "queued again")
    fields = {"match": match_id, "attempt": attempt, "worker": worker_name(), "error": error}
    transaction.on_commit(
        lambda: events.emit(
            event,
            f"match {match_id} {done} after a host failure in attempt {attempt}: {error}",
            level=logging.WARNING,
            **fields,
        )
    )


def _lock_tournament_of(match_id: int) -> int | None:
    """Lock the match's tournament row (inside a transaction); its id, None for none.

    Every write that can end a tournament takes this lock before touching the match, in
    the same order as cancelling (tournament, then matches), so two last matches
    finishing together see each other and nothing deadlocks.
    """
    tournament_id = Match.objects.values_list("tournament_id", flat=True).get(pk=match_id)
    _lock_tournament(tournament_id)
    return tournament_id


def _lock_tournament(tournament_id: int | None) -> Tournament | None:
    """The tournament's row, locked until the transaction ends (None for none)."""
    if tournament_id is None:
        return None
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def requeue_stuck_matches() -> int:
    """The reaper; returns how many match messages it sent.

    Matches whose worker vanished mid-match are queued again (or failed); running
    tournaments with nothing left to play are finished; queued matches whose message the
    broker no longer holds are sent again.
    """
    count = _requeue_abandoned_matches()
    finish_idle_tournaments()
    return count + _resend_lost_match_messages()


def _requeue_abandoned_matches() -> int:
    stale = timezone.now() - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
    count = 0
    for match_id, attempts, human_game in Match.objects.filter(
        status=Match.Status.RUNNING, heartbeat_at__lt=stale
    ).values_list("pk", "attempts", "human_game_id"):
        if attempts >= settings.ARENA_MAX_MATCH_ATTEMPTS:
            _fail_if_out_of_attempts(match_id)
            continue
        with transaction.atomic():
            if Match.objects.filter(
                pk=match_id, status=Match.Status.RUNNING, attempts=attempts, heartbeat_at__lt=stale
            ).update(status=Match.Status.QUEUED, queued_at=timezone.now()):
                queue_match_after_commit(match_id, human=human_game is not None)
                count += 1
                events.emit(
                    "match.requeued",
                    f"match {match_id} queued again: its worker's heartbeat went stale",
                    level=logging.WARNING,
                    match=match_id,
                    attempt=attempts,
                    error="heartbeat stale",
                )
    return count


def finish_idle_tournaments() -> list[int]:
    """Move on (or finish) every running tournament none of whose matches is left to play.

    Results move their tournament on in the same transaction, so this only matters
    for a tournament left idle some other way (an engine error while advancing, say).
    """
    unfinished = Match.objects.filter(tournament=OuterRef("pk")).exclude(status__in=FINAL)
    idle = Tournament.objects.filter(status=Tournament.Status.RUNNING).exclude(Exists(unfinished))
    finished = []
    for tournament_id in idle.values_list("pk", flat=True):
        with transaction.atomic():
            Tournament.objects.select_for_update().filter(pk=tournament_id).exists()
            if advance_tournament(tournament_id=tournament_id):
                finished.append(tournament_id)
    return finished


def _resend_lost_match_messages() -> int:
    """Send again the queued matches whose message is really gone.

    A backlog of thousands of queued matches is normal (they wait their turn), so age
    alone says nothing. The broker is asked which match messages it still holds, waiting
    or recently delivered and unacknowledged; only matches it does not hold, and whose last send
    is older than ARENA_LOST_MESSAGE_SECONDS (a message in flight), are sent again. That
    finds messages lost with a broker restart or a failed publish, within one reaper
    period. A transport that cannot be asked falls back to age: matches queued longer
    than ARENA_STALE_MATCH_SECONDS. A duplicate is harmless: only one task can claim.
    """
    now = timezone.now()
    sent_before = now - timedelta(seconds=settings.ARENA_LOST_MESSAGE_SECONDS)
    queued = Match.objects.filter(
        Q(queued_at__lt=sent_before) | Q(queued_at__isnull=True), status=Match.Status.QUEUED
    )
    count = _resend_lost_human_games(queued, now)
    waiting = queued.filter(human_game__isnull=True)
    candidates = list(waiting.values_list("pk", flat=True))
    if not candidates:
        return count
    # A queued match's message is delivered only to be claimed (seconds) or to wait out
    # a retry's backoff; one delivered longer ago than a heartbeat's staleness belongs to
    # a worker that died, and waits for the visibility timeout (hours) otherwise.
    held = held_first_args(
        task_name=PLAY_MATCH, queue=MATCHES, delivered_within=settings.ARENA_STALE_MATCH_SECONDS
    )
    if held is None:
        stale = now - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS)
        candidates = list(waiting.filter(queued_at__lt=stale).values_list("pk", flat=True))
        held = set()
    resent = resend_missing(waiting, candidates, held, task_name=PLAY_MATCH, now=now)
    if resent:
        log.warning("re-sent %d match message(s) the broker no longer held", resent)
    return count + resent


def _resend_lost_human_games(queued, now) -> int:
    """Games people play are few and each is claimed within moments of its message: one
    still queued after ARENA_LOST_MESSAGE_SECONDS lost its message (a duplicate is
    harmless, only one task can claim)."""
    waiting = queued.filter(human_game__isnull=False)
    ids = list(waiting.values_list("pk", flat=True))
    resent = resend_missing(waiting, ids, set(), task_name=PLAY_HUMAN_GAME, now=now)
    if resent:
        log.warning("re-sent %d game(s) against people the broker no longer held", resent)
    return resent
