"""A competition's divisions as pure logic: cutting, a cycle's table, promotion and
relegation, and the ladder tables' deal seeds (no Django)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from games.rng import derive_seed
from tournaments.formats.divisions import (
    Game,
    competition_table_seed,
    division_table,
    moves,
    next_divisions,
    promoted,
    split,
)

# --- deal seeds ---------------------------------------------------------------------------


def test_a_table_seed_is_the_documented_derivation_of_the_competition_seed():
    # The archive's verifier recomputes it from the revealed seed: the formula is the contract.
    assert competition_table_seed(12345, 7) == derive_seed(12345, "competition-table", 7) >> 2


def test_table_seeds_differ_by_table_and_by_competition_and_fit_a_signed_column():
    seeds = {competition_table_seed(seed, t) for seed in (1, 2, 2**61) for t in range(1, 200)}
    assert len(seeds) == 3 * 199
    assert all(0 <= s < 2**62 for s in seeds)
    assert competition_table_seed(99, 3) == competition_table_seed(99, 3)


# --- cutting ------------------------------------------------------------------------------


def test_no_size_is_one_division_of_everyone():
    assert split([5, 3, 9], size=None) == [[5, 3, 9]]


def test_nobody_no_division():
    assert split([], size=4) == []
    assert split([], size=None) == []


def test_an_exact_multiple_cuts_even_divisions_top_first():
    assert split(list(range(12)), size=4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_a_remainder_that_can_play_is_a_division_of_its_own():
    assert split(list(range(10)), size=4, minimum=2) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_a_remainder_too_small_to_play_joins_the_division_above():
    assert split(list(range(9)), size=4, minimum=2) == [[0, 1, 2, 3], [4, 5, 6, 7, 8]]
    # A 3-seat game: a remainder of two cannot fill a table.
    assert split(list(range(8)), size=3, minimum=3) == [[0, 1, 2], [3, 4, 5, 6, 7]]


def test_fewer_entrants_than_a_division_is_one_division():
    assert split([1, 2, 3], size=8) == [[1, 2, 3]]
    assert split([1], size=8) == [[1]]


def test_a_size_below_the_seats_of_a_table_counts_as_the_seats():
    assert split(list(range(6)), size=2, minimum=3) == [[0, 1, 2], [3, 4, 5]]


def test_an_entrant_twice_is_refused():
    with pytest.raises(ValueError):
        split([1, 2, 1], size=2)


@pytest.mark.parametrize("seed", range(40))
def test_cutting_keeps_the_order_and_every_division_can_play(seed):
    rng = random.Random(seed)
    minimum = rng.randint(2, 4)
    size = rng.randint(minimum, 9)
    order = rng.sample(range(1000), rng.randint(minimum, 60))
    divisions = split(order, size=size, minimum=minimum)
    assert [e for d in divisions for e in d] == order
    assert all(len(d) == size for d in divisions[:-1])
    assert minimum <= len(divisions[-1]) < size + minimum


# --- a division's table -------------------------------------------------------------------


def places(rows):
    return [row.entrant for row in rows]


def test_wins_losses_and_draws_score_as_the_formats_do():
    rows = division_table(
        [10, 20, 30],
        [
            Game((10, 20), (1, 2)),
            Game((20, 10), (2, 1)),
            Game((10, 30), (1, 1)),  # a draw: half a point each
            Game((30, 20), (1, 2)),
        ],
    )
    assert places(rows) == [10, 30, 20]
    by = {row.entrant: row for row in rows}
    assert by[10].points == Fraction(5, 2) and by[10].games == 3
    assert by[10].score == Fraction(5, 6)
    assert by[30].points == Fraction(3, 2) and by[30].score == Fraction(3, 4)
    assert by[20].points == 0 and by[20].games == 3
    assert [row.place for row in rows] == [1, 2, 3]


def test_three_seats_score_by_place_with_shared_places_halved():
    rows = division_table([1, 2, 3], [Game((1, 2, 3), (1, 2, 2))])
    by = {row.entrant: row.points for row in rows}
    # Seat 1 beats both; seats 2 and 3 tie each other and lose to seat 1.
    assert by == {1: Fraction(1), 2: Fraction(1, 4), 3: Fraction(1, 4)}


def test_points_per_game_not_the_total_rank_the_table():
    # 7 has 3 wins of 4 games; 8 wins its only game: 1 per game beats 3/4.
    games = [Game((7, 9), (1, 2))] * 3 + [Game((9, 7), (1, 2)), Game((8, 9), (1, 2))]
    rows = division_table([7, 8, 9], games)
    assert places(rows) == [8, 7, 9]
    assert rows[1].points == 3 and rows[1].score == Fraction(3, 4)


def test_level_on_points_per_game_more_games_first():
    games = [Game((1, 3), (1, 2)), Game((2, 3), (1, 2)), Game((2, 3), (1, 2))]
    assert places(division_table([1, 2, 3], games)) == [2, 1, 3]


def test_a_cycle_of_head_to_head_wins_falls_to_the_given_order():
    # 1 beat 2, 2 beat 3, 3 beat 1: level on everything the table counts.
    games = [Game((1, 2), (1, 2)), Game((2, 3), (1, 2)), Game((3, 1), (1, 2))]
    assert places(division_table([1, 2, 3], games)) == [1, 2, 3]
    assert places(division_table([3, 2, 1], games)) == [3, 2, 1]


def test_head_to_head_breaks_a_two_way_tie():
    # 1 and 2 both score 2 of 3 and play 3 games; 2 beat 1 where they met.
    games = [
        Game((2, 1), (1, 2)),
        Game((1, 3), (1, 2)),
        Game((1, 3), (1, 2)),
        Game((2, 3), (1, 2)),
        Game((3, 2), (1, 2)),
    ]
    rows = division_table([1, 2, 3], games)
    by = {r.entrant: (r.score, r.games) for r in rows}
    assert by[1] == by[2] == (Fraction(2, 3), 3)
    assert places(rows) == [2, 1, 3]


def test_a_complete_tie_keeps_the_given_order():
    games = [Game((1, 2), (1, 1)), Game((2, 1), (1, 1))]
    assert places(division_table([2, 1], games)) == [2, 1]
    assert places(division_table([1, 2], games)) == [1, 2]


def test_an_entrant_who_played_nothing_is_below_everyone_who_played():
    rows = division_table([5, 6, 7], [Game((6, 7), (2, 1))] * 2)
    assert places(rows) == [7, 6, 5]
    assert rows[-1].games == 0 and rows[-1].score == 0


def test_a_seat_of_someone_gone_still_counts_for_the_others():
    # 99 was disqualified: its games stay, its row does not.
    rows = division_table([1, 2], [Game((1, 99), (1, 2)), Game((99, 2), (1, 2))])
    assert places(rows) == [1, 2]
    assert {r.entrant: r.points for r in rows} == {1: 1, 2: 0}
    three = division_table([1], [Game((98, 1, 99), (1, 2, 3))])
    assert three[0].points == Fraction(1, 2)


def test_a_table_of_nobody_and_bad_input():
    assert division_table([], [Game((1, 2), (1, 2))]) == []
    with pytest.raises(ValueError):
        division_table([1, 1], [])
    with pytest.raises(ValueError):
        division_table([1, 2], [Game((1, 2), (1,))])


# --- promotion and relegation -------------------------------------------------------------


def test_the_top_goes_up_and_the_bottom_down_one_division():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    assert promoted(tables, promote=1) == [
        [1, 2, 3, 5],
        [4, 6, 7, 9],
        [8, 10, 11, 12],
    ]


def test_promote_two():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    assert promoted(tables, promote=2) == [
        [1, 2, 5, 6],
        [3, 4, 9, 10],
        [7, 8, 11, 12],
    ]


def test_one_division_moves_nobody():
    assert promoted([[3, 1, 2]], promote=1) == [[3, 1, 2]]
    assert next_divisions([[3, 1, 2]], promote=2, size=None) == [[3, 1, 2]]


def test_fewer_entrants_than_twice_promote_move_at_most_half_a_division():
    assert moves([3, 2], promote=2) == [1]
    assert promoted([[1, 2, 3], [4, 5]], promote=2) == [[1, 2, 4], [3, 5]]
    # A division of one can change places with nobody.
    assert moves([4, 1], promote=1) == [0]
    assert promoted([[1, 2, 3, 4], [5]], promote=1) == [[1, 2, 3, 4], [5]]
    assert moves([2, 2, 2], promote=5) == [1, 1]
    assert promoted([[1, 2], [3, 4], [5, 6]], promote=5) == [[1, 3], [2, 5], [4, 6]]


def test_uneven_divisions_keep_their_sizes():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12, 13]]
    after = promoted(tables, promote=2)
    assert [len(d) for d in after] == [4, 4, 5]
    assert after[2] == [7, 8, 11, 12, 13]
    assert after[1] == [3, 4, 9, 10]


def test_promote_zero_moves_nobody():
    tables = [[1, 2], [3, 4]]
    assert promoted(tables, promote=0) == tables


@pytest.mark.parametrize("seed", range(60))
def test_nobody_moves_more_than_one_division_and_sizes_stay(seed):
    rng = random.Random(seed)
    entrants = rng.sample(range(500), rng.randint(1, 40))
    size = rng.randint(2, 8)
    divisions = split(entrants, size=size, minimum=2)
    promote = rng.randint(0, 4)
    after = promoted(divisions, promote=promote)
    assert [len(d) for d in after] == [len(d) for d in divisions]
    before = {e: d for d, members in enumerate(divisions) for e in members}
    now = {e: d for d, members in enumerate(after) for e in members}
    assert sorted(now) == sorted(before)
    assert all(abs(now[e] - before[e]) <= 1 for e in before)
    for d in range(len(divisions) - 1):
        up = [e for e in divisions[d + 1] if now[e] == d]
        down = [e for e in divisions[d] if now[e] == d + 1]
        assert len(up) == len(down) == moves([len(x) for x in divisions], promote=promote)[d]
        # The best of the lower division rise, the worst of the upper fall.
        assert up == divisions[d + 1][: len(up)]
        assert down == divisions[d][len(divisions[d]) - len(down) :]
    # Cutting again with nobody new changes nothing.
    assert next_divisions(divisions, promote=promote, size=size, minimum=2) == after


# --- the next cycle's divisions -----------------------------------------------------------


def test_newcomers_start_at_the_bottom():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert next_divisions(tables, promote=1, size=4, newcomers=[20, 21]) == [
        [1, 2, 3, 5],
        [4, 6, 7, 8],
        [20, 21],
    ]


def test_one_newcomer_too_few_for_a_table_joins_the_bottom_division():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert next_divisions(tables, promote=1, size=4, newcomers=[20]) == [
        [1, 2, 3, 5],
        [4, 6, 7, 8, 20],
    ]


def test_a_place_left_at_the_top_reprieves_the_entrant_relegated_from_it():
    # 1 left the top division: 4, last of its table, would go down, and keeps its place.
    tables = [[2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    assert next_divisions(tables, promote=1, size=4) == [
        [2, 3, 5, 4],
        [6, 7, 9, 8],
        [10, 11, 12],
    ]


def test_the_first_cycle_of_one_division_is_cut_by_its_table():
    # Before any division, everyone plays one division; its table orders the first cut.
    assert next_divisions([[4, 1, 3, 2, 6, 5]], promote=1, size=3) == [[4, 1, 3], [2, 6, 5]]


def test_growing_past_the_size_adds_a_division():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8, 9]]
    after = next_divisions(tables, promote=1, size=4, newcomers=[10])
    assert [len(d) for d in after] == [4, 4, 2]
    assert after[0] == [1, 2, 3, 5]
    assert after[1] == [4, 6, 7, 8]
    assert after[2] == [9, 10]


@pytest.mark.parametrize("seed", range(60))
def test_with_newcomers_nobody_moves_more_than_one_division(seed):
    rng = random.Random(seed)
    size = rng.randint(2, 6)
    entrants = rng.sample(range(500), rng.randint(2, 30))
    divisions = split(entrants, size=size, minimum=2)
    newcomers = [1000 + i for i in range(rng.randint(0, 8))]
    after = next_divisions(
        divisions, promote=rng.randint(0, 3), size=size, minimum=2, newcomers=newcomers
    )
    before = {e: d for d, members in enumerate(divisions) for e in members}
    now = {e: d for d, members in enumerate(after) for e in members}
    assert sorted(now) == sorted([*entrants, *newcomers])
    assert all(abs(now[e] - before[e]) <= 1 for e in before)
    assert all(now[e] >= len(divisions) - 1 for e in newcomers)
