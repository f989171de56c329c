from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from tests.support.formats_driver import play
from tournaments.formats import Event, next_matches
from tournaments.formats.bracket import seeding_order
from tournaments.formats.common import Result, game_scores
from tournaments.formats.single_elimination import check


def _series_outcomes(results):
    """Re-derive each series' winner and loser from its games: points, then the
    decider pair, then the higher seed (lower index)."""
    games = defaultdict(list)
    for result in results:
        games[result.pairing.series].append(result)
    outcomes = {}
    for name, played in games.items():
        members = sorted({e for r in played for e in r.pairing.seats})
        assert len(members) == 2

        def points(part, members=members):
            totals = {m: Fraction(0) for m in members}
            for r in part:
                for e, s in game_scores(r).items():
                    totals[e] += s
            return totals

        base = points([r for r in played if ".G" in r.pairing.key])
        if base[members[0]] == base[members[1]]:
            base = points([r for r in played if ".D" in r.pairing.key])
        winner = members[1] if base[members[1]] > base[members[0]] else members[0]
        outcomes[name] = (winner, members[0] if winner == members[1] else members[1])
    return outcomes


def test_sixteen_seed_first_round_is_the_standard_one():
    first = next_matches("single_elimination", Event(16, games_per_pairing=2), [])
    pairs = [tuple(sorted(s + 1 for s in p.seats)) for p in first if p.key.endswith(".G0")]
    assert pairs == [
        (1, 16),
        (8, 9),
        (5, 12),
        (4, 13),
        (6, 11),
        (3, 14),
        (7, 10),
        (2, 15),
    ]


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_seeding_keeps_top_seeds_apart_and_pairs_to_size_plus_one(size):
    order = seeding_order(size)
    assert sorted(order) == list(range(1, size + 1))
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
    # Seeds 1..2^j sit in different sections of size / 2^j, so they meet as late as possible.
    sections = 1
    while sections <= size:
        width = size // sections
        found = [
            next(i for i, s in enumerate(order) if s == seed) // width
            for seed in range(1, sections + 1)
        ]
        assert len(set(found)) == sections
        sections *= 2


@pytest.mark.parametrize("entrants", range(2, 41))
def test_byes_go_to_the_top_seeds(entrants):
    size = 1 << (entrants - 1).bit_length()
    first = next_matches("single_elimination", Event(entrants), [])
    # Two bye-holders may meet at once in round 2; round 1 is for the others.
    playing = {e for p in first if p.round == 1 for e in p.seats}
    byes = size - entrants
    assert playing == set(range(byes, entrants))


@pytest.mark.parametrize("third_place", [False, True])
@pytest.mark.parametrize("entrants", range(2, 41))
def test_single_elimination_plays_to_one_champion(entrants, third_place):
    event = Event(entrants, games_per_pairing=2, third_place=third_place)
    finished, results, _ = play("single_elimination", event, entrants, draws=0.3)
    outcomes = _series_outcomes(results)
    losses = Counter(loser for name, (_, loser) in outcomes.items() if name != "3P")
    assert len(outcomes) == entrants - 1 + (1 if third_place and entrants >= 4 else 0)
    assert sorted(finished.order) == list(range(entrants))
    champion = finished.order[0]
    assert losses[champion] == 0 and all(losses[e] == 1 for e in range(entrants) if e != champion)
    if third_place and entrants >= 4:
        assert finished.order[2] == outcomes["3P"][0]


def test_level_series_go_to_a_decider_then_the_higher_seed():
    event = Event(4, games_per_pairing=2)
    finished, results, _ = play("single_elimination", event, 1, draws=1.0)
    # Every game drawn: every series played its decider pair, and the higher seeds won.
    assert sum(1 for r in results if ".D" in r.pairing.key) == 3 * 2
    assert finished.order[:2] == (0, 1)
    decider = [r.pairing for r in results if r.pairing.key.startswith("W1.1.D")]
    assert {p.deal for p in decider} == {1} and {p.seats for p in decider} == {(0, 3), (3, 0)}


def test_series_games_are_duplicate_pairs():
    first = next_matches("single_elimination", Event(2, games_per_pairing=4), [])
    assert [(p.seats, p.deal) for p in first] == [
        ((0, 1), 0),
        ((1, 0), 0),
        ((0, 1), 1),
        ((1, 0), 1),
    ]


