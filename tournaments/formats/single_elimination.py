"""Single elimination: a seeded bracket; lose a series and you are out.

Two seats use the standard bracket (see :func:`bracket.seeding_order`); when
the field is not a power of two the top seeds get the byes. An optional
series for third place is played by the semi-final losers.

Three or more seats play tables whose top ``advance`` go through. Each round
the lowest-seeded survivors fill as many full tables as the field allows
(snake order, so every table gets a spread of seeds), the rest get a bye, and
the last round is one table. The field must shrink to exactly one table:
(entrants - seats) must be a multiple of (seats - advance). A tie at the cut
is settled by one more cycle of games on a fresh deal, then by seed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tournaments.formats import bracket
from tournaments.formats.common import (
    Event,
    Finished,
    Pairing,
    Result,
    Standing,
    by_key,
    game_scores,
    rotation,
)


def check(event: Event) -> None:
    seats, advance = event.players_per_match, event.advance
    if event.games_per_pairing < 1:
        raise ValueError("a series needs at least one game")
    if seats < 2 or event.entrants < seats:
        raise ValueError(f"{event.entrants} entrants cannot fill {seats}-seat tables")
    if seats == 2:
        if advance != 1:
            raise ValueError("with two seats exactly one entrant goes through")
        return
    if not 1 <= advance < seats:
        raise ValueError(f"advance must be between 1 and {seats - 1}")
    if event.third_place:
        raise ValueError("a match for third place needs two-seat games")
    if (event.entrants - seats) % (seats - advance):
        raise ValueError(
            f"{event.entrants} entrants cannot be narrowed to one table of {seats} "
            f"when {advance} of each table go through"
        )


def specs(entrants: int, third_place: bool) -> list[bracket.SeriesSpec]:
    size = bracket.bracket_size(entrants)
    result, previous = [], []
    round_ = 1
    count = size // 2
    while count >= 1:
        names = []
        for index in range(count):
            name = f"W{round_}.{index + 1}"
            if round_ == 1:
                sources = (("seed", 2 * index), ("seed", 2 * index + 1))
            else:
                sources = (("winner", previous[2 * index]), ("winner", previous[2 * index + 1]))
            result.append(bracket.SeriesSpec(name, sources))
            names.append(name)
        previous, count, round_ = names, count // 2, round_ + 1
    if third_place and size >= 4:
        semis = [s.name for s in result if s.name.startswith(f"W{round_ - 2}.")]
        result.append(bracket.SeriesSpec("3P", (("loser", semis[0]), ("loser", semis[1]))))
    return result


def bracket_seeds(entrants: int) -> list[int | None]:
    """The entrant at each bracket position, None where a top seed has a bye."""
    return [
        s - 1 if s <= entrants else None
        for s in bracket.seeding_order(bracket.bracket_size(entrants))
    ]


def next_matches(event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    check(event)
    if event.players_per_match > 2:
        return _tables(event, results)
    states, due = bracket.play(
        event, specs(event.entrants, event.third_place), bracket_seeds(event.entrants), results
    )
    if due:
        return due
    return Finished(*_order(event.entrants, states))


def _order(entrants: int, states: list[bracket.SeriesState]):
    """Champion, runner-up, then (third place if played) by the round each went out in."""
    out_round: dict[int, int] = {}
    wins: dict[int, int] = defaultdict(int)
    for state in states:
        if state.played:
            wins[state.winner] += 1
            if state.name != "3P":
                out_round[state.loser] = _round_of(state.name)
    final = max((s for s in states if s.name.startswith("W")), key=lambda s: _round_of(s.name))
    third = next((s for s in states if s.name == "3P" and s.complete), None)
    top = [final.winner]
    if final.loser is not None:
        top.append(final.loser)
    if third is not None:
        top += [e for e in (third.winner, third.loser) if e is not None]
    rest = sorted(
        (e for e in range(entrants) if e not in top), key=lambda e: (-out_round.get(e, 0), e)
    )
    order = tuple(top + rest)
    standings = tuple(
        Standing(entrant=e, place=i, points=float(wins[e])) for i, e in enumerate(order, start=1)
    )
    return order, standings


def _round_of(name: str) -> int:
    return int(name[1:].split(".")[0])


def _cut_order(table: tuple[int, ...], games: list[Result], decider: list[Result]) -> list[int]:
    points = defaultdict(Fraction)
    extra = defaultdict(Fraction)
    for result in games:
        for e, s in game_scores(result).items():
            points[e] += s
    for result in decider:
        for e, s in game_scores(result).items():
            extra[e] += s
    return sorted(table, key=lambda e: (-points[e], -extra[e], e))


@dataclass(frozen=True)
class TableState:
    """One table of a 3+-seat elimination round: who sat there and who went through."""

    name: str
    round: int
    entrants: tuple[int, ...]
    advanced: tuple[int, ...]  # empty until the table is complete
    complete: bool


def _tables(event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    _, answer = play_tables(event, results)
    return answer


def play_tables(
    event: Event, results: Sequence[Result]
) -> tuple[list[TableState], list[Pairing] | Finished]:
    """Every table the results allow so far, and the games due now or the final order."""
    seats, advance = event.players_per_match, event.advance
    done = by_key(results)
    survivors = list(range(event.entrants))
    out: list[tuple[int, int, int]] = []  # (round, place at the table, entrant)
    wins: dict[int, int] = defaultdict(int)
    states: list[TableState] = []
    round_ = 0
    while True:
        round_ += 1
        final = len(survivors) == seats
        count = (
            1
            if final
            else min(len(survivors) // seats, (len(survivors) - seats) // (seats - advance))
        )
        players = survivors[len(survivors) - count * seats :]
        tables: list[list[int]] = [[] for _ in range(count)]
        for index, entrant in enumerate(players):
            row, column = divmod(index, count)
            tables[column if row % 2 == 0 else count - 1 - column].append(entrant)
        due: list[Pairing] = []
        orders: list[list[int]] = []
        cut = 1 if final else advance
        for number, table in enumerate(tables):
            table_t = tuple(table)
            name = f"R{round_}.T{number + 1}"
            group = round_  # every table of a round plays the same deals
            base = [
                Pairing(f"{name}.G{g}", round_, seats_, deal, group, name)
                for g in range(event.games_per_pairing)
                for seats_, deal in [rotation(table_t, g)]
            ]
            fresh = (event.games_per_pairing + seats - 1) // seats
            decider = [
                Pairing(f"{name}.D{g}", round_, rotation(table_t, g)[0], fresh, group, name)
                for g in range(seats)
            ]
            pending = [p for p in base if p.key not in done]
            if not pending:
                games = [done[p.key] for p in base]
                ranked = _cut_order(table_t, games, [])
                points = _cut_order_points(games)
                if points[ranked[cut - 1]] == points[ranked[cut]]:
                    pending = [p for p in decider if p.key not in done]
                    if not pending:
                        ranked = _cut_order(table_t, games, [done[p.key] for p in decider])
            if pending:
                due.extend(pending)
                states.append(TableState(name, round_, table_t, (), False))
                continue
            orders.append(ranked)
            states.append(TableState(name, round_, table_t, tuple(ranked[:cut]), True))
        if due:
            return states, due
        if final:
            ranked = orders[0]
            wins[ranked[0]] += 1
            rest = sorted(out, key=lambda o: (-o[0], o[1], o[2]))
            order = tuple(ranked + [e for _, _, e in rest])
            return states, Finished(
                order=order,
                standings=tuple(
                    Standing(entrant=e, place=i, points=float(wins[e]))
                    for i, e in enumerate(order, start=1)
                ),
            )
        through = set()
        for ranked in orders:
            for place, entrant in enumerate(ranked):
                if place < advance:
                    through.add(entrant)
                    wins[entrant] += 1
                else:
                    out.append((round_, place, entrant))
        survivors = [e for e in survivors if e not in players or e in through]


def _cut_order_points(games: list[Result]) -> dict[int, Fraction]:
    points = defaultdict(Fraction)
    for result in games:
        for e, s in game_scores(result).items():
            points[e] += s
    return points
