from collections import Counter, defaultdict

import pytest

from tests.support.formats_driver import play
from tournaments.formats import Event, gauntlet


@pytest.mark.parametrize("entrants", range(2, 41))
@pytest.mark.parametrize("challengers", [(0,), (1, 0), (0, 2, 5)])
def test_challengers_meet_every_other_entrant_equally_often_on_the_same_deals(
    entrants, challengers
):
    challengers = tuple(c for c in challengers if c < entrants)
    event = Event(entrants, games_per_pairing=4, challengers=challengers)
    finished, results, _ = play("gauntlet", event, entrants)
    assert sorted(finished.order) == list(range(entrants))
    meetings = Counter(frozenset(r.pairing.seats) for r in results)
    for challenger in challengers:
        faced = {e for pair in meetings if challenger in pair for e in pair} - {challenger}
        assert faced == set(range(entrants)) - {challenger}
        assert {meetings[frozenset((challenger, e))] for e in faced} == {4}
    # Each challenger's opponents get the very same deals, from the same seats.
    for group in {r.pairing.group for r in results}:
        deals = defaultdict(set)
        for r in results:
            if r.pairing.group == group:
                owner = challengers[group - 1]
                opponent = next(e for e in r.pairing.seats if e != owner)
                deals[opponent].add((r.pairing.deal, r.pairing.seats.index(owner)))
        assert len({frozenset(v) for v in deals.values()}) == 1
    # Entrants who are not challengers never meet.
    assert all(pair & set(challengers) for pair in meetings)


def test_bad_challengers_are_refused():
    for challengers in [(), (0, 0), (5,)]:
        with pytest.raises(ValueError):
            gauntlet.check(Event(3, challengers=challengers))
    with pytest.raises(ValueError):
        gauntlet.check(Event(4, players_per_match=3))


def test_unknown_format_is_refused():
    from tournaments.formats import next_matches

    with pytest.raises(ValueError, match="unknown format"):
        next_matches("ladder", Event(4), [])
