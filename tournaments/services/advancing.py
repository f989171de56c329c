"""Moving a tournament on: ask its format what is due, store it, queue it; finish at the end.

Called with the tournament's row locked (by the service that recorded a
result, failed a match or started the tournament), so two results arriving
together never create a round twice; the pairing key's unique constraint is
the second guard. The format is asked from the database's results alone:
no chord, no in-memory state, so a worker killed at any point loses nothing.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from games import registry
from games.rng import derive_seed
from tournaments import formats
from tournaments.format_inputs import results_of, seeded_entries, tournament_event
from tournaments.formats import Finished, Pairing
from tournaments.formats.round_robin import finish as finish_round_robin
from tournaments.models import Entry, Match, MatchSeat, Tournament
from tournaments.read_models import bump_results_mark, refresh_after_commit
from tournaments.services import telling
from tournaments.services.queueing import queue_match_after_commit

FINAL = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)
# Formats that lay out every game at the start need asking again only to finish.
PLANNED_UP_FRONT = ("round_robin", "gauntlet")


def advance_tournament(
    *, tournament_id: int, tournament: Tournament | None = None, unfinished: bool | None = None
) -> bool:
    """Create and queue the games the format says are due, or finish the tournament.

    Call it inside a transaction holding the tournament's row lock (``tournament``: the
    row as read with that lock, if the caller has it; ``unfinished``: whether a match of
    it is left to play, if the caller asked since its last change of a match, with
    ``unfinished_statement``). Returns True when the tournament finished.
    """
    if tournament is None:
        tournament = Tournament.objects.get(pk=tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return False
    if unfinished is None:
        unfinished = tournament.matches.exclude(status__in=FINAL).exists()
    if unfinished and tournament.format in PLANNED_UP_FRONT + ("swiss",):
        # Nothing new can be due until the round (or the whole plan) is complete.
        return False
    entries = seeded_entries(tournament)
    results = results_of(tournament, entries)
    if tournament.matches.filter(pairing_key="").exists():
        # Started before formats had keys: a round robin whose every game is stored.
        if not unfinished:
            _finish(tournament, entries, finish_round_robin(len(entries), results))
            return True
        return False
    answer = formats.next_matches(tournament.format, tournament_event(tournament, entries), results)
    if isinstance(answer, Finished):
        if unfinished:
            return False
        _finish(tournament, entries, answer)
        return True
    _store(tournament, entries, answer)
    return False


def unfinished_statement(tournament_id: int) -> tuple[str, list]:
    """Whether a match of the tournament is left to play, as SQL (one row, one boolean)
    to travel with other statements."""
    table = connection.ops.quote_name(Match._meta.db_table)
    return (
        f"SELECT EXISTS (SELECT 1 FROM {table} WHERE tournament_id = %s"
        f" AND status NOT IN ({', '.join(['%s'] * len(FINAL))}))",
        [tournament_id, *FINAL],
    )


def _store(tournament: Tournament, entries: list[Entry], due: list[Pairing]) -> None:
    stored = set(tournament.matches.values_list("pairing_key", flat=True))
    fresh = [p for p in due if p.key not in stored]
    if not fresh:
        return
    engine = registry.get(tournament.game)
    number = tournament.matches.aggregate(n=Count("pk"))["n"]
    now = timezone.now()
    for pairing in fresh:
        number += 1
        match = Match.objects.create(
            tournament=tournament,
            round=pairing.round,
            number=number,
            pairing_key=pairing.key,
            series=pairing.series or "",
            game=tournament.game,
            engine_version=engine.version,
            options=tournament.options,
            # Games sharing (group, deal) are dealt the same cards: duplicate play.
            seed=derive_seed(tournament.seed, "group", pairing.group, "deal", pairing.deal) >> 2,
            move_ms=tournament.move_ms,
            bank_ms=tournament.bank_ms,
            status=Match.Status.QUEUED,
            queued_at=now,
        )
        MatchSeat.objects.bulk_create(
            [
                MatchSeat(match=match, seat=seat, version=entries[entrant].version)
                for seat, entrant in enumerate(pairing.seats)
            ]
        )
        queue_match_after_commit(match.pk)


def _finish(tournament: Tournament, entries: list[Entry], finished: Finished) -> None:
    for standing in finished.standings:
        entry = entries[standing.entrant]
        entry.place = standing.place
        entry.points = standing.points
        entry.tiebreaks = standing.tiebreaks
    Entry.objects.bulk_update(entries, ["place", "points", "tiebreaks"])
    ended = Tournament.objects.filter(pk=tournament.pk, status=Tournament.Status.RUNNING).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()
    )
    if ended:
        telling.tournament_finished(tournament.pk)
    # A finished event's snapshot holds its match counts too: build it anew, after the
    # commit, so the final table's first read is one row.
    bump_results_mark(tournament_id=tournament.pk)
    refresh_after_commit(tournament.pk)
