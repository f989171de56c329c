"""Ratings per pool: live Elo, records, pair sums, the refit, and what the board shows."""

from __future__ import annotations

import math
import random

import pytest
from django.test import Client

from tests.support.builders import bot_with_version, finished_match, version
from tournaments import selectors, services
from tournaments.models import Match, PoolFit, Rating, RatingFit, RatingLedger, RatingPair
from tournaments.ratings import bradley_terry as bt
from tournaments.ratings import pools
from tournaments.services.recompute import recompute_pairs

pytestmark = pytest.mark.django_db


def test_each_rated_match_goes_to_exactly_one_pool_and_pools_never_mix():
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    _, c = bot_with_version(name="c")
    plain = finished_match(versions=[a, b], ranks=[1, 2])
    three = finished_match(versions=[a, b, c], ranks=[1, 2, 3])
    continuous = finished_match(versions=[a, c], ranks=[2, 1], options={"continuous": True})
    assert (plain.pool, three.pool, continuous.pool) == (
        "pairs:2",
        "pairs:3",
        "pairs:2:continuous=true",
    )
    # Each pool has its own ledger, numbering from 1.
    assert [m.rated_seq for m in (plain, three, continuous)] == [1, 1, 1]
    assert set(RatingLedger.objects.values_list("pool", "last_seq")) == {
        ("pairs:2", 1),
        ("pairs:3", 1),
        ("pairs:2:continuous=true", 1),
    }
    assert set(Rating.objects.filter(pool="pairs:2").values_list("version_id", flat=True)) == {
        a.pk,
        b.pk,
    }
    assert set(
        Rating.objects.filter(pool="pairs:2:continuous=true").values_list("version_id", flat=True)
    ) == {a.pk, c.pk}
    # c never played the basic two-seat game: its pair sums are not there.
    assert not RatingPair.objects.filter(pool="pairs:2", second=c).exists()
    assert Rating.objects.get(pool="pairs:2", version=a).wins == 1
    three_a = Rating.objects.get(pool="pairs:3", version=a)
    assert (three_a.wins, three_a.rank_total, three_a.sides_total) == (0, 1, 3)


def test_live_ratings_and_pair_sums_equal_a_recompute_from_scratch():
    rng = random.Random(5)
    _, a = bot_with_version(name="a")
    bot_b, b1 = bot_with_version(name="b")
    _, c = bot_with_version(name="c")
    b2 = None
    for i in range(40):
        if i == 20:  # a new version arrives midway; it starts from its parent
            b2 = version(bot=bot_b, number=2, parent=b1)
        b = b2 or b1
        players = rng.choice([[a, b], [b, c], [a, c], [c, a]])
        finished_match(versions=players, ranks=rng.choice([[1, 2], [2, 1], [1, 1]]), seed=i)
    live = dict(Rating.objects.filter(pool="pairs:2").values_list("version_id", "elo"))
    recomputed = services.recompute_ratings(pool="pairs:2")
    assert live.keys() == recomputed.keys()
    for key in live:
        assert live[key] == pytest.approx(recomputed[key])
    stored = {
        (row.first_id, row.second_id): (row.wins, row.draws, row.losses)
        for row in RatingPair.objects.filter(pool="pairs:2")
    }
    rebuilt = recompute_pairs(pool="pairs:2")
    assert stored.keys() == rebuilt.keys()
    for pair in stored:
        assert stored[pair] == pytest.approx(rebuilt[pair])
    assert sorted(Match.objects.values_list("rated_seq", flat=True)) == list(range(1, 41))


def test_a_new_version_starts_from_its_parents_rating():
    _, a = bot_with_version(name="a")
    bot_b, b1 = bot_with_version(name="b")
    for i in range(5):
        finished_match(versions=[a, b1], ranks=[2, 1], seed=i)
    parent_elo = Rating.objects.get(pool="pairs:2", version=b1).elo
    assert parent_elo > 1500
    b2 = version(bot=bot_b, number=2, parent=b1)
    match = finished_match(versions=[a, b2], ranks=[1, 1], seed=9)
    first = match.rating_changes.get(version=b2)
    assert first.before == pytest.approx(parent_elo)


def test_the_refit_reproduces_the_reference_strengths_through_the_service():
    # The standard 4-team example, played as two-seat matches.
    wins = {("A", "B"): 2, ("A", "D"): 1, ("B", "A"): 3, ("B", "C"): 5}
    wins |= {("C", "B"): 3, ("C", "D"): 1, ("D", "A"): 4, ("D", "C"): 3}
    teams = {name: bot_with_version(name=name)[1] for name in "ABCD"}
    seed = 0
    for (winner, loser), count in wins.items():
        for _ in range(count):
            seed += 1
            finished_match(versions=[teams[winner], teams[loser]], ranks=[1, 2], seed=seed)
    fit = services.fit_pool(pool="pairs:2")
    assert fit.seq == 22 and fit.players == 4 and fit.converged
    fitted = {row.version_id: row for row in RatingFit.objects.filter(pool="pairs:2")}
    expected = {"A": -77.6, "B": 7.4, "C": -72.2, "D": 142.4}
    for name, elo in expected.items():
        assert round(fitted[teams[name].pk].elo - fit.anchor, 1) == elo
    # Anchored at the live average: the pool's mean stays where it was.
    live = Rating.objects.filter(pool="pairs:2").values_list("elo", flat=True)
    assert sum(row.elo for row in fitted.values()) / 4 == pytest.approx(sum(live) / 4)
    # The refit cleared the request; a new result asks again.
    assert RatingLedger.objects.get(pool="pairs:2").fit_requested_at is None
    finished_match(versions=[teams["A"], teams["B"]], ranks=[1, 2], seed=99)
    assert RatingLedger.objects.get(pool="pairs:2").fit_requested_at is not None


