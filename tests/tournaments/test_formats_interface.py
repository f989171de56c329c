"""What every format promises: pure answers that depend on the results, not their order."""

import random

import pytest

from tests.support.formats_driver import play
from tournaments.formats import FORMATS, Event, Finished, next_matches

EVENTS = {
    "round_robin": Event(6, games_per_pairing=2),
    "swiss": Event(9, games_per_pairing=2),
    "single_elimination": Event(11, games_per_pairing=2, third_place=True),
    "double_elimination": Event(7, games_per_pairing=2),
    "gauntlet": Event(6, games_per_pairing=2, challengers=(0, 3)),
}


def test_every_format_is_covered():
    assert set(EVENTS) == set(FORMATS)


@pytest.mark.parametrize("format", sorted(EVENTS))
def test_an_event_replays_exactly_from_its_results_in_any_order(format):
    event = EVENTS[format]
    finished, results, batches = play(format, event, 7)
    again = list(results)
    random.Random(1).shuffle(again)
    assert next_matches(format, event, again) == finished
    # Every intermediate answer is reproduced from the results known at the time.
    for cut in range(0, len(results), 5):
        known = results[:cut]
        shuffled = random.sample(known, len(known))
        assert next_matches(format, event, shuffled) == next_matches(format, event, known)


@pytest.mark.parametrize("format", sorted(EVENTS))
def test_every_entrant_is_placed_once(format):
    finished, _, _ = play(format, EVENTS[format], 11)
    assert isinstance(finished, Finished)
    assert sorted(finished.order) == list(range(EVENTS[format].entrants))
    assert [s.place for s in finished.standings] == list(range(1, len(finished.order) + 1))
    assert [s.entrant for s in finished.standings] == list(finished.order)
