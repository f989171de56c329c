"""The pools migration: ratings kept per game become ratings per pool, rebuilt from matches."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("bots", "0003_version_status_disabled"), ("tournaments", "0003_loop_seat_log")]
AFTER = [("bots", "0004_gating_parents"), ("tournaments", "0004_ratings_pools")]


@pytest.mark.django_db(transaction=True)
def test_existing_ratings_move_to_the_pool_of_each_match():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="old")
    Bot, Version = old.get_model("bots", "Bot"), old.get_model("bots", "BotVersion")
    Match, Rating = old.get_model("tournaments", "Match"), old.get_model("tournaments", "Rating")
    Ledger = old.get_model("tournaments", "RatingLedger")
    versions = []
    for name in "abc":
        bot = Bot.objects.create(owner=user, name=name, game="pairs")
        versions.append(
            Version.objects.create(
                bot=bot, number=1, filename="m.py", upload=b"", sha256="0", size=0,
                status="active",
            )
        )  # fmt: skip
    a, b, c = versions
    a2 = Version.objects.create(
        bot=a.bot, number=2, filename="m.py", upload=b"", sha256="1", size=0, status="active"
    )
    plan = [
        ([a, b], [1, 2], {}),
        ([a, b, c], [1, 2, 3], {}),
        ([b, c], [1, 2], {"continuous": True}),
        ([a2, b], [1, 1], {}),
    ]
    for seq, (seats, ranks, options) in enumerate(plan, start=1):
        match = Match.objects.create(
            game="pairs", engine_version=1, options=options, seed=seq, status="finished",
            rated_seq=seq,
            result={"seats": [{"score": 0, "rank": r} for r in ranks], "teams": []},
        )  # fmt: skip
        for seat, (version, rank) in enumerate(zip(seats, ranks)):
            match.seats.create(seat=seat, version_id=version.pk, rank=rank)
    # The per-game ratings as the old code kept them (whatever they were).
    for version in versions:
        Rating.objects.create(game="pairs", version_id=version.pk, elo=1234.0, matches=9)
    Ledger.objects.create(game="pairs", last_seq=4)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    Match = new.get_model("tournaments", "Match")
    Rating = new.get_model("tournaments", "Rating")
    Ledger = new.get_model("tournaments", "RatingLedger")
    assert list(Match.objects.order_by("seed").values_list("pool", "rated_seq")) == [
        ("pairs:2", 1),
        ("pairs:3", 1),
        ("pairs:2:continuous=true", 1),
        ("pairs:2", 2),
    ]
    assert dict(Ledger.objects.values_list("pool", "last_seq")) == {
        "pairs:2": 2,
        "pairs:3": 1,
        "pairs:2:continuous=true": 1,
    }
    two = {r.version_id: r for r in Rating.objects.filter(pool="pairs:2")}
    assert two[a.pk].elo == pytest.approx(1512.0) and two[b.pk].matches == 2
    # a's second version got its parent, and started from a's rating.
    assert new.get_model("bots", "BotVersion").objects.get(pk=a2.pk).parent_id == a.pk
    assert two[a2.pk].elo == pytest.approx(1512.0 + 24 * (0.5 - 1 / (1 + 10 ** (-24 / 400))))
    assert Rating.objects.filter(pool="pairs:3").count() == 3
    assert new.get_model("tournaments", "RatingPair").objects.filter(pool="pairs:3").count() == 3
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
