"""Recording a played match's result exactly once: the match, its seats, the rating,
the standings and the tournament's next step, in one transaction and few round trips."""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection, transaction
from django.utils import timezone

from bots import events, metrics
from tournaments.models import Entry, Match, MatchSeat, Tournament
from tournaments.models.row_statements import Batch, from_row, select_sql, update_rows
from tournaments.read_models import count_new_result, count_result
from tournaments.services.advancing import advance_tournament, unfinished_statement
from tournaments.services.challenges import advance_challenge
from tournaments.services.crash_streaks import check_crash_streaks
from tournaments.services.gating import advance_gate
from tournaments.services.queueing import store_replay_after_commit
from tournaments.services.rating import (
    add_position_and_lock,
    pool_or_none,
    rate_result,
    read_position_and_lock,
)


def record_result(
    *,
    match_id: int,
    attempt: int,
    outcome: dict,
    match: Match | None = None,
    seats: list[MatchSeat] | None = None,
    logs: Callable[[], list[str | None]] | None = None,
) -> bool:
    """Store the outcome once: only the attempt that holds the claim may finish the match.

    The tournament moves on in the same transaction (its next round or series queued,
    or the tournament finished), so no crash can leave it waiting with nothing to play.
    A worker records a result per match and passes the ``match`` and ``seats`` it loaded
    to play (neither changes while the match runs; seats annotated with their
    ``entrant``): then nothing is read back but the locked tournament and, for the
    rating, the pool's ledger and ratings.

    ``logs``: the seats' logs (else ``outcome["logs"]``), asked for as late as the
    transaction allows and stored in it: a worker closes the match's seats there, so
    their exits overlap the recording. Nothing reads a log back in the transaction.
    """
    with transaction.atomic():
        if match is None:
            match = Match.objects.get(pk=match_id)
        fields = {
            "status": Match.Status.FINISHED,
            "finished_at": timezone.now(),
            "result": outcome["result"],
            "moves": outcome["moves"],
            "record": outcome["record"],
            "engine_version": outcome["version"],
        }
        # A tournament's match is counted in its standings here, as finished: the UPDATE
        # that finishes it says so, if the totals counted it as nothing so far (always,
        # through the services); otherwise count_result works out the difference.
        # A rated match's pool ledger is taken in the same round trip, when it can be.
        versions = (
            [seat.version_id for seat in sorted(seats, key=lambda s: s.seat)] if seats else []
        )
        pool = _pool_to_take(match, versions) if seats else None
        tournament, counted, taken = _lock_and_finish(
            match.tournament_id, match_id, attempt, fields, pool=pool, versions=versions
        )
        ours = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, attempts=attempt)
        if not counted and not ours.update(**fields):
            return False
        store_replay_after_commit(match_id=match_id, moves=len(outcome["moves"]))
        if seats is None:
            seats = list(
                MatchSeat.objects.filter(match_id=match_id).only("seat", "version_id", "user_id")
            )
        seats = sorted(seats, key=lambda seat: seat.seat)
        # A person's seat (a game against bots) gives up or runs out of time: not a bot's fault.
        people = {seat.seat for seat in seats if seat.user_id is not None}
        _announce_after_commit(match, attempt, outcome, fields["finished_at"], people)
        # Writes nobody reads back wait here and leave in one round trip (with the rating's).
        batch = Batch()
        _score_seats(seats, outcome)
        # A worker's tournament result (the usual case) sends them with the standings and
        # the logs: one round trip for the rating, the leaderboard rows, the seats, the
        # totals and whether a match is left, their few checks made after it.
        together = (
            tournament is not None
            and counted
            and logs is not None
            and match.gate_id is None
            and match.challenge_id is None
        )
        if not together:
            _store_seats(seats, batch, logs=outcome.get("logs") or [] if logs is None else None)
        settle: list[Callable[[], None]] = []
        # A version gate's matches test two versions of one bot, a challenge's are asked
        # for by one author, and a person played in a game against bots: none are games
        # of the pool; nor are a competition's, whose results it releases itself.
        if (
            match.gate_id is None
            and match.competition_id is None
            and match.challenge_id is None
            and match.human_game_id is None
            and match.rated_seq is None
            and (tournament is None or tournament.rated)
        ):
            rate_result(
                match_id=match_id,
                game=match.game,
                options=match.options,
                versions=[seat.version_id for seat in seats],
                result=outcome["result"],
                batch=batch,
                taken=taken,
                settle=settle if together else None,
            )
        if not together:
            batch.send()
        if match.gate_id is not None:
            advance_gate(gate_id=match.gate_id)
        if match.challenge_id is not None:
            advance_challenge(challenge_id=match.challenge_id)
        if together:
            # The logs as late as the result allows; the seats written once, with them.
            _store_seats(seats, batch, logs=logs())
        elif logs is not None:  # the last writes of the result wait for them
            _store_logs(seats, logs(), batch)
        if tournament is not None:
            # The standings' totals move with the result, in its transaction.
            unfinished = None
            if counted:
                # With them, in one round trip: the logs, and whether any match is left.
                left = batch.add(*unfinished_statement(tournament.pk), prepare=True)
                count_new_result(
                    tournament=tournament,
                    key=match.pairing_key,
                    round=match.round,
                    series=match.series,
                    seats=_entrant_seats(tournament.pk, seats),
                    batch=batch,
                )
                unfinished = batch.results[left].rows[0][0]
            else:
                count_result(match_id=match_id)
            for check in settle:  # the batch is sent: the leaderboard rows' count
                check()
            advance_tournament(
                tournament_id=tournament.pk, tournament=tournament, unfinished=unfinished
            )
        batch.send()
        faulted = [s.version_id for s in seats if s.fault is not None and s.version_id is not None]
        if faulted:
            check_crash_streaks(version_ids=faulted, match_id=match_id)
    return True


