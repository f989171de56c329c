"""How many games a format plans for an event, known before the first result.

Round robin, gauntlet and Swiss play a count fixed by the event. An elimination's count
depends on results: a tied series plays deciders, and a double elimination's grand final
is played again when the losers' bracket champion wins it. Its plan is the count when
every series is won outright and no reset is needed: "about" that many.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from tournaments.formats import next_matches, swiss
from tournaments.formats.common import Event, Finished, Result

EXACT = frozenset({"round_robin", "gauntlet", "swiss"})
# These answer every game of the event at once, before any result.
ALL_AT_ONCE = frozenset({"round_robin", "gauntlet"})
# More steps than any event has rounds (a bracket of 1024 has 20 in its losers' side).
MAX_STEPS = 10_000


@dataclass(frozen=True)
class Plan:
    games: int
    exact: bool  # False: "about" that many (elimination)


@functools.lru_cache(maxsize=256)
def planned_games(format: str, event: Event) -> Plan:
    """The games ``format`` plays for ``event``: exact when results cannot change the
    count; else the count when the better seed wins every game (no deciders, no reset).

    Found by asking the format itself, answering every due game, so the plan is the
    format's own and cannot drift from what it schedules. Raises ValueError as
    :func:`next_matches` does for an event the format cannot play.
    """
    if format == "swiss":
        # Every round seats all but the byes: asking the format round by round costs
        # seconds for a large field.
        rounds = swiss.check(event)
        tables = event.entrants // event.players_per_match
        return Plan(games=rounds * tables * event.games_per_pairing, exact=True)
    results: list[Result] = []
    answered: set[str] = set()
    for _ in range(MAX_STEPS):
        due = next_matches(format, event, results)
        if isinstance(due, Finished):
            return Plan(games=len(results), exact=format in EXACT)
        if format in ALL_AT_ONCE:
            return Plan(games=len({pairing.key for pairing in due}), exact=True)
        for pairing in due:
            if pairing.key in answered:
                continue
            answered.add(pairing.key)
            # The better seed (the lower index) takes the better place, never a tie.
            order = sorted(pairing.seats)
            ranks = tuple(order.index(seat) + 1 for seat in pairing.seats)
            results.append(Result(pairing, ranks))
    raise ValueError(f"{format} did not finish within {MAX_STEPS} steps")
