from collections import Counter

import pytest

from tests.support.formats_driver import play
from tournaments.formats import Event, swiss


def _rematch_free_pairing_exists(players, met, bye_allowed):
    """Brute force: can ``players`` be paired (one bye from ``bye_allowed`` if odd) without a rematch?"""

    def pairable(rest):
        if not rest:
            return True
        top = rest[0]
        return any(
            pairable([x for x in rest[1:] if x != other])
            for other in rest[1:]
            if other not in met[top]
        )

    if len(players) % 2 == 0:
        return pairable(players)
    return any(pairable([p for p in players if p != bye]) for bye in bye_allowed)


def test_default_rounds_are_log2_plus_one():
    assert [swiss.default_rounds(n) for n in (2, 3, 4, 8, 9, 16, 40)] == [2, 3, 3, 4, 5, 5, 7]


def test_first_round_pairs_top_half_against_bottom_half():
    rounds = swiss.progress(Event(8, games_per_pairing=1), []).rounds
    # Seats alternate by board, the top seed taking the first seat on board 1.
    assert rounds[0].tables == ((0, 4), (5, 1), (2, 6), (7, 3))
    # Odd field: the lowest seed sits out.
    assert swiss.progress(Event(7), []).rounds[0].byes == (6,)


CASES = [(n, seed) for n in range(2, 41) for seed in range(6 if n <= 16 else 2)]


@pytest.mark.parametrize(("entrants", "seed"), CASES)
def test_swiss_pairs_everyone_once_per_round_without_avoidable_rematches(entrants, seed):
    games = 1 + seed % 2
    event = Event(entrants, games_per_pairing=games)
    finished, results, _ = play("swiss", event, seed)
    state = swiss.progress(event, results)
    assert len(state.rounds) == swiss.default_rounds(entrants)
    met = [set() for _ in range(entrants)]
    byes = Counter()
    balance = Counter()
    points = Counter()
    for round_, scores in zip(state.rounds, state.round_scores):
        seated = [e for t in round_.tables for e in t]
        assert sorted(seated + list(round_.byes)) == list(range(entrants))
        assert len(round_.byes) == entrants % 2
        without_bye = [e for e in range(entrants) if not byes[e]]
        for bye in round_.byes:
            # The bye goes to someone who has not had one, while there is such an entrant,
            # and counts as a win.
            assert not byes[bye] or not without_bye
            assert scores[bye] == 1
        rematches = [t for t in round_.tables if t[1] in met[t[0]]]
        if rematches:
            assert not _rematch_free_pairing_exists(
                list(range(entrants)), met, without_bye or list(range(entrants))
            ), f"avoidable rematch in round {round_.number}: {rematches}"
        for a, b in round_.tables:
            met[a].add(b)
            met[b].add(a)
            balance[a] += 1
            balance[b] -= 1
        byes.update(round_.byes)
        for e, s in scores.items():
            points[e] += s
    if games == 1:
        # Seats alternate: nobody takes the first seat more than twice as often as the second.
        assert all(abs(v) <= 2 for v in balance.values())
    keys = [
        (s.points, s.tiebreaks["buchholz"], s.tiebreaks["sonneborn_berger"])
        for s in finished.standings
    ]
    assert keys == sorted(keys, reverse=True)
    assert [s.points for s in finished.standings] == sorted(
        (float(points[e]) for e in range(entrants)), reverse=True
    )


@pytest.mark.parametrize(
    ("seats", "entrants"),
    [(k, n) for k in (3, 4) for n in (3, 4, 5, 7, 9, 12, 13, 17, 24, 31, 40) if n >= k],
)
def test_multi_seat_swiss_fills_tables_from_neighbouring_scores(seats, entrants):
    event = Event(entrants, players_per_match=seats, games_per_pairing=seats)
    finished, results, _ = play("swiss", event, entrants)
    state = swiss.progress(event, results)
    seen = set()
    for round_ in state.rounds:
        assert all(len(t) == seats for t in round_.tables)
        assert len(round_.byes) == entrants % seats
        seated = sorted([e for t in round_.tables for e in t] + list(round_.byes))
        assert seated == list(range(entrants))
        for table in round_.tables:
            if entrants >= 3 * seats:
                assert frozenset(table) not in seen, "repeated table"
            seen.add(frozenset(table))
    assert sorted(finished.order) == list(range(entrants))


def test_first_round_tables_take_neighbouring_seeds():
    rounds = swiss.progress(Event(9, players_per_match=3, games_per_pairing=3), []).rounds
    assert rounds[0].tables == ((0, 1, 2), (3, 4, 5), (6, 7, 8))


def test_head_to_head_then_faults_break_remaining_ties():
    from fractions import Fraction

    from tournaments.formats.standings import FAULTS, HEAD_TO_HEAD, rank

    zero = [Fraction(0)] * 3
    standings = rank(
        entrants=3,
        points=[Fraction(1)] * 3,
        numeric={"buchholz": zero},
        order=("buchholz", HEAD_TO_HEAD, FAULTS),
        scored_against={(2, 1): Fraction(1), (1, 2): Fraction(0)},
        faults=[3, 0, 0],
    )
    # 2 beat 1 head to head; 0 and 1 are level there and 1 has fewer faults.
    assert [s.entrant for s in standings] == [2, 1, 0]


def test_impossible_events_are_refused():
    with pytest.raises(ValueError):
        swiss.check(Event(2, players_per_match=3))
    with pytest.raises(ValueError):
        swiss.check(Event(4, rounds=0))


def test_as_many_rounds_as_a_round_robin_still_finishes():
    event = Event(20, rounds=19, games_per_pairing=1)
    finished, results, _ = play("swiss", event, 3)
    assert len(swiss.progress(event, results).rounds) == 19
    assert len(finished.order) == 20
