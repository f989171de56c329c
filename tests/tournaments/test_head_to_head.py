"""Head to head: W-D-L, Elo with its margin and LOS by the fixed-name functions, and pairs."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.builders import bot_with_version, finished_match, version
from tournaments import selectors

pytestmark = pytest.mark.django_db


def test_reference_record_through_the_head_to_head_api():
    # W 45, L 37, D 18 -> Elo +27.9 +- 62.5, LOS 81.2 % (cutechess-cli's figures).
    bot_a, a = bot_with_version(name="a")
    bot_b, b = bot_with_version(name="b")
    seed = 0
    for ranks, count in (([1, 2], 45), ([2, 1], 37), ([1, 1], 18)):
        for _ in range(count):
            seed += 1
            # Alternate seats; every seed differs, so nothing is paired.
            seats, order = ([a, b], ranks) if seed % 2 else ([b, a], ranks[::-1])
            finished_match(versions=seats, ranks=order, seed=seed)
    answer = Client().get(f"/api/head-to-head/?a={bot_a.pk}&b={bot_b.pk}").json()
    assert (answer["wins"], answer["draws"], answer["losses"]) == (45, 18, 37)
    assert answer["elo"] == 27.9 and answer["margin"] == 62.5 and answer["los"] == 81.2
    assert answer["score"] == pytest.approx(0.54)
    assert answer["pairs"]["pairs"] == 0 and answer["pairs"]["elo"] is None
    mirrored = Client().get(f"/api/head-to-head/?a={bot_b.pk}&b={bot_a.pk}").json()
    assert mirrored["elo"] == -27.9 and mirrored["los"] == pytest.approx(18.8)


def test_matches_on_one_deal_with_seats_swapped_count_as_pairs():
    bot_a, a1 = bot_with_version(name="a")
    bot_b, b = bot_with_version(name="b")
    a2 = version(bot=bot_a, number=2, parent=a1)  # any version of the bot counts
    # Deal 1: a wins both (pair score 2); deal 2: one each (1); deal 3: a loses both (0);
    # deal 4: a win and a draw (3/2). A lone match on deal 5 has no partner.
    plan = {1: ([1, 2], [2, 1]), 2: ([1, 2], [1, 2]), 3: ([2, 1], [1, 2]), 4: ([1, 2], [1, 1])}
    for seed, (first, second) in plan.items():
        finished_match(versions=[a1, b], ranks=first, seed=seed)
        finished_match(versions=[b, a2], ranks=second, seed=seed)
    finished_match(versions=[a2, b], ranks=[1, 2], seed=5)
    answer = selectors.head_to_head(pool="pairs:2", first=bot_a, second=bot_b)
    assert answer["games"] == 9
    assert answer["pairs"]["pairs"] == 4
    assert answer["pairs"]["counts"] == [1, 0, 1, 1, 1]
    assert answer["pairs"]["score"] == pytest.approx((0 + 0.5 + 0.75 + 1) / 4)
    assert answer["pairs"]["margin"] is None or answer["pairs"]["margin"] > 0


def test_multi_seat_matches_compare_the_two_by_rank():
    bot_a, a = bot_with_version(name="a")
    bot_b, b = bot_with_version(name="b")
    _, c = bot_with_version(name="c")
    finished_match(versions=[a, b, c], ranks=[2, 3, 1])  # a above b, though neither won
    finished_match(versions=[c, b, a], ranks=[1, 2, 2], seed=2)  # tied
    answer = selectors.head_to_head(pool="pairs:3", first=bot_a, second=bot_b)
    assert (answer["wins"], answer["draws"], answer["losses"]) == (1, 1, 0)


@pytest.mark.parametrize(
    "query, field",
    [
        ("a=1", "b"),
        ("a=x&b=2", "a"),
        ("a={a}&b={a}", "b"),
        ("a={a}&b={punk}", "b"),
        ("a={a}&b={b}&pool=punk:2", "pool"),
        ("a={a}&b=999999", "b"),
    ],
)
def test_bad_queries_are_refused_with_the_api_shape(query, field):
    bot_a, _ = bot_with_version(name="a")
    bot_b, _ = bot_with_version(name="b")
    bot_p, _ = bot_with_version(name="p", game="punk")
    answer = Client().get(
        "/api/head-to-head/?" + query.format(a=bot_a.pk, b=bot_b.pk, punk=bot_p.pk)
    )
    assert answer.status_code == 400
    assert set(answer.json()) == {"detail", "code", "errors"}
    assert field in answer.json()["errors"]


def test_the_bot_page_lists_the_bots_it_met_with_the_reference_figures():
    # W 99, L 97, D 104 against b -> Elo +2.3 +- 31.9, LOS 55.7 %; c is met less often.
    bot_a, a = bot_with_version(name="a")
    bot_b, b = bot_with_version(name="b")
    bot_c, c = bot_with_version(name="c")
    seed = 0
    for ranks, count in (([1, 2], 99), ([2, 1], 97), ([1, 1], 104)):
        for _ in range(count):
            seed += 1
            finished_match(versions=[a, b], ranks=ranks, seed=seed)
    finished_match(versions=[c, a], ranks=[1, 2], seed=seed + 1)
    met = selectors.opponents_met(bot=bot_a)
    assert met["pool"] == "pairs:2"
    first, second = met["opponents"]
    assert (first["bot_id"], first["wins"], first["draws"], first["losses"]) == (
        bot_b.pk, 99, 104, 97,
    )  # fmt: skip
    assert (first["elo"], first["margin"], first["los"]) == (2.3, 31.9, 55.7)
    assert (second["bot_id"], second["games"], second["losses"]) == (bot_c.pk, 1, 1)
    page = Client().get(f"/bots/{bot_a.pk}/").content.decode()
    assert 'id="opponents"' in page and "99-104-97" in page and "2 ± 32" in page


def test_opponents_from_pair_sums_equal_the_count_over_matches():
    """In a two-seat pool the bot page reads the pair sums kept per pair of bots
    (BotOpponent); they must equal scoring every match."""
    import random

    from tournaments.ratings import match as match_stats
    from tournaments.selectors.ratings import _most_met, _scores_by_match

    rng = random.Random(11)
    bot_a, a1 = bot_with_version(name="a")
    a2 = version(bot=bot_a, number=2, parent=a1)
    others = [bot_with_version(name=name)[1] for name in ("b", "c", "d")]
    for seed in range(60):
        mine = rng.choice([a1, a2])
        other = rng.choice(others + [a2 if mine is a1 else a1])  # sometimes itself
        seats = [mine, other] if rng.random() < 0.5 else [other, mine]
        finished_match(versions=seats, ranks=rng.choice([[1, 2], [2, 1], [1, 1]]), seed=seed)
    by_match = {
        other: match_stats.wdl(found)
        for other, found in _scores_by_match(bot=bot_a, pool="pairs:2").items()
    }
    stored = {
        other: record for other, _, record in _most_met(bot_id=bot_a.pk, pool="pairs:2", limit=99)
    }
    assert stored == {o: tuple(r) for o, r in by_match.items()} and len(stored) == 3
    met = selectors.opponents_met(bot=bot_a)
    assert [row["games"] for row in met["opponents"]] == sorted(
        (sum(r) for r in stored.values()), reverse=True
    )
