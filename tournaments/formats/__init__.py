"""Tournament formats as pure logic: who plays whom, in which seats, on which deal.

Nothing here imports Django. Every format answers the same question,
:func:`next_matches` (event, finished games) -> games due now, or Finished
with the final order. See :mod:`tournaments.formats.common` for the types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tournaments.formats import double_elimination, gauntlet, single_elimination, swiss
from tournaments.formats import round_robin as _round_robin_module
from tournaments.formats.common import Event, Finished, Pairing, Result, Standing
from tournaments.formats.round_robin import PlannedMatch, berger_table

# The planner the scheduling service calls today (the module of the same name
# stays importable as tournaments.formats.round_robin via sys.modules).
round_robin = _round_robin_module.round_robin

FORMATS: dict[str, Callable[[Event, Sequence[Result]], list[Pairing] | Finished]] = {
    "round_robin": _round_robin_module.next_matches,
    "swiss": swiss.next_matches,
    "single_elimination": single_elimination.next_matches,
    "double_elimination": double_elimination.next_matches,
    "gauntlet": gauntlet.next_matches,
}


def next_matches(format: str, event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    """The games due now (a game may be returned again until its result arrives), or Finished.

    Raises ValueError for an unknown format or one that cannot be played with
    this event's entrants, seats or parameters.
    """
    try:
        planner = FORMATS[format]
    except KeyError:
        raise ValueError(f"unknown format {format!r}") from None
    return planner(event, results)


__all__ = [
    "FORMATS",
    "Event",
    "Finished",
    "Pairing",
    "PlannedMatch",
    "Result",
    "Standing",
    "berger_table",
    "next_matches",
    "round_robin",
]
