from collections import Counter, defaultdict
from itertools import combinations

import pytest

from tests.support.formats_driver import play
from tournaments.formats import Event, berger_table, round_robin


def test_berger_table_for_four_players_matches_the_reference():
    assert berger_table(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]


@pytest.mark.parametrize("entrants", range(2, 41))
def test_berger_rounds_meet_everyone_once_with_balanced_seats(entrants):
    table = berger_table(entrants)
    assert len(table) == entrants - 1 + entrants % 2
    pairs = Counter(frozenset(p) for rnd in table for p in rnd)
    assert set(pairs.values()) == {1} and len(pairs) == entrants * (entrants - 1) // 2
    firsts = Counter(p[0] for rnd in table for p in rnd)
    seconds = Counter(p[1] for rnd in table for p in rnd)
    for rnd in table:
        players = [x for p in rnd for x in p]
        assert len(players) == len(set(players))
    assert all(abs(firsts[x] - seconds[x]) <= 1 for x in range(1, entrants + 1))


def _old_plan(entrants, players, games):
    """The plan before Berger numbering: the match set and deals must not change."""
    planned = set()
    for group, members in enumerate(combinations(range(entrants), players)):
        for game in range(games):
            shift = game % players
            planned.add((group, members[shift:] + members[:shift], game // players))
    return planned


@pytest.mark.parametrize("entrants", [2, 3, 4, 5, 8, 11, 16])
@pytest.mark.parametrize("games", [1, 2, 4])
def test_two_seat_rounds_have_everyone_at_most_once_and_the_same_matches(entrants, games):
    plan = round_robin(entrants, 2, games, True)
    assert {(p.group, p.entrants, p.deal) for p in plan} == _old_plan(entrants, 2, games)
    by_round = defaultdict(list)
    for p in plan:
        by_round[p.round].extend(p.entrants)
    assert all(len(v) == len(set(v)) for v in by_round.values())
    assert len(by_round) == games * (entrants - 1 + entrants % 2)


@pytest.mark.parametrize("seed", range(5))
def test_round_robin_plays_to_the_end_and_orders_by_points_then_sonneborn_berger(seed):
    finished, results, _ = play("round_robin", Event(7, games_per_pairing=2), seed)
    assert len(results) == 21 * 2
    keys = [(s.points, s.tiebreaks["sonneborn_berger"]) for s in finished.standings]
    assert keys == sorted(keys, reverse=True)
