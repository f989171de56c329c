"""A worker's tournament result takes its pool's ledger position in its first round trip,
and only when that round trip finished the match of a rated tournament."""

from __future__ import annotations

from django.db import connection

from tests.support.builders import outcome
from tournaments import services
from tournaments.models import Match, RatingChange, RatingLedger, Tournament
from tournaments.services.playing import _claim_and_load, record_result

STATEMENTS = 5 if connection.vendor == "postgresql" else 99


def _record(match: Match, ranks: list[int], claimed=None) -> bool:
    if claimed is None:
        claimed = _claim_and_load(match.pk)
    loaded, seats = claimed
    return record_result(
        match_id=match.pk,
        attempt=loaded.attempts,
        outcome=outcome(match=match, ranks=ranks),
        match=loaded,
        seats=seats,
        logs=lambda: ["", ""],
    )


def _one_pairing(tournament) -> tuple[Match, Match]:
    """Two matches of the same versions: the second plays no version's first match."""
    by_versions: dict[frozenset, list[Match]] = {}
    for match in tournament.matches.order_by("pk"):
        versions = frozenset(match.seats.values_list("version_id", flat=True))
        by_versions.setdefault(versions, []).append(match)
    first, second = next(iter(by_versions.values()))[:2]
    return first, second


def _last_seq(pool: str) -> int:
    return RatingLedger.objects.get(pool=pool).last_seq


def test_a_rated_result_is_recorded_in_five_statements(tournament, django_assert_max_num_queries):
    first, second = _one_pairing(tournament)
    assert _record(first, [1, 2])  # the pool's ledger and the versions' ratings now exist
    claimed = _claim_and_load(second.pk)
    with django_assert_max_num_queries(STATEMENTS):
        assert _record(second, [2, 1], claimed=claimed)
    second.refresh_from_db()
    assert second.rated_seq == _last_seq(second.pool) == 2


def test_a_second_delivery_of_the_same_attempt_takes_no_position(tournament):
    first, second = _one_pairing(tournament)
    assert _record(first, [1, 2])
    claimed = _claim_and_load(second.pk)
    assert _record(second, [2, 1], claimed=claimed)
    second.refresh_from_db()
    pool, changes = second.pool, RatingChange.objects.count()
    # The same attempt again, as after a lost answer to its commit: nothing moves.
    assert not _record(second, [1, 2], claimed=claimed)
    assert _last_seq(pool) == 2 and RatingChange.objects.count() == changes
    assert services.recompute_ratings(pool=pool).keys() == {
        c.version_id for c in RatingChange.objects.all()
    }


def test_an_unrated_tournaments_result_takes_no_position(tournament):
    first, second = _one_pairing(tournament)
    assert _record(first, [1, 2])
    first.refresh_from_db()
    Tournament.objects.filter(pk=tournament.pk).update(rated=False)
    assert _record(second, [2, 1])
    second.refresh_from_db()
    assert second.status == Match.Status.FINISHED and second.rated_seq is None
    assert _last_seq(first.pool) == 1
