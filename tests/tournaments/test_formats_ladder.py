"""Ladder matchmaking: new versions first, neighbours by rating, tournaments never starved."""

from __future__ import annotations

import random

import pytest

from tournaments.formats.ladder import Candidate, Policy, choose_tables, settled, tables_wanted

POLICY = Policy(slots=2)


def pool(rng: random.Random, size: int, games: int = 100) -> list[Candidate]:
    return [Candidate(v, rng.gauss(1500, 200), games, 60.0) for v in range(1, size + 1)]


@pytest.mark.parametrize("seed", range(50))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_new_version_gets_the_first_table(seed, players):
    rng = random.Random(seed)
    candidates = pool(rng, rng.randint(players, 30))
    newcomer = Candidate(999, 1500.0, 0)
    candidates.insert(rng.randint(0, len(candidates)), newcomer)
    tables = choose_tables(candidates, players=players, count=2, policy=POLICY, rng=rng)
    assert tables[0][0] == 999
    assert all(len(t) == players == len(set(t)) for t in tables)


@pytest.mark.parametrize("seed", range(30))
def test_a_new_version_plays_every_table_until_placed(seed):
    """Across successive rounds a newcomer sits at a table each time until its placement is done."""
    rng = random.Random(seed)
    candidates = pool(rng, 12)
    games = 0
    while games < POLICY.placement_games:
        current = [*candidates, Candidate(999, 1500.0, games)]
        tables = choose_tables(current, players=2, count=1, policy=POLICY, rng=rng)
        assert 999 in tables[0]
        games += 2  # one table is a duplicate pair of games


@pytest.mark.parametrize("seed", range(30))
def test_opponents_are_mostly_the_nearest_in_rating(seed):
    rng = random.Random(seed)
    candidates = [Candidate(v, 1000.0 + 50 * v, 100, 40.0) for v in range(20)]
    focus = Candidate(100, 1510.0, 5)  # between versions 10 (1500) and 11 (1550)
    policy = Policy(exploration=0.0)
    tables = choose_tables([*candidates, focus], players=3, count=1, policy=policy, rng=rng)
    assert tables == [(100, 10, 11)]


def test_exploration_reaches_far_opponents():
    rng = random.Random(5)
    candidates = [Candidate(v, 1000.0 + 50 * v, 100, 40.0) for v in range(20)]
    focus = Candidate(100, 1510.0, 5)
    met = set()
    for _ in range(400):
        (table,) = choose_tables([*candidates, focus], players=2, count=1, policy=POLICY, rng=rng)
        met.add(table[1])
    assert {10, 11} <= met and len(met) > 10


@pytest.mark.parametrize("backlog", [1, 5, 1000])
def test_tournaments_take_precedence(backlog):
    candidates = [Candidate(1, 1500.0, 0), Candidate(2, 1500.0, 0)]
    wanted = tables_wanted(
        candidates,
        players=2,
        policy=POLICY,
        ladder_busy=0,
        tournament_backlog=backlog,
        seconds_since_last=None,
    )
    assert wanted == 0


def test_slots_bound_the_ladder():
    candidates = [Candidate(1, 1500.0, 0), Candidate(2, 1500.0, 0)]
    args = dict(players=2, policy=POLICY, tournament_backlog=0, seconds_since_last=None)
    assert tables_wanted(candidates, ladder_busy=0, **args) == 2
    assert tables_wanted(candidates, ladder_busy=1, **args) == 1
    assert tables_wanted(candidates, ladder_busy=2, **args) == 0
    assert tables_wanted(candidates[:1], ladder_busy=0, **args) == 0  # nobody to play


def test_a_settled_pool_trickles_and_a_newcomer_wakes_it():
    policy = Policy(slots=4, trickle_seconds=600)
    calm = [Candidate(v, 1500.0 + v, 200, 80.0) for v in range(5)]
    assert all(settled(c, policy) for c in calm)
    args = dict(players=2, policy=policy, ladder_busy=0, tournament_backlog=0)
    assert tables_wanted(calm, seconds_since_last=30, **args) == 0
    assert tables_wanted(calm, seconds_since_last=900, **args) == 1
    woken = [*calm, Candidate(9, 1500.0, 0)]
    assert tables_wanted(woken, seconds_since_last=30, **args) == 4


def test_a_wide_interval_is_not_settled():
    policy = Policy()
    assert not settled(Candidate(1, 1500.0, 500, 400.0), policy)
    assert settled(Candidate(1, 1500.0, 500, 100.0), policy)
    assert not settled(Candidate(1, 1500.0, 3, 10.0), policy)
