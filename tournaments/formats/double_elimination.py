"""Double elimination: two series losses put an entrant out.

Winners' bracket as in single elimination; its losers drop into the losers'
bracket, which alternates rounds among its own survivors with rounds that
take in the next batch of winners'-bracket losers (in reversed order, to put
off rematches). The grand final sets the two brackets' champions against
each other; with ``grand_final_reset`` a win by the losers' champion (the
winners' champion's first loss) forces a second final. 2n - 2 series are
played, 2n - 1 with a reset.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from tournaments.formats import bracket
from tournaments.formats.common import Event, Finished, Pairing, Result, Standing
from tournaments.formats.single_elimination import bracket_seeds


def check(event: Event) -> None:
    if event.players_per_match != 2:
        raise ValueError("double elimination needs two-seat games")
    if event.entrants < 2:
        raise ValueError("double elimination needs at least 2 entrants")
    if event.games_per_pairing < 1:
        raise ValueError("a series needs at least one game")


def specs(entrants: int, reset: bool) -> list[bracket.SeriesSpec]:
    size = bracket.bracket_size(entrants)
    rounds = size.bit_length() - 1
    result: list[bracket.SeriesSpec] = []
    winners: list[list[str]] = []
    for round_ in range(1, rounds + 1):
        names = []
        for index in range(size >> round_):
            name = f"W{round_}.{index + 1}"
            if round_ == 1:
                sources = (("seed", 2 * index), ("seed", 2 * index + 1))
            else:
                prev = winners[-1]
                sources = (("winner", prev[2 * index]), ("winner", prev[2 * index + 1]))
            result.append(bracket.SeriesSpec(name, sources))
            names.append(name)
        winners.append(names)
    losers_champion = ("loser", winners[0][0])  # two entrants: the first loser
    if rounds >= 2:
        number = 1
        current = []
        for index in range(size // 4):
            name = f"L{number}.{index + 1}"
            result.append(
                bracket.SeriesSpec(
                    name, (("loser", winners[0][2 * index]), ("loser", winners[0][2 * index + 1]))
                )
            )
            current.append(name)
        for round_ in range(2, rounds + 1):
            number += 1
            dropping = winners[round_ - 1]
            if round_ % 2 == 0:
                dropping = dropping[::-1]
            merged = []
            for index, (survivor, dropped) in enumerate(zip(current, dropping)):
                name = f"L{number}.{index + 1}"
                result.append(bracket.SeriesSpec(name, (("winner", survivor), ("loser", dropped))))
                merged.append(name)
            current = merged
            if len(current) > 1:
                number += 1
                halved = []
                for index in range(len(current) // 2):
                    name = f"L{number}.{index + 1}"
                    result.append(
                        bracket.SeriesSpec(
                            name,
                            (("winner", current[2 * index]), ("winner", current[2 * index + 1])),
                        )
                    )
                    halved.append(name)
                current = halved
        losers_champion = ("winner", current[0])
    final = ("winner", winners[-1][0])
    result.append(bracket.SeriesSpec("GF", (final, losers_champion)))
    if reset:
        result.append(
            bracket.SeriesSpec("GF2", (("winner", "GF"), ("loser", "GF")), only_if_upset_in="GF")
        )
    return result


def next_matches(event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    check(event)
    states, due = bracket.play(
        event,
        specs(event.entrants, event.grand_final_reset),
        bracket_seeds(event.entrants),
        results,
    )
    if due:
        return due
    by_name = {s.name: s for s in states}
    last = by_name["GF2"] if "GF2" in by_name and by_name["GF2"].played else by_name["GF"]
    top = [last.winner, last.loser]
    out_at: dict[int, int] = {}
    wins: dict[int, int] = defaultdict(int)
    for index, state in enumerate(states):
        if state.played:
            wins[state.winner] += 1
            if state.name.startswith("L"):
                out_at[state.loser] = index
    rest = sorted(
        (e for e in range(event.entrants) if e not in top), key=lambda e: (-out_at.get(e, -1), e)
    )
    order = tuple(top + rest)
    return Finished(
        order=order,
        standings=tuple(
            Standing(entrant=e, place=i, points=float(wins[e]))
            for i, e in enumerate(order, start=1)
        ),
    )
