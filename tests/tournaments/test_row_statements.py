"""A batch's statements marked ``prepare``: on PostgreSQL prepared the second time the
session sends them and executed by name after, with the same answers at the same
positions; a failed send never leaves a name that the session may not hold."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from tests.support.builders import active_bots, user
from tournaments.models import Rating
from tournaments.models.row_statements import Batch, insert_rows, update_rows

pytestmark = pytest.mark.django_db

POSTGRES = connection.vendor == "postgresql"


@pytest.fixture
def ratings() -> list[Rating]:
    versions = [bot.versions.get() for bot in active_bots(owner=user(name="rows"), count=2)]
    return [
        Rating.objects.create(pool="pairs:2", version=version, elo=1500.0) for version in versions
    ]


def prepared() -> set[str]:
    """The session's prepared statements (the tests' session keeps earlier tests' too)."""
    if not POSTGRES:
        return set()
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE 'arena_rows_%%'")
        return {name for (name,) in cursor.fetchall()}


def send_rows(ratings: list[Rating], elo: float) -> list:
    batch = Batch()
    batch.add("SELECT %s", [7])
    update_rows(
        Rating,
        keys=["id"],
        fields=["elo", "matches"],
        rows=[(r.pk, elo + i, 3) for i, r in enumerate(ratings)],
        batch=batch,
    )
    counted = batch.add(
        "SELECT count(*) FROM tournaments_rating WHERE elo >= %s AND pool = %s",
        [elo, "pairs:2"],
    )
    return [batch.send()[0], batch.results[1], batch.results[counted]]


def test_a_statement_is_prepared_the_second_time_and_answers_the_same(ratings):
    before = prepared()
    answers = [send_rows(ratings, 1600.0 + 100 * n) for n in range(4)]
    for first, updated, counted in answers:
        assert first.rows == [(7,)]
        assert updated.rowcount == 2 and updated.rows is None
        assert counted.rows == [(2,)]
        elos = sorted(Rating.objects.values_list("elo", flat=True))
        assert elos[0] >= 1600.0  # the last send's values stand
    assert sorted(Rating.objects.values_list("elo", flat=True)) == [1900.0, 1901.0]
    if POSTGRES:
        assert len(prepared() - before) == 1  # the update; the plain statements not marked


def test_inserts_are_prepared_too(ratings):
    from tournaments.models import RatingPair

    before = prepared()
    for _ in range(3):
        batch = Batch()
        insert_rows(
            RatingPair,
            fields=["pool", "first", "second", "wins", "draws", "losses"],
            rows=[("pairs:2", ratings[0].version_id, ratings[1].version_id, 1.0, 0.0, 0.0)],
            batch=batch,
            suffix="ON CONFLICT (pool, first_id, second_id) DO UPDATE SET"
            " wins = {table}.wins + excluded.wins",
        )
        batch.send()
    assert RatingPair.objects.get().wins == 3.0
    if POSTGRES:
        assert len(prepared() - before) == 1


@pytest.mark.skipif(not POSTGRES, reason="SQLite prepares nothing")
def test_a_failed_send_reuses_no_name(ratings):
    send_rows(ratings, 1500.0)  # seen once (or prepared already, by an earlier test)
    with pytest.raises(DatabaseError), transaction.atomic():
        batch = Batch()
        update_rows(
            Rating,
            keys=["id"],
            fields=["elo", "matches"],
            rows=[(r.pk, 1.0, 3) for r in ratings],
            batch=batch,
        )  # prepared here, then the batch fails after it
        batch.add("SELECT 1 / 0")
        batch.send()
    before = prepared()
    # The session still holds that name, but the batch does not count on it: it prepares
    # the update again under a new name and the send succeeds.
    assert send_rows(ratings, 1700.0)[1].rowcount == 2
    assert send_rows(ratings, 1800.0)[1].rowcount == 2
    assert len(prepared() - before) == 1
    assert sorted(Rating.objects.values_list("elo", flat=True)) == [1800.0, 1801.0]