@pytest.mark.parametrize(
    ("entrants", "seats", "advance"),
    [
        (4, 4, 2),
        (6, 4, 2),
        (8, 4, 2),
        (10, 4, 2),
        (16, 4, 1),
        (9, 3, 1),
        (27, 3, 1),
        (12, 3, 2),
        (40, 4, 2),
    ],
)
def test_multi_seat_elimination_sends_the_top_of_each_table_through(entrants, seats, advance):
    event = Event(entrants, players_per_match=seats, games_per_pairing=seats, advance=advance)
    finished, results, _ = play("single_elimination", event, entrants)
    assert sorted(finished.order) == list(range(entrants))
    tables = defaultdict(set)
    for r in results:
        assert len(r.pairing.seats) == seats
        tables[r.pairing.series].update(r.pairing.seats)
    assert all(len(t) == seats for t in tables.values())
    rounds = defaultdict(set)
    for name, table in tables.items():
        rounds[int(name[1:].split(".")[0])].update(table)
    for number in range(1, max(rounds)):
        later = set().union(*(rounds[n] for n in rounds if n > number))
        # Nobody knocked out comes back.
        out = rounds[number] - later
        for n in rounds:
            if n > number:
                assert not (out & rounds[n])
    assert len(rounds[max(rounds)]) == seats  # one final table


def test_multi_seat_counts_that_cannot_narrow_to_one_table_are_refused():
    with pytest.raises(ValueError, match="cannot be narrowed"):
        check(Event(5, players_per_match=4, advance=1))
    with pytest.raises(ValueError):
        check(Event(8, players_per_match=2, advance=2))


@pytest.mark.parametrize("reset", [True, False])
@pytest.mark.parametrize("entrants", range(2, 41))
def test_double_elimination_out_after_two_losses_and_2n_minus_2_series(entrants, reset):
    event = Event(entrants, games_per_pairing=2, grand_final_reset=reset)
    for seed in range(3 if entrants <= 12 else 1):
        finished, results, _ = play("double_elimination", event, seed, draws=0.2)
        outcomes = _series_outcomes(results)
        losses = Counter(loser for _, loser in outcomes.values())
        champion = finished.order[0]
        assert sorted(finished.order) == list(range(entrants))
        if reset:
            assert len(outcomes) in (2 * entrants - 2, 2 * entrants - 1)
            assert len(outcomes) == 2 * entrants - 1 + losses[champion] - 1
            assert all(losses[e] == 2 for e in range(entrants) if e != champion)
            assert losses[champion] <= 1
        else:
            assert len(outcomes) == 2 * entrants - 2
        assert finished.order[1] == outcomes["GF2" if "GF2" in outcomes else "GF"][1]


def test_double_elimination_with_a_reset_when_the_losers_champion_wins():
    # Seed 0 wins everything except the first grand final.
    event = Event(4, games_per_pairing=1)
    results = []
    while True:
        answer = next_matches("double_elimination", event, results)
        if not isinstance(answer, list):
            break
        for p in answer:
            favourite = max(p.seats) if p.series == "GF" else min(p.seats)
            ranks = tuple(1 if e == favourite else 2 for e in p.seats)
            results.append(Result(p, ranks))
    assert "GF2" in {r.pairing.series for r in results}
    assert len({r.pairing.series for r in results}) == 2 * 4 - 1
    assert answer.order[0] == 0


def test_multi_seat_ties_at_the_cut_play_a_decider_then_favour_the_higher_seeds():
    event = Event(8, players_per_match=4, games_per_pairing=4, advance=2)
    finished, results, _ = play("single_elimination", event, 2, draws=1.0)
    # Every game drawn: each table played one more cycle on a fresh deal, then seeds decided.
    deciders = [r.pairing for r in results if ".D" in r.pairing.key]
    assert len(deciders) == 3 * 4 and {p.deal for p in deciders} == {1}
    first_round = {r.pairing.series: set(r.pairing.seats) for r in results if r.pairing.round == 1}
    # Snake seeding: each table gets a spread of seeds.
    assert sorted(map(sorted, first_round.values())) == [[0, 3, 4, 7], [1, 2, 5, 6]]
    assert finished.order[0] == 0
    assert set(finished.order[:4]) == {0, 1, 2, 3}
    # Tables of one round share their deals (the same group).
    assert len({r.pairing.group for r in results if r.pairing.round == 1}) == 1