def test_the_board_shows_the_fit_with_its_interval_los_and_provisional_rows(settings):
    settings.ARENA_PROVISIONAL_GAMES = 30
    rng = random.Random(1)
    strong_bot, strong = bot_with_version(name="strong")
    _, weak = bot_with_version(name="weak")
    _, middle = bot_with_version(name="middle")
    bot_with_version(name="idle")
    for i in range(60):
        a, b = rng.sample([strong, weak, middle], 2)
        strength = {strong.pk: 2, middle.pk: 1, weak.pk: 0}
        better = a if strength[a.pk] > strength[b.pk] else b
        worse = b if better is a else a
        ranks = [1, 2] if rng.random() < 0.75 else [2, 1]
        finished_match(versions=[better, worse], ranks=ranks, seed=i)
    services.fit_pool(pool="pairs:2")
    board = selectors.leaderboard(game="pairs")
    by_bot = {row["bot"]: row for row in board}
    assert [row["bot"] for row in board] == ["strong", "middle", "weak", "idle"]
    for name in ("strong", "middle", "weak"):
        row = by_bot[name]
        assert row["estimate"] == "fit"
        assert row["elo_low"] < row["elo"] < row["elo_high"]
        assert row["wins"] + row["draws"] + row["losses"] == row["games"]
        assert row["provisional"] == (row["games"] < 30)
    for name in ("strong", "middle"):
        assert 50 <= by_bot[name]["los_next"] <= 100
    idle = by_bot["idle"]
    assert idle["estimate"] == "none" and idle["games"] == 0 and idle["provisional"]
    # LOS is between rated rows: the last rated row has none after it.
    assert by_bot["weak"]["los_next"] is None
    assert idle["los_next"] is None and idle["elo_high"] - idle["elo_low"] > 1000
    # The interval is the fit's: 1.96 of its standard deviations each side.
    fitted = RatingFit.objects.get(pool="pairs:2", version=strong)
    assert by_bot["strong"]["elo_high"] == pytest.approx(fitted.elo + 1.96 * fitted.stdev, abs=0.1)
    # A new version with no games: its parent's figure, much wider.
    new = version(bot=strong_bot, number=2, parent=strong)
    row = {r["bot"]: r for r in selectors.leaderboard(game="pairs")}["strong"]
    assert row["version"] == 2 and row["estimate"] == "parent" and row["games"] == 0
    assert row["position"] == 1  # keeps its bot's place
    assert row["elo"] == by_bot["strong"]["elo"]
    assert row["elo_high"] - row["elo_low"] > 3 * (
        by_bot["strong"]["elo_high"] - by_bot["strong"]["elo_low"]
    )
    # After a game it is a live estimate until the next fit, then the fit's.
    finished_match(versions=[new, weak], ranks=[1, 2], seed=500)
    row = {r["bot"]: r for r in selectors.leaderboard(game="pairs")}["strong"]
    assert row["estimate"] == "live" and row["games"] == 1
    services.fit_pool(pool="pairs:2")
    row = {r["bot"]: r for r in selectors.leaderboard(game="pairs")}["strong"]
    assert row["estimate"] == "fit" and row["elo_high"] - row["elo_low"] > 200


def test_multi_seat_rows_carry_an_average_rank_instead_of_wins():
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    _, c = bot_with_version(name="c")
    finished_match(versions=[a, b, c], ranks=[1, 2, 3])
    finished_match(versions=[c, a, b], ranks=[3, 1, 2], seed=2)
    rows = {r["bot"]: r for r in selectors.leaderboard(game="pairs", pool="pairs:3")}
    assert rows["a"]["average_rank"] == 1.0 and rows["b"]["average_rank"] == 2.0
    assert rows["a"]["wins"] is None


def test_leaderboard_api_takes_a_pool_and_refuses_bad_ones():
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    finished_match(versions=[a, b], ranks=[1, 2], options={"continuous": True})
    client = Client()
    answer = client.get("/api/leaderboards/pairs/").json()
    assert answer["pool"] == "pairs:2" and answer["pool_label"] == "Pairs, 2 players"
    assert [p["key"] for p in answer["pools"]] == ["pairs:2", "pairs:2:continuous=true"]
    assert all(row["games"] == 0 for row in answer["ratings"])
    answer = client.get("/api/leaderboards/pairs/?pool=pairs:2:continuous=true").json()
    assert {r["bot"]: r["games"] for r in answer["ratings"]} == {"a": 1, "b": 1}
    row = answer["ratings"][0]
    for name in ("elo", "elo_low", "elo_high", "los_next", "provisional", "games", "wins"):
        assert name in row
    for bad in ("punk:2", "pairs:2:stake=3", "nonsense", "pairs:99"):
        refused = client.get(f"/api/leaderboards/pairs/?pool={bad}")
        assert refused.status_code == 400
        assert (
            set(refused.json()) == {"detail", "code", "errors"}
            and "pool" in refused.json()["errors"]
        )


