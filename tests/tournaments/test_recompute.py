"""The streamed recompute equals the live, one-result-at-a-time path, bit for bit, on random
pools: two seats with draws, four seats with shared ranks, teams, new versions from parents."""

from __future__ import annotations

import random

import pytest

from tests.support.builders import bot_with_version, finished_match, version
from tournaments import services
from tournaments.models import Match, Rating, RatingPair
from tournaments.services.recompute import rebuild_ratings, recompute_pairs, recompute_ratings

pytestmark = pytest.mark.django_db

RECORD = ["elo", "matches", "wins", "draws", "losses", "rank_total", "sides_total"]


def live_ratings(pool: str) -> dict[int, tuple]:
    return {
        row[0]: row[1:]
        for row in Rating.objects.filter(pool=pool).values_list("version_id", *RECORD)
    }


def live_pairs(pool: str) -> dict[tuple[int, int], tuple]:
    rows = RatingPair.objects.filter(pool=pool).values_list(
        "first_id", "second_id", "wins", "draws", "losses"
    )
    return {(a, b): (w, d, l) for a, b, w, d, l in rows}  # noqa: E741


def random_pool(seed: int, seats: int, matches: int, *, teams: bool = False) -> str:
    """``matches`` rated matches of ``seats`` seats between six bots, each bot getting a
    new version (from its parent) at a random point; ranks drawn with ties."""
    rng = random.Random(seed)
    bots = [bot_with_version(name=f"b{seed}-{i}") for i in range(6)]
    current = {bot.pk: first for bot, first in bots}
    upgrade_at = {bot.pk: rng.randrange(matches) for bot, _ in bots}
    pool = None
    for i in range(matches):
        for bot, _ in bots:
            if upgrade_at[bot.pk] == i:
                parent = current[bot.pk]
                current[bot.pk] = version(bot=bot, number=parent.number + 1, parent=parent)
        players = [current[bot.pk] for bot, _ in rng.sample(bots, seats)]
        if teams:
            # Two teams of two; members of a team share its rank.
            team_ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
            ranks = [team_ranks[0], team_ranks[1], team_ranks[0], team_ranks[1]]
            match = finished_match(versions=players, ranks=ranks, seed=i, teams=[[0, 2], [1, 3]])
        else:
            ranks = [rng.randint(1, seats) for _ in range(seats)]
            match = finished_match(versions=players, ranks=ranks, seed=i)
        pool = match.pool
    return pool


@pytest.mark.parametrize(
    "seats, teams",
    [(2, False), (4, False), (4, True)],
    ids=["two-seats-draws", "four-seats-ties", "two-teams"],
)
def test_streamed_recompute_equals_the_live_path_exactly(seats, teams):
    pool = random_pool(seats * 10 + teams, seats, 120, teams=teams)
    live = live_ratings(pool)
    assert services.recompute_ratings(pool=pool) == {key: row[0] for key, row in live.items()}
    assert recompute_pairs(pool=pool) == live_pairs(pool)
    assert Match.objects.filter(pool=pool).count() == 120


def test_rebuild_rewrites_ratings_records_and_pairs_as_the_live_path_left_them():
    pool = random_pool(7, 2, 150)
    other = random_pool(8, 4, 30)
    live, pairs, untouched = live_ratings(pool), live_pairs(pool), live_ratings(other)
    # Damage the pool: wrong ratings and records, a lost pair, a stray row.
    Rating.objects.filter(pool=pool).update(elo=0.0, wins=999)
    RatingPair.objects.filter(pool=pool).order_by("pk").first().delete()
    assert live_ratings(pool) != live
    assert rebuild_ratings(pool=pool) == 150
    assert live_ratings(pool) == live
    assert live_pairs(pool) == pairs
    assert live_ratings(other) == untouched  # another pool is not touched


def test_rebuild_leaves_the_leaderboard_rows_as_the_ratings_say():
    from tournaments import selectors
    from tournaments.models import LeaderboardRow
    from tournaments.read_models import leaderboard_rows as leaderboards

    pool = random_pool(9, 2, 80)
    board = selectors.leaderboard_direct(game="pairs", pool=pool)
    Rating.objects.filter(pool=pool).update(elo=0.0)  # ratings damaged, rows follow later
    LeaderboardRow.objects.filter(pool=pool).update(elo=-1.0)
    rebuild_ratings(pool=pool)
    assert selectors.leaderboard(game="pairs", pool=pool) == board
    leaderboards.rebuild_pool(pool=pool)
    assert selectors.leaderboard(game="pairs", pool=pool) == board


def test_a_seat_without_a_rank_is_read_from_the_match_result():
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    for i, ranks in enumerate([[1, 2], [2, 1], [1, 1], [1, 2]]):
        finished_match(versions=[a, b], ranks=ranks, seed=i)
    live = live_ratings("pairs:2")
    # Older rows may carry the ranks only in the result.
    Match.objects.get(seed=2).seats.update(rank=None)
    assert recompute_ratings(pool="pairs:2") == {key: row[0] for key, row in live.items()}


def test_an_empty_pool_recomputes_to_nothing():
    assert recompute_ratings(pool="pairs:2") == {}
    assert rebuild_ratings(pool="pairs:2") == 0


def test_the_two_seat_fast_path_and_the_row_by_row_fold_agree():
    from django.conf import settings
    from django.db import connection, transaction

    from bots.models import BotVersion
    from tournaments.services import recompute

    if connection.vendor != "postgresql":
        pytest.skip("the fast path reads by COPY: PostgreSQL only")
    pool = random_pool(3, 2, 200)
    parents = dict(BotVersion.objects.filter(parent__isnull=False).values_list("pk", "parent_id"))
    k, start = settings.ARENA_ELO_K, settings.ARENA_ELO_START
    with transaction.atomic():
        fast = recompute._fold_two_seat_pool(pool, k, start, parents, ratings_only=False)
        rows = recompute._fold_rows(pool, k, start, parents)
    assert fast.matches == rows.matches == 200
    assert fast.ratings == rows.ratings
    assert fast.records == rows.records
    assert fast.pairs == rows.pairs


def test_a_version_playing_itself_falls_back_and_still_equals_the_live_path():
    pool = random_pool(4, 2, 40)
    a = Rating.objects.filter(pool=pool).order_by("pk").first().version
    finished_match(versions=[a, a], ranks=[1, 2], seed=999)
    for i in range(10):
        b = Rating.objects.filter(pool=pool).order_by("-pk")[i % 3].version
        finished_match(versions=[a, b], ranks=[2, 1], seed=1000 + i)
    live = live_ratings(pool)
    assert recompute_ratings(pool=pool) == {key: row[0] for key, row in live.items()}
    pairs = live_pairs(pool)
    Rating.objects.filter(pool=pool).update(elo=0.0)
    assert rebuild_ratings(pool=pool) == 51
    assert live_ratings(pool) == live
    assert live_pairs(pool) == pairs
