"""What an event looks like so far: its rounds or bracket, and its standings.

The planners answer "what is due now"; this module answers "where do we
stand", for the API and the pages, from the same results and with the same
code, so a table shown mid-event is the one the format will finish with.
Elimination standings mid-event order entrants by series won; the final
order comes from the format once it finishes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.formats import bracket, double_elimination, gauntlet, single_elimination, swiss
from tournaments.formats.common import Event, Finished, Result, Standing
from tournaments.formats.round_robin import TIEBREAKS as ROUND_ROBIN_TIEBREAKS
from tournaments.formats.round_robin import finish as finish_round_robin
from tournaments.formats.round_robin import next_matches as round_robin_due
from tournaments.formats.round_robin import standings_in_units as round_robin_in_units


@dataclass(frozen=True)
class RoundView:
    number: int
    tables: tuple[tuple[int, ...], ...]  # entrants of each table, first seat first
    byes: tuple[int, ...] = ()


@dataclass(frozen=True)
class SeriesView:
    """A series of an elimination bracket (or a table of a 3+-seat one)."""

    name: str
    round: int
    stage: str  # winners, losers, final, third_place
    entrants: tuple[int | None, ...]  # None: not known yet, or a bye
    winners: tuple[int, ...]  # who went through (empty until complete)
    loser: int | None
    complete: bool
    played: bool  # the entrants met (a walkover or a skipped reset is not played)
    skipped: bool  # a grand-final reset that was not needed
    winner_to: str | None  # the series the winner (or those going through) plays next
    loser_to: str | None


@dataclass(frozen=True)
class Overview:
    finished: bool
    tiebreaks: tuple[str, ...]
    standings: tuple[Standing, ...]
    rounds: tuple[RoundView, ...] = ()
    series: tuple[SeriesView, ...] = ()


def describe(format: str, event: Event, results: Sequence[Result]) -> Overview:
    """The rounds or bracket and the standings of ``event`` given the finished games."""
    if format == "round_robin":
        return _round_robin(event, results)
    if format == "swiss":
        return _swiss(event, results)
    if format == "gauntlet":
        return _gauntlet(event, results)
    if format == "single_elimination":
        if event.players_per_match > 2:
            return _tables(event, results)
        specs = single_elimination.specs(event.entrants, event.third_place)
        return _bracket(event, results, specs, single_elimination.next_matches)
    if format == "double_elimination":
        specs = double_elimination.specs(event.entrants, event.grand_final_reset)
        return _bracket(event, results, specs, double_elimination.next_matches)
    raise ValueError(f"unknown format {format!r}")


# Formats whose table follows from running totals alone (points, what each entrant
# scored against each other, faults): the read models keep those totals per result.
TOTALS_FORMATS = ("round_robin", "gauntlet")


def describe_totals(
    format: str,
    event: Event,
    *,
    points: Sequence[int],
    scored_against: Mapping[tuple[int, int], int],
    faults: Sequence[int],
    scale: int,
    finished: bool,
) -> Overview:
    """:func:`describe` for a format of ``TOTALS_FORMATS``, from the running totals.

    ``points[a]`` and ``scored_against[(a, b)]`` (what a scored in games against b) count
    whole units of 1/``scale`` game point. Gives the same tiebreaks, standings and rounds
    as :func:`describe` given the games those totals sum; ``finished`` is the caller's
    (totals do not say what is left to play).
    """
    n = event.entrants
    if format == "round_robin":
        return Overview(
            finished=finished,
            tiebreaks=ROUND_ROBIN_TIEBREAKS,
            standings=round_robin_in_units(n, points, scored_against, faults, scale),
        )
    if format == "gauntlet":
        return Overview(
            finished=finished,
            tiebreaks=gauntlet.TIEBREAKS,
            standings=gauntlet.standings_in_units(n, points, scored_against, faults, scale),
            rounds=_rounds_of(gauntlet.plan(event)),
        )
    raise ValueError(f"{format!r} is not drawn from totals")


def _rounds_of(pairings) -> tuple[RoundView, ...]:
    tables: dict[int, dict[int, tuple[int, ...]]] = defaultdict(dict)
    for p in pairings:
        # One table per group of entrants and round: duplicate games share it.
        members = tuple(sorted(p.seats))
        tables[p.round].setdefault(hash(members), p.seats)
    return tuple(
        RoundView(number=number, tables=tuple(tables[number].values())) for number in sorted(tables)
    )


def _round_robin(event: Event, results: Sequence[Result]) -> Overview:
    answer = round_robin_due(event, results)
    table = finish_round_robin(event.entrants, results)
    return Overview(
        finished=isinstance(answer, Finished),
        tiebreaks=ROUND_ROBIN_TIEBREAKS,
        standings=table.standings,
    )


def _gauntlet(event: Event, results: Sequence[Result]) -> Overview:
    return Overview(
        finished=isinstance(gauntlet.next_matches(event, results), Finished),
        tiebreaks=gauntlet.TIEBREAKS,
        standings=gauntlet.standings(event, results).standings,
        rounds=_rounds_of(gauntlet.plan(event)),
    )


def _swiss(event: Event, results: Sequence[Result]) -> Overview:
    state = swiss.progress(event, results)
    return Overview(
        finished=not state.due,
        tiebreaks=swiss.TIEBREAKS,
        standings=swiss.finish(event, results, state).standings,
        rounds=tuple(
            RoundView(number=r.number, tables=r.tables, byes=r.byes) for r in state.rounds
        ),
    )


def _destinations(specs: Sequence[bracket.SeriesSpec]) -> dict[tuple[str, str], str]:
    """(kind, series) -> the series that takes that series' winner or loser."""
    to = {}
    for spec in specs:
        for kind, ref in spec.sources:
            if kind in ("winner", "loser"):
                to.setdefault((kind, ref), spec.name)
    return to


