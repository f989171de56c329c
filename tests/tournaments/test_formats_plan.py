"""The games a format plans before the start equal what it then plays: exactly for round
robin, gauntlet and Swiss whatever the results; for elimination when every series is won
outright (ties add deciders, a double elimination's reset adds a series)."""

from __future__ import annotations

import random

import pytest

from tests.support.formats_driver import play
from tournaments.formats import FORMATS, Event, Finished, Result, next_matches
from tournaments.formats.plan import planned_games

EVENTS = [
    *(("round_robin", Event(n, games_per_pairing=g)) for n in (2, 3, 6, 9) for g in (1, 2)),
    ("round_robin", Event(7, players_per_match=3, games_per_pairing=3)),
    ("round_robin", Event(5, rotate_seats=False, games_per_pairing=1)),
    *(("swiss", Event(n, games_per_pairing=g)) for n in (2, 5, 7, 8, 13) for g in (1, 2)),
    ("swiss", Event(7, rounds=2)),
    ("swiss", Event(10, players_per_match=3, games_per_pairing=3)),
    ("swiss", Event(9, players_per_match=4, games_per_pairing=4, rounds=3)),
    *(("gauntlet", Event(n, challengers=c)) for n in (2, 6, 9) for c in ((0,), (0, 1))),
    ("gauntlet", Event(7, games_per_pairing=4, challengers=(2,))),
    *(("single_elimination", Event(n, third_place=t)) for n in (2, 3, 6, 8, 11) for t in (0, 1)),
    ("single_elimination", Event(9, players_per_match=3, games_per_pairing=3, advance=1)),
    ("single_elimination", Event(10, players_per_match=4, games_per_pairing=4, advance=2)),
    *(
        ("double_elimination", Event(n, grand_final_reset=r))
        for n in (2, 3, 5, 7, 8, 12)
        for r in (False, True)
    ),
]


def test_every_format_is_planned():
    assert {format for format, _ in EVENTS} == set(FORMATS)


def play_by_strength(format: str, event: Event, seed: int) -> int:
    """Play the event with a hidden strength order (seeded, upsets of the seeding
    included): the stronger always takes the better place, so every series is won
    outright. Returns the games played."""
    strength = list(range(event.entrants))
    random.Random(seed).shuffle(strength)
    results: list[Result] = []
    answered: set[str] = set()
    while not isinstance(due := next_matches(format, event, results), Finished):
        for pairing in due:
            if pairing.key not in answered:
                answered.add(pairing.key)
                order = sorted(pairing.seats, key=lambda e: strength[e])
                ranks = tuple(order.index(e) + 1 for e in pairing.seats)
                results.append(Result(pairing, ranks))
    return len(results)


@pytest.mark.parametrize("format,event", EVENTS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_plan_is_what_the_format_plays(format, event, seed):
    plan = planned_games(format, event)
    outright = play_by_strength(format, event, seed)
    _, anyhow, _ = play(format, event, seed, draws=0.3)  # split series, draws, faults
    if plan.exact:
        assert outright == len(anyhow) == plan.games
        return
    # Series won outright play no decider; only a grand-final reset adds to the plan.
    reset = event.games_per_pairing if format == "double_elimination" else 0
    assert outright in (plan.games, plan.games + reset)
    assert len(anyhow) >= plan.games


def test_an_elimination_is_only_about_its_plan_and_the_others_exact():
    assert not planned_games("single_elimination", Event(8)).exact
    assert not planned_games("double_elimination", Event(8)).exact
    assert planned_games("swiss", Event(7)).games == 4 * 3 * 2  # ceil(log2 7) + 1 rounds
    assert planned_games("round_robin", Event(7)).games == 21 * 2


def test_an_event_the_format_cannot_play_is_refused():
    with pytest.raises(ValueError):
        planned_games("swiss", Event(1))
    with pytest.raises(ValueError):
        planned_games("single_elimination", Event(1))
