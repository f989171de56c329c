"""Match lifecycle: claims by conditional UPDATE, results recorded once, retries, the reaper."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from bots.models import Bot
from tests.support.builders import active_bots, outcome
from tournaments import services
from tournaments.models import Match, Rating, RatingChange, Tournament
from tournaments.services.playing import claim_match, record_result


def test_start_is_claimed_once_and_queues_every_match(tournament):
    assert tournament.status == Tournament.Status.RUNNING
    assert not services.start_tournament(tournament_id=tournament.pk)
    matches = tournament.matches.all()
    assert matches.count() == 3 * 2
    assert {m.status for m in matches} == {Match.Status.QUEUED}
    assert all(m.seats.count() == 2 for m in matches)
    # Entries are pinned to the active version.
    assert all(e.version is not None for e in tournament.entries.all())
    # Both games of a pair share a deal, with seats swapped.
    by_pair = {}
    for m in matches:
        key = frozenset(s.version_id for s in m.seats.all())
        by_pair.setdefault(key, []).append(m)
    for games in by_pair.values():
        assert games[0].seed == games[1].seed
        seats = [[s.version_id for s in g.seats.order_by("seat")] for g in games]
        assert seats[0] == seats[1][::-1]


def test_a_match_is_claimed_by_one_task_only(tournament):
    match = tournament.matches.first()
    assert claim_match(match_id=match.pk) == 1
    assert claim_match(match_id=match.pk) is None
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.attempts == 1


def test_result_is_recorded_and_rated_once(tournament):
    match = tournament.matches.first()
    attempt = claim_match(match_id=match.pk)
    assert record_result(
        match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
    )
    assert not record_result(
        match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[2, 1])
    )
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert [s.rank for s in match.seats.order_by("seat")] == [1, 2]
    assert RatingChange.objects.filter(match=match).count() == 2
    winner = match.seats.get(seat=0).version
    assert Rating.objects.get(version=winner).elo > 1500


def test_a_lost_worker_is_replaced_and_cannot_record_late(tournament, settings):
    match = tournament.matches.first()
    first = claim_match(match_id=match.pk)
    # Fresh heartbeat: nobody else may take it.
    assert claim_match(match_id=match.pk) is None
    Match.objects.filter(pk=match.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    second = claim_match(match_id=match.pk)
    assert second == first + 1
    # The first worker wakes up and tries to record: refused.
    assert not record_result(
        match_id=match.pk, attempt=first, outcome=outcome(match=match, ranks=[2, 1])
    )
    assert record_result(
        match_id=match.pk, attempt=second, outcome=outcome(match=match, ranks=[1, 2])
    )
    assert RatingChange.objects.filter(match=match).count() == 2


def test_reaper_requeues_stale_running_matches_and_fails_after_max_attempts(tournament, settings):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 2
    match = tournament.matches.first()
    stale = timezone.now() - timedelta(hours=1)
    claim_match(match_id=match.pk)
    Match.objects.filter(pk=match.pk).update(heartbeat_at=stale)
    services.requeue_stuck_matches()
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.attempts == 1
    claim_match(match_id=match.pk)
    Match.objects.filter(pk=match.pk).update(heartbeat_at=stale)
    services.requeue_stuck_matches()
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and match.attempts == 2
    assert claim_match(match_id=match.pk) is None


def test_tournament_finishes_when_every_match_is_final_and_live_equals_recomputed(tournament):
    matches = list(tournament.matches.all())
    for i, match in enumerate(matches):
        attempt = claim_match(match_id=match.pk)
        ranks = [[1, 2], [2, 1], [1, 1]][i % 3]
        record_result(match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=ranks))
        tournament.refresh_from_db()
        expected = (
            Tournament.Status.FINISHED if i == len(matches) - 1 else Tournament.Status.RUNNING
        )
        assert tournament.status == expected
    live = {r.version_id: r.elo for r in Rating.objects.filter(pool="pairs:2")}
    recomputed = services.recompute_ratings(pool="pairs:2")
    assert live.keys() == recomputed.keys()
    for key in live:
        assert live[key] == pytest.approx(recomputed[key])
    assert sorted(Match.objects.values_list("rated_seq", flat=True)) == list(range(1, 7))


def test_cancel_stops_queued_matches(tournament):
    services.cancel_tournament(tournament=tournament)
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    assert claim_match(match_id=tournament.matches.first().pk) is None


def test_a_bots_recent_matches_come_newest_first_across_tournaments(tournament):
    from tournaments import selectors

    owner = tournament.organiser
    bot = Bot.objects.get(name="bot0")
    later = services.create_tournament(
        organiser=owner,
        name="later cup",
        game="pairs",
        bot_ids=[b.pk for b in Bot.objects.filter(owner=owner)],
        games_per_pairing=1,
        rotate_seats=False,
        seed=5,
    )
    assert services.start_tournament(tournament_id=later.pk)
    recent = selectors.recent_matches(bot_id=bot.pk, limit=3)
    ids = [m.pk for m in recent]
    assert ids == sorted(ids, reverse=True)
    assert all(m.tournament_id == later.pk for m in recent[:2])  # bot0 plays 2 in the later cup
    assert all(any(s.version.bot_id == bot.pk for s in m.seats.all()) for m in recent)


def test_the_reaper_finishes_a_running_tournament_with_nothing_left_to_play(tournament):
    matches = list(tournament.matches.all())
    for match in matches[:-1]:
        record_result(
            match_id=match.pk,
            attempt=claim_match(match_id=match.pk),
            outcome=outcome(match=match, ranks=[1, 2]),
        )
    Match.objects.filter(pk=matches[-1].pk).update(status=Match.Status.FAILED)
    # As if a worker died between a result's commit and the "tournament finished?" step.
    services.requeue_stuck_matches()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.finished_at is not None


def test_the_reaper_leaves_a_tournament_with_matches_to_play_running(tournament):
    match = tournament.matches.first()
    record_result(
        match_id=match.pk,
        attempt=claim_match(match_id=match.pk),
        outcome=outcome(match=match, ranks=[1, 2]),
    )
    services.requeue_stuck_matches()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING


# The rating's writes, the leaderboard's lock and rows go to PostgreSQL in one execute;
# SQLite (no lock) takes them one by one; the same for the ledger's position and the
# ratings' read, for the tournament's lock and the match's UPDATE, and for the standings'
# three writes, the seats' logs (when a worker passes them) and whether a match is left.
UNBATCHED = 0 if connection.vendor == "postgresql" else 6
UNBATCHED_STANDINGS = 0 if connection.vendor == "postgresql" else 5


@pytest.mark.parametrize("seats", [2, 4])
def test_recording_a_result_takes_a_few_queries_whatever_the_seat_count(
    db, seats, django_assert_max_num_queries
):
    """A worker records a result per match: a fixed handful of queries (the match and its
    seats read, the update that finishes it, the ledger's position with the ratings' lock
    and read in one round trip, then one round trip for the seats', ratings', changes',
    pairs' and match's writes with the leaderboard's lock and the UPDATE of the rows of
    the versions that played), the same for 2 seats as for 4, once every version has
    played in the pool."""
    from games import registry

    owner = get_user_model().objects.create_user(username="org")
    versions = [b.versions.get() for b in active_bots(owner=owner, count=seats)]

    def running_match(seed: int) -> Match:
        match = Match.objects.create(
            game="pairs",
            engine_version=registry.get("pairs").version,
            seed=seed,
            status=Match.Status.RUNNING,
            attempts=1,
        )
        for seat, version in enumerate(versions):
            match.seats.create(seat=seat, version=version)
        return match

    ranks = list(range(1, seats + 1))
    first = running_match(1)
    assert record_result(match_id=first.pk, attempt=1, outcome=outcome(match=first, ranks=ranks))
    second = running_match(2)
    with django_assert_max_num_queries(7 + UNBATCHED):
        assert record_result(
            match_id=second.pk, attempt=1, outcome=outcome(match=second, ranks=ranks[::-1])
        )
    second.refresh_from_db()
    assert second.status == Match.Status.FINISHED and second.rated_seq == 2
    stored = list(second.seats.order_by("seat").values_list("rank", "score"))
    assert stored == [(r, 10 - r) for r in ranks[::-1]]
    assert RatingChange.objects.filter(match=second).count() == seats
    assert Rating.objects.filter(pool=second.pool, matches=2).count() == seats
    # The worker passes the match and seats it loaded to play: two reads fewer.
    third = running_match(3)
    loaded = Match.objects.select_related("tournament").get(pk=third.pk)
    loaded_seats = list(third.seats.all())
    with django_assert_max_num_queries(5 + UNBATCHED):
        assert record_result(
            match_id=third.pk,
            attempt=1,
            outcome=outcome(match=third, ranks=ranks),
            match=loaded,
            seats=loaded_seats[::-1],
        )
    third.refresh_from_db()
    assert third.rated_seq == 3
    assert list(third.seats.order_by("seat").values_list("rank", flat=True)) == ranks
    assert Rating.objects.filter(pool=third.pool, matches=3).count() == seats


def test_a_workers_tournament_result_is_counted_in_a_few_queries(
    tournament, django_assert_max_num_queries
):
    """The worker passes the match and seats it loaded to play, with their entrant numbers:
    the tournament's lock and the update that finishes the match and marks it counted (one
    round trip), the rating (as above: two round trips, the seats' write among them),
    then one round trip for the standings (the entrants' totals, the pair's upsert, the
    version's bump), the seats' logs (asked for last) and whether anything is left to
    play. The totals then equal a rebuild."""
    from tournaments.read_models import stored_totals, totals_from_matches
    from tournaments.services.playing import _claim_and_load

    by_versions: dict[frozenset, list[Match]] = {}
    for match in tournament.matches.order_by("pk"):
        versions = frozenset(match.seats.values_list("version_id", flat=True))
        by_versions.setdefault(versions, []).append(match)
    pairing = next(iter(by_versions.values()))
    first, second = pairing[:2]
    for match, ranks in ((first, [1, 2]), (second, [2, 1])):
        claimed, seats = _claim_and_load(match.pk)
        attempt = claimed.attempts
        assert all(seat.entrant is not None for seat in seats)
        with django_assert_max_num_queries(
            99 if match is first else 6 + UNBATCHED + UNBATCHED_STANDINGS
        ):
            assert record_result(
                match_id=match.pk,
                attempt=attempt,
                outcome=outcome(match=match, ranks=ranks),
                match=claimed,
                seats=seats,
                logs=lambda pk=match.pk: [f"seat {seat} of {pk}" for seat in range(2)],
            )
    second.refresh_from_db()
    assert list(second.seats.order_by("seat").values_list("log", flat=True)) == [
        f"seat {seat} of {second.pk}" for seat in range(2)
    ]
    assert second.status == Match.Status.FINISHED and second.standings_counted == "finished"
    assert second.rated_seq == 2
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)
    # Recorded once: a second delivery of the same attempt changes nothing.
    assert not record_result(
        match_id=second.pk, attempt=attempt, outcome=outcome(match=second, ranks=ranks)
    )
    assert stored_totals(tournament.pk) == totals_from_matches(tournament)


def test_a_workers_claim_reads_what_it_plays(tournament, django_assert_max_num_queries):
    """The claim returns the match and its seats as the ORM reads them (on PostgreSQL in
    one statement): versions and bots without the upload, entrant numbers."""
    from tournaments.services.playing import _claim_and_load, seats_to_play, worker_name

    match = tournament.matches.order_by("pk").first()
    with django_assert_max_num_queries(1 if connection.vendor == "postgresql" else 4):
        claimed, seats = _claim_and_load(match.pk)
    assert claimed.pk == match.pk and claimed.status == Match.Status.RUNNING
    assert claimed.attempts == 1 and claimed.worker == worker_name()
    assert claimed.options == match.options and claimed.seed == match.seed
    assert claimed.started_at == Match.objects.get(pk=match.pk).started_at
    expected = seats_to_play(match.pk)

    def shown(seat):
        version = seat.version
        return (seat.pk, seat.seat, seat.entrant, version.label, version.sha256, seat.match.pk)

    assert [shown(seat) for seat in seats] == [shown(seat) for seat in expected]
    assert all(seat.entrant is not None for seat in seats)
    assert all("upload" in seat.version.get_deferred_fields() for seat in seats)
    assert _claim_and_load(match.pk) is None  # claimed once


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's commit setting")
def test_a_workers_claim_outside_a_transaction_leaves_its_session_synchronous(
    tournament, transactional_db, django_assert_max_num_queries
):
    """A worker claims in autocommit mode: the claim's own commit skips the WAL flush
    (tournaments/services/claiming.py), still one round trip, and nothing after it does:
    the result's commit, inline or on the recording thread, reaches the disk before it
    returns (tournaments/services/recorder.py)."""
    from tournaments.services.playing import _claim_and_load

    match = tournament.matches.order_by("pk").first()
    with connection.cursor() as cursor:  # a production session's setting (test databases
        cursor.execute("SET synchronous_commit TO on")  # default to off: template_db)
    with django_assert_max_num_queries(1):
        claimed, seats = _claim_and_load(match.pk)
    assert claimed.pk == match.pk and len(seats) == 2 and seats[0].version.bot.pk
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING  # committed
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone() == ("on",)
    assert _claim_and_load(match.pk) is None


def test_a_database_lost_between_the_claim_and_the_load_leaves_the_match_queued(tournament):
    """The task's retry must find the match claimable again, not running under a claim
    that nobody plays (it would wait minutes for the reaper)."""
    from django.db import OperationalError

    from tournaments.services.playing import play_queued_match

    def lose_the_seats_read(execute, sql, params, many, context):
        # On PostgreSQL the claim and the seats' read are one statement, lost together
        # (sent by its prepared name once this session has sent it before).
        if "tournaments_matchseat" in sql or "EXECUTE" in sql:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    match = tournament.matches.first()
    with connection.execute_wrapper(lose_the_seats_read), pytest.raises(OperationalError):
        play_queued_match(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.attempts == 0
    assert claim_match(match_id=match.pk) == 1