def _stage(name: str) -> str:
    if name.startswith("GF"):
        return "final"
    if name == "3P":
        return "third_place"
    return "losers" if name.startswith("L") else "winners"


def _bracket(event: Event, results: Sequence[Result], specs, planner) -> Overview:
    seeds = single_elimination.bracket_seeds(event.entrants)
    states, due = bracket.play(event, specs, seeds, results)
    to = _destinations(specs)
    series = tuple(
        SeriesView(
            name=s.name,
            round=s.round,
            stage=_stage(s.name),
            entrants=s.entrants,
            winners=(s.winner,) if s.complete and s.winner is not None else (),
            loser=s.loser,
            complete=s.complete,
            played=s.played,
            skipped=s.skipped,
            winner_to=to.get(("winner", s.name)),
            loser_to=to.get(("loser", s.name)),
        )
        for s in states
    )
    if not due:
        finished = planner(event, results)
        assert isinstance(finished, Finished)
        return Overview(True, (), finished.standings, series=series)
    wins: dict[int, int] = defaultdict(int)
    for s in states:
        if s.played and s.complete:
            wins[s.winner] += 1
    return Overview(False, (), _by_wins(event.entrants, wins), series=series)


def _tables(event: Event, results: Sequence[Result]) -> Overview:
    states, answer = single_elimination.play_tables(event, results)
    series = tuple(
        SeriesView(
            name=t.name,
            round=t.round,
            stage="winners",
            entrants=t.entrants,
            winners=t.advanced,
            loser=None,
            complete=t.complete,
            played=True,
            skipped=False,
            winner_to=None,
            loser_to=None,
        )
        for t in states
    )
    if isinstance(answer, Finished):
        return Overview(True, (), answer.standings, series=series)
    wins: dict[int, int] = defaultdict(int)
    for t in states:
        for entrant in t.advanced:
            wins[entrant] += 1
    return Overview(False, (), _by_wins(event.entrants, wins), series=series)


def _by_wins(entrants: int, wins: dict[int, int]) -> tuple[Standing, ...]:
    order = sorted(range(entrants), key=lambda e: (-wins.get(e, 0), e))
    return tuple(
        Standing(entrant=e, place=i, points=float(wins.get(e, 0)))
        for i, e in enumerate(order, start=1)
    )
