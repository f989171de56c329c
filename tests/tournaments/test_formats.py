from collections import Counter

import pytest

from tournaments.formats import round_robin


def test_two_player_round_robin_meets_everyone_with_rotated_seats():
    plan = round_robin(entrants=4, players_per_match=2, games_per_pairing=2, rotate_seats=True)
    assert len(plan) == 6 * 2
    pairs = Counter(frozenset(p.entrants) for p in plan)
    assert set(pairs.values()) == {2} and len(pairs) == 6
    # Each pair plays once from each seat, on the same deal (duplicate style).
    for group in {p.group for p in plan}:
        games = [p for p in plan if p.group == group]
        assert {g.entrants for g in games} == {games[0].entrants, games[0].entrants[::-1]}
        assert {g.deal for g in games} == {0}


def test_multiplayer_groups_rotate_every_seat():
    plan = round_robin(entrants=4, players_per_match=3, games_per_pairing=3, rotate_seats=True)
    assert len(plan) == 4 * 3
    for group in {p.group for p in plan}:
        games = [p.entrants for p in plan if p.group == group]
        for seat in range(3):
            assert len({g[seat] for g in games}) == 3


def test_fixed_seats_use_a_new_deal_each_game():
    plan = round_robin(entrants=2, players_per_match=2, games_per_pairing=3, rotate_seats=False)
    assert [p.entrants for p in plan] == [(0, 1)] * 3
    assert [p.deal for p in plan] == [0, 1, 2]


def test_two_seat_rounds_follow_berger_so_nobody_plays_twice_in_a_round():
    # Three entrants: a phantom fourth makes one bye a round, so one match per round,
    # and the second cycle of the Berger table carries each pair's second game.
    plan = round_robin(entrants=3, players_per_match=2, games_per_pairing=2, rotate_seats=True)
    assert [p.round for p in plan] == [1, 2, 3, 4, 5, 6]


def test_multiplayer_rounds_hold_each_groups_nth_game():
    plan = round_robin(entrants=4, players_per_match=3, games_per_pairing=2, rotate_seats=True)
    assert [p.round for p in plan] == [1] * 4 + [2] * 4


def test_too_few_entrants_is_refused():
    with pytest.raises(ValueError, match="cannot fill"):
        round_robin(entrants=1, players_per_match=2, games_per_pairing=1, rotate_seats=True)


def test_float_game_scores_are_the_fractions_rounded_for_every_rank_pattern():
    import itertools
    from fractions import Fraction

    from tournaments.formats.common import Pairing, Result, game_score_floats, game_scores

    for size in range(1, 8):
        for ranks in itertools.product(range(1, size + 1), repeat=min(size, 4)):
            ranks = ranks + (1,) * (size - len(ranks))
            result = Result(Pairing("k", 0, tuple(range(size)), 0, 0), ranks)
            exact = game_scores(result)
            assert game_score_floats(result) == {e: float(s) for e, s in exact.items()}
            assert sum(exact.values()) == (Fraction(size, 2) if size > 1 else 1)
