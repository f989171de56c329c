"""Two-seat elimination brackets: series fed by seeds, winners and losers of other series.

A series is ``games_per_pairing`` games on duplicate deals (seats rotate over
each deal). When it ends level, a decider follows: one more duplicate pair
of games on a fresh deal; if that is level too, the higher seed (the lower
entrant index) goes through. A series with one entrant is a walkover (a bye),
with none it passes nothing on; neither counts as played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tournaments.formats.common import Event, Pairing, Result, by_key, game_scores, rotation

# A source is ("seed", position) with a 0-based bracket position, or
# ("winner", series name) / ("loser", series name).
Source = tuple[str, object]


@dataclass(frozen=True)
class SeriesSpec:
    name: str
    sources: tuple[Source, Source]
    # The grand final's reset is played only when the first grand final's
    # winner came from the losers' bracket.
    only_if_upset_in: str | None = None


@dataclass(frozen=True)
class SeriesState:
    name: str
    round: int
    entrants: tuple[int | None, int | None]
    winner: int | None
    loser: int | None
    played: bool  # two entrants met
    complete: bool
    skipped: bool = False  # a reset that was not needed


def seeding_order(size: int) -> list[int]:
    """Seed numbers (1-based) of a bracket of ``size`` (a power of two), in bracket order.

    Seed s meets size + 1 - s in the first round, and the seeds 1..2^j are
    kept in different sections so the best meet as late as possible.
    """
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [
            seed
            for index, top in enumerate(order)
            for seed in ((top, total - top) if index == 0 else (total - top, top))
        ]
    return order


def bracket_size(entrants: int) -> int:
    size = 1
    while size < entrants:
        size *= 2
    return size


def _series_games(event: Event, name: str, group: int, round_: int, members: tuple[int, int]):
    base = [
        Pairing(
            key=f"{name}.G{game}",
            round=round_,
            seats=seats,
            deal=deal,
            group=group,
            series=name,
        )
        for game in range(event.games_per_pairing)
        for seats, deal in [rotation(members, game)]
    ]
    fresh_deal = (event.games_per_pairing + 1) // 2
    decider = [
        Pairing(
            key=f"{name}.D{game}",
            round=round_,
            seats=members if game == 0 else members[::-1],
            deal=fresh_deal,
            group=group,
            series=name,
        )
        for game in range(2)
    ]
    return base, decider


def _points(games: list[Result], members: tuple[int, int]) -> tuple[Fraction, Fraction]:
    totals = {m: Fraction(0) for m in members}
    for result in games:
        for entrant, score in game_scores(result).items():
            totals[entrant] += score
    return totals[members[0]], totals[members[1]]


def play(
    event: Event,
    specs: Sequence[SeriesSpec],
    seeds: Sequence[int | None],
    results: Sequence[Result],
) -> tuple[list[SeriesState], list[Pairing]]:
    """Resolve every series the results allow; return their states and the games due now.

    ``seeds[position]`` is the entrant at a bracket position, None for a bye.
    Specs must come after the series they take entrants from.
    """
    done = by_key(results)
    states: dict[str, SeriesState] = {}
    due: list[Pairing] = []
    for group, spec in enumerate(specs, start=1):
        entrants: list[int | None] = []
        ready, round_ = True, 1
        for kind, ref in spec.sources:
            if kind == "seed":
                entrants.append(seeds[ref])  # type: ignore[index]
                continue
            feeder = states[ref]  # type: ignore[index]
            round_ = max(round_, feeder.round + 1)
            if not feeder.complete:
                ready = False
                entrants.append(None)
            else:
                entrants.append(feeder.winner if kind == "winner" else feeder.loser)
        pair = (entrants[0], entrants[1])
        if not ready:
            states[spec.name] = SeriesState(spec.name, round_, pair, None, None, False, False)
            continue
        if spec.only_if_upset_in is not None:
            first = states[spec.only_if_upset_in]
            if first.played and first.winner != first.entrants[1]:
                # The winners' champion (first seat of the first final) won: no reset.
                states[spec.name] = SeriesState(
                    spec.name, round_, pair, None, None, False, True, skipped=True
                )
                continue
        present = [e for e in pair if e is not None]
        if len(present) < 2:
            winner = present[0] if present else None
            states[spec.name] = SeriesState(spec.name, round_, pair, winner, None, False, True)
            continue
        members = (min(present), max(present))  # the higher seed takes the first seat first
        base, decider = _series_games(event, spec.name, group, round_, members)
        pending = [p for p in base if p.key not in done]
        if pending:
            due.extend(pending)
            states[spec.name] = SeriesState(spec.name, round_, pair, None, None, True, False)
            continue
        first, second = _points([done[p.key] for p in base], members)
        if first == second:
            pending = [p for p in decider if p.key not in done]
            if pending:
                due.extend(pending)
                states[spec.name] = SeriesState(spec.name, round_, pair, None, None, True, False)
                continue
            first, second = _points([done[p.key] for p in decider], members)
        winner = members[1] if second > first else members[0]
        loser = members[0] if winner == members[1] else members[1]
        states[spec.name] = SeriesState(spec.name, round_, pair, winner, loser, True, True)
    return list(states.values()), due