def _announce_after_commit(
    match: Match, attempt: int, outcome: dict, finished_at, people: set[int]
) -> None:
    """Once the result is stored for good: the metrics (the game, each seat's fault by
    kind: the bots' faults, not a person's; the host's are counted where a match is
    released) and the events ``match.finished`` and ``match.faulted``."""
    seats = outcome["result"]["seats"]
    faults = [
        (index, seat["fault"])
        for index, seat in enumerate(seats)
        if seat.get("fault") and index not in people
    ]
    started = match.started_at
    seconds = (finished_at - started).total_seconds() if started is not None else None

    def announce() -> None:
        kinds = [fault["kind"] for _seat, fault in faults]
        metrics.match_recorded(game=match.game, fault_kinds=kinds, seconds=seconds)
        ids = {"match": match.pk, "attempt": attempt, "worker": events.worker_id()}
        events.emit(
            "match.finished",
            f"match {match.pk} finished in {len(outcome['moves'])} moves",
            **ids,
            game=match.game,
            moves=len(outcome["moves"]),
            seconds=seconds,
            faults=len(faults),
        )
        for seat, fault in faults:
            events.emit(
                "match.faulted",
                f"match {match.pk} seat {seat}: {fault['kind']} ({fault['reason']})",
                **ids,
                seat=seat,
                kind=fault["kind"],
                reason=fault["reason"],
            )

    transaction.on_commit(announce)


def _lock_and_finish(
    tournament_id: int | None,
    match_id: int,
    attempt: int,
    fields: dict,
    *,
    pool: str | None = None,
    versions: list[int] = (),
) -> tuple[Tournament | None, bool, tuple | None]:
    """Lock the tournament's row, then finish the match and mark it counted in the
    standings if this attempt holds it and the totals counted it as nothing so far: one
    round trip, the lock first (the order of every writer that can end a tournament).

    With a ``pool``, the same round trip then takes the pool's ledger position and locks
    the ``versions``' ratings (``rating.rate_result``'s first step, in its order: after
    the tournament), but only if the tournament is rated and this very call finished the
    match (its ``finished_at``, unique to the call): otherwise the ledger is untouched.

    The tournament (None for none), whether the match was finished and counted, and the
    ledger position and ratings taken (``rating.take_position_and_lock``'s answer; None
    when not taken)."""
    if tournament_id is None:
        return None, False, None
    quote = connection.ops.quote_name
    batch = Batch()
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""  # SQLite: none
    batch.add(
        f"SELECT {select_sql(_TOURNAMENT, 't')} FROM {quote(Tournament._meta.db_table)} t"
        f" WHERE t.id = %s{lock}",
        [tournament_id],
        prepare=True,
    )
    update_rows(
        Match,
        keys=["id"],
        fields=[*fields, "standings_counted"],
        rows=[(match_id, *fields.values(), Match.Status.FINISHED)],
        where=f"{{table}}.{quote('status')} = %s AND {{table}}.{quote('attempts')} = %s"
        f" AND {{table}}.{quote('standings_counted')} = ''",
        where_params=[Match.Status.RUNNING, attempt],
        batch=batch,
    )
    guard = None
    if pool is not None:
        guard = (
            f"EXISTS (SELECT 1 FROM {quote(Tournament._meta.db_table)} t WHERE t.id = %s"
            f" AND t.{quote('rated')}) AND EXISTS (SELECT 1 FROM {quote(Match._meta.db_table)} m"
            " WHERE m.id = %s AND m.status = %s AND m.attempts = %s AND m.finished_at = %s"
            " AND m.standings_counted = %s)",
            [
                tournament_id, match_id, Match.Status.FINISHED, attempt,
                _FINISHED_AT.get_db_prep_save(fields["finished_at"], connection),
                Match.Status.FINISHED,
            ],
        )  # fmt: skip
        position_at = len(batch)
        add_position_and_lock(batch, pool, set(versions), guard=guard)
    answers = batch.send()
    locked, finished = answers[0], answers[1]
    if not locked.rows:
        raise Tournament.DoesNotExist(f"tournament {tournament_id}")
    tournament = from_row(Tournament, _TOURNAMENT, locked.rows[0])
    counted = finished.rowcount == 1
    taken = None
    # Without a position (a pool with no ledger yet) the rating takes its own, as before.
    if guard is not None and counted and tournament.rated and answers[position_at].rows:
        taken = read_position_and_lock(answers[position_at], answers[position_at + 1])
    return tournament, counted, taken


