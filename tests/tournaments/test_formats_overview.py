"""The overview (rounds, bracket, standings) agrees with the planners it describes."""

from __future__ import annotations

import pytest

from tests.support.formats_driver import play
from tournaments.formats import Event
from tournaments.formats.overview import describe

EVENTS = [
    ("round_robin", Event(5)),
    ("round_robin", Event(6, players_per_match=3, games_per_pairing=3)),
    ("swiss", Event(7)),
    ("swiss", Event(10, players_per_match=3, games_per_pairing=3, rounds=3)),
    ("gauntlet", Event(6, challengers=(0, 3))),
    ("single_elimination", Event(6, third_place=True)),
    ("single_elimination", Event(7, players_per_match=3, advance=2, games_per_pairing=3)),
    ("double_elimination", Event(5)),
    ("double_elimination", Event(8, grand_final_reset=False)),
]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(("format", "event"), EVENTS)
def test_final_standings_are_the_planners_order(format, event, seed):
    finished, results, _ = play(format, event, seed)
    overview = describe(format, event, results)
    assert overview.finished
    assert tuple(s.entrant for s in overview.standings) == finished.order
    # Part-way, the event is not finished and every entrant has one row.
    partial = describe(format, event, results[: len(results) // 2])
    assert not partial.finished
    assert sorted(s.entrant for s in partial.standings) == list(range(event.entrants))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("entrants", [2, 3, 5, 8, 11])
def test_bracket_destinations_follow_the_winners(entrants, seed):
    event = Event(entrants)
    _, results, _ = play("double_elimination", event, seed)
    series = {s.name: s for s in describe("double_elimination", event, results).series}
    for s in series.values():
        if s.complete and s.winners and s.winner_to:
            assert s.winners[0] in series[s.winner_to].entrants
        if s.complete and s.loser is not None and s.loser_to:
            assert s.loser in series[s.loser_to].entrants
    played = [s for s in series.values() if s.played]
    assert len(played) in (2 * entrants - 2, 2 * entrants - 1)
    assert series["GF"].stage == "final"


def test_swiss_rounds_show_the_bye():
    event = Event(7, rounds=3)
    _, results, _ = play("swiss", event, 1)
    rounds = describe("swiss", event, results).rounds
    assert [r.number for r in rounds] == [1, 2, 3]
    for r in rounds:
        assert len(r.byes) == 1
        seated = sorted([e for table in r.tables for e in table] + list(r.byes))
        assert seated == list(range(7))
    assert len({r.byes[0] for r in rounds}) == 3  # nobody gets two byes


def test_swiss_tiebreaks_are_named_in_order():
    event = Event(6, rounds=2)
    _, results, _ = play("swiss", event, 2)
    overview = describe("swiss", event, results)
    assert overview.tiebreaks == ("buchholz", "sonneborn_berger", "head_to_head", "faults")
    assert set(overview.standings[0].tiebreaks) == {"buchholz", "sonneborn_berger", "faults"}


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown format"):
        describe("ladder", Event(4), [])
