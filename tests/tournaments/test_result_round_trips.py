"""A worker's tournament result: the rating's writes travel with the standings and the
logs, and the leaderboard rows' check comes after that one round trip."""

from __future__ import annotations

import contextlib

from django.db import connection

from tests.support.builders import outcome
from tournaments.models import LeaderboardRow, Match
from tournaments.read_models import leaderboard_rows, stored_totals, totals_from_matches
from tournaments.services.playing import _claim_and_load
from tournaments.services.recording import record_result

# SQLite takes a batch's statements one by one.
POSTGRES = connection.vendor == "postgresql"


def _record(match: Match, ranks: list[int], measured=contextlib.nullcontext) -> None:
    claimed, seats = _claim_and_load(match.pk)
    with measured():
        _finish(match, ranks, claimed, seats)


def _finish(match: Match, ranks: list[int], claimed: Match, seats: list) -> None:
    assert record_result(
        match_id=match.pk,
        attempt=claimed.attempts,
        outcome=outcome(match=match, ranks=ranks),
        match=claimed,
        seats=seats,
        logs=lambda: [f"seat {seat} of {match.pk}" for seat in range(2)],
    )


def test_a_workers_tournament_result_takes_two_round_trips(
    tournament, django_assert_max_num_queries
):
    """Once its versions have played in the pool: the tournament's lock with the match's
    finish and the ledger (one), then the rating, the leaderboard rows, the seats with
    their logs, the standings and whether a match is left (one); savepoints aside."""
    matches = list(tournament.matches.order_by("pk"))
    for match in matches[:3]:  # every version's first game in the pool
        _record(match, [1, 2])
    # A savepoint, two round trips, its release.
    _record(matches[3], [2, 1], lambda: django_assert_max_num_queries(4 if POSTGRES else 99))
    stored = Match.objects.get(pk=matches[3].pk)
    assert stored.status == Match.Status.FINISHED and stored.rated_seq == 4
    logs = list(stored.seats.order_by("seat").values_list("log", "rank"))
    assert logs == [(f"seat 0 of {stored.pk}", 2), (f"seat 1 of {stored.pk}", 1)]
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)


def test_the_leaderboard_rows_a_first_game_needs_are_computed_after_the_round_trip(
    tournament,
):
    """A version's first game here (its row showed nothing of its own): the rows' UPDATE
    falls short and the rows are computed from the ratings, as a rebuild would."""
    for match, ranks in zip(tournament.matches.order_by("pk"), ([1, 2], [2, 1], [1, 2])):
        _record(match, ranks)
        pool = Match.objects.get(pk=match.pk).pool
        kept = leaderboard_rows.stored_rows(pool=pool)
        assert LeaderboardRow.objects.filter(pool=pool).exists()
        leaderboard_rows.rebuild_pool(pool=pool)
        assert kept == leaderboard_rows.stored_rows(pool=pool)