def _pool_to_take(match: Match, versions: list[int]) -> str | None:
    """The pool whose ledger the result's first round trip takes: a tournament's match
    that ``record_result`` rates (tournament rated: checked in the statement)."""
    if (
        match.tournament_id is None
        or match.gate_id is not None
        or match.competition_id is not None
        or match.challenge_id is not None
        or match.human_game_id is not None
        or match.rated_seq is not None
    ):
        return None
    return pool_or_none(match.game, len(versions), match.options)


_TOURNAMENT = Tournament._meta.concrete_fields
_FINISHED_AT = Match._meta.get_field("finished_at")


def _score_seats(seats: list[MatchSeat], outcome: dict) -> None:
    """Every seat's score, rank, fault and fault detail from the outcome, on the seats."""
    details = outcome.get("fault_details") or []
    for seat in seats:
        seat_result = outcome["result"]["seats"][seat.seat]
        seat.score = seat_result["score"]
        seat.rank = seat_result["rank"]
        seat.fault = seat_result.get("fault")
        seat.fault_detail = (details[seat.seat] if seat.seat < len(details) else "") or ""


def _store_seats(seats: list[MatchSeat], batch: Batch, logs: list[str | None] | None) -> None:
    """Every seat's score, rank, fault and fault detail (``_score_seats``), and its log
    from ``logs`` unless None, in one UPDATE (added to ``batch``)."""
    fields = ["score", "rank", "fault", "fault_detail"]
    if logs is not None:
        _set_logs(seats, logs)
        fields.append("log")
    update_rows(
        MatchSeat,
        keys=["id"],
        fields=fields,
        rows=[(seat.pk, *(getattr(seat, name) for name in fields)) for seat in seats],
        batch=batch,
    )


def _store_logs(seats: list[MatchSeat], logs: list[str | None], batch: Batch) -> None:
    """Every seat's log in one UPDATE (added to ``batch``). Not a column the read
    versions' triggers watch, so the second write of the seats fires none of them."""
    _set_logs(seats, logs)
    update_rows(
        MatchSeat,
        keys=["id"],
        fields=["log"],
        rows=[(seat.pk, seat.log) for seat in seats],
        batch=batch,
    )


def _set_logs(seats: list[MatchSeat], logs: list[str | None]) -> None:
    for seat in seats:
        seat.log = (logs[seat.seat] if seat.seat < len(logs) else None) or ""


def _entrant_seats(tournament_id: int, seats: list[MatchSeat]) -> list[tuple]:
    """(entrant, rank, faulted, score) of each seat, in seat order; the entrant numbers
    come with the worker's seats (``playing.seats_to_play``, ``claiming``), or are read here."""
    entrant = {seat.version_id: getattr(seat, "entrant", None) for seat in seats}
    if None in entrant.values():
        entrant = dict(
            Entry.objects.filter(
                tournament_id=tournament_id, version_id__in=list(entrant), seed_number__isnull=False
            ).values_list("version_id", "seed_number")
        )
    return [
        (entrant[seat.version_id], seat.rank, seat.fault is not None, seat.score) for seat in seats
    ]
