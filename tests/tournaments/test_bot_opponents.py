"""Each bot's results against each other bot (``BotOpponent``) equal the pool's pair sums
summed over each bot's versions, both directions, after every kind of write: rated results
of two, three and four seats (teams, two versions of one bot at a table, new versions), a
result recorded by a worker, a rebuild of the ratings, the rebuild command and the
migration's backfill."""

from __future__ import annotations

import importlib
import random
from collections import defaultdict

import pytest
from django.core.management import call_command
from django.db import connection

from tests.support.builders import (
    active_bots,
    bot_with_version,
    finished_match,
    play_queued,
    record_random_result,
    started_tournament,
    user,
    version,
)
from tests.tournaments.test_recompute import random_pool
from tournaments.models import BotOpponent, Match, RatingPair
from tournaments.read_models import opponents
from tournaments.services.recompute import rebuild_ratings

pytestmark = pytest.mark.django_db

backfill_migration = importlib.import_module("tournaments.migrations.0027_bot_opponents")


def stored() -> dict[tuple, tuple]:
    rows = BotOpponent.objects.values_list(
        "pool", "bot_id", "opponent_id", "wins", "draws", "losses"
    )
    return {(pool, bot, other): (w, d, l) for pool, bot, other, w, d, l in rows}  # noqa: E741


def from_pairs() -> dict[tuple, tuple]:
    """What the rows must be: every pair sum added to both of its bots' rows."""
    sums: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    rows = RatingPair.objects.values_list(
        "pool", "first__bot_id", "second__bot_id", "wins", "draws", "losses"
    )
    for pool, first, second, wins, draws, losses in rows:
        if first == second:
            continue
        for key, record in (
            ((first, second), (wins, draws, losses)),
            ((second, first), (losses, draws, wins)),
        ):
            for i, value in enumerate(record):
                sums[(pool, *key)][i] += value
    return {key: tuple(values) for key, values in sums.items()}


def assert_equal_to_the_pairs() -> None:
    expected, found = from_pairs(), stored()
    assert found.keys() == expected.keys()
    for key, record in expected.items():
        assert found[key] == pytest.approx(record, abs=1e-9), key
    assert expected  # something was rated


@pytest.mark.parametrize(
    "seats, teams", [(2, False), (3, False), (4, True)], ids=["two", "three", "teams"]
)
def test_rated_results_keep_the_rows_equal_to_the_pair_sums(seats, teams):
    random_pool(seats * 10 + teams, seats, 40, teams=teams)
    assert_equal_to_the_pairs()


def test_two_versions_of_one_bot_at_a_table_count_against_the_others_only():
    bot_a, a1 = bot_with_version(name="a")
    a2 = version(bot=bot_a, number=2, parent=a1)
    bot_b, b = bot_with_version(name="b")
    finished_match(versions=[a1, a2], ranks=[1, 2])  # the bot against itself: no row
    assert not BotOpponent.objects.exists()
    finished_match(versions=[a1, b, a2], ranks=[1, 2, 3], seed=2)
    assert_equal_to_the_pairs()
    # v1 above b, v2 below it: half a game won and half lost (three seats weigh 1/2).
    assert stored()[("pairs:3", bot_a.pk, bot_b.pk)] == (0.5, 0.0, 0.5)
    assert stored()[("pairs:3", bot_b.pk, bot_a.pk)] == (0.5, 0.0, 0.5)


def test_a_result_recorded_by_a_worker_moves_the_rows():
    organiser = user(name="organiser")
    bots = active_bots(owner=organiser, count=4)
    tournament = started_tournament(organiser=organiser, bots=bots, rated=True)
    rng = random.Random(3)
    for match in Match.objects.filter(tournament=tournament, status="queued")[:3]:
        record_random_result(match=match, rng=rng)
    assert_equal_to_the_pairs()
    assert play_queued(tournament_id=tournament.pk) > 0
    assert_equal_to_the_pairs()


def test_rebuilds_write_the_rows_again_from_the_pairs():
    pool = random_pool(5, 2, 60)
    other = random_pool(6, 3, 20)
    kept = {key: row for key, row in stored().items() if key[0] == other}
    # Damaged rows, a lost one and a stray one.
    BotOpponent.objects.filter(pool=pool).update(wins=99.0)
    BotOpponent.objects.filter(pool=pool).order_by("pk").first().delete()
    some = BotOpponent.objects.filter(pool=other).first()
    BotOpponent.objects.create(pool=pool, bot_id=some.bot_id, opponent_id=some.opponent_id)
    rebuild_ratings(pool=pool)
    assert_equal_to_the_pairs()
    assert {key: row for key, row in stored().items() if key[0] == other} == kept

    BotOpponent.objects.all().update(draws=5.0)
    call_command("rebuild_read_models", only=["opponents"], verbosity=0)
    assert_equal_to_the_pairs()

    BotOpponent.objects.all().delete()
    with connection.cursor() as cursor:  # what the migration's backfill runs
        cursor.execute(backfill_migration.BACKFILL)
    assert_equal_to_the_pairs()
    BotOpponent.objects.all().delete()
    assert opponents.rebuild_pool(pool=pool) > 0
    assert {key[0] for key in stored()} == {pool}