def test_history_api_gives_a_version_per_point_and_one_series_per_version():
    _, a = bot_with_version(name="a")
    bot_b, b1 = bot_with_version(name="b")
    finished_match(versions=[a, b1], ranks=[1, 2])
    b2 = version(bot=bot_b, number=2, parent=b1)
    finished_match(versions=[a, b2], ranks=[2, 1], seed=2)
    finished_match(versions=[b2, a], ranks=[1, 2], seed=3)
    finished_match(versions=[a, b2], ranks=[1, 2], seed=4, options={"continuous": True})
    answer = Client().get(f"/api/bots/{bot_b.pk}/ratings/").json()
    assert answer["pool"] == "pairs:2"
    assert [p["version"] for p in answer["history"]] == [1, 2, 2]
    assert [s["version"] for s in answer["series"]] == [1, 2]
    # v2's series starts where v1's ended: no crash at the version change.
    assert answer["series"][1]["points"][0]["before"] == answer["series"][0]["points"][-1]["after"]
    other = Client().get(f"/api/bots/{bot_b.pk}/ratings/?pool=pairs:2:continuous=true").json()
    assert [p["version"] for p in other["history"]] == [2]
    assert Client().get(f"/api/bots/{bot_b.pk}/ratings/?pool=punk:2").status_code == 400
    # The latest points only, across versions, oldest first; the count says how many exist.
    latest = Client().get(f"/api/bots/{bot_b.pk}/ratings/?limit=2").json()
    assert latest["rated_matches"] == 3
    assert [p["seq"] for p in latest["history"]] == [p["seq"] for p in answer["history"][-2:]]
    for bad in ("0", "5001", "x"):
        assert Client().get(f"/api/bots/{bot_b.pk}/ratings/?limit={bad}").status_code == 400


def test_refit_stale_pools_asks_for_pools_behind_their_ledger():
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    finished_match(versions=[a, b], ranks=[1, 2])
    RatingLedger.objects.update(fit_requested_at=None)  # as if the message was lost
    assert services.refit_stale_pools() == ["pairs:2"]
    assert services.refit_stale_pools() == []  # asked already
    services.fit_pool(pool="pairs:2")
    assert PoolFit.objects.get(pool="pairs:2").seq == 1
    assert services.refit_stale_pools() == []


def test_new_player_stdev_matches_a_fit_against_equals():
    # A player with n even games against a well-known opponent gets about this spread.
    records = [bt.PairRecord("x", "anchor", wins=20, losses=20)]
    records += [bt.PairRecord("anchor", f"o{i}", wins=500, losses=500) for i in range(3)]
    # Without the exact covariance a spread is 1 / sqrt(information), as new_player_stdev.
    fit = bt.fit(records + [bt.PairRecord("x", "anchor", draws=1)], exact_limit=0)
    assert fit.stdev["x"] == pytest.approx(bt.new_player_stdev(40), rel=0.1)
    assert math.isclose(bt.new_player_stdev(0), 400 / math.log(10) * 2)


def test_pool_key_of_every_rated_match_parses_back():
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    match = finished_match(
        versions=[a, b], ranks=[1, 2], options={"gambling": "tacoma", "stake": 3}
    )
    parsed = pools.parse(match.pool)
    assert parsed.options == {"gambling": "tacoma", "stake": 3}


def test_pool_fit_info_reads_the_ledger_with_or_without_a_fit(django_assert_num_queries):
    assert selectors.pool_fit_info(pool="pairs:2") is None
    _, a = bot_with_version(name="a")
    _, b = bot_with_version(name="b")
    finished_match(versions=[a, b], ranks=[1, 2], seed=1)
    finished_match(versions=[b, a], ranks=[1, 2], seed=2)
    # Rated, never fitted: the ledger's count alone.
    assert selectors.pool_fit_info(pool="pairs:2") == {
        "pool": "pairs:2",
        "rated_matches": 2,
        "fitted_matches": 0,
        "fitted_at": None,
        "versions": 0,
        "seconds": None,
    }
    fit = services.fit_pool(pool="pairs:2")
    finished_match(versions=[a, b], ranks=[2, 1], seed=3)
    with django_assert_num_queries(1):  # a fitted pool: its fit and ledger together
        info = selectors.pool_fit_info(pool="pairs:2")
    assert info == {
        "pool": "pairs:2",
        "rated_matches": 3,
        "fitted_matches": fit.seq,
        "fitted_at": fit.fitted_at,
        "versions": fit.players,
        "seconds": round(fit.seconds, 3),
    }
    assert fit.seq == 2
