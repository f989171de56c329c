"""Final order by points and the tie-breaks of a format, applied in order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction

from tournaments.formats.common import Standing

# ``head_to_head`` and ``faults`` are computed here; the rest come in as numbers.
HEAD_TO_HEAD = "head_to_head"
FAULTS = "faults"


def rank(
    *,
    entrants: int,
    points: Sequence[Fraction],
    numeric: dict[str, Sequence[Fraction]],
    order: Sequence[str],
    scored_against: Mapping[tuple[int, int], Fraction],
    faults: Sequence[int],
) -> tuple[Standing, ...]:
    """Order entrants by points, then each tie-break of ``order`` in turn, then seed.

    ``scored_against[(a, b)]`` is what a scored in games against b; head-to-head
    compares, inside a group still level, what each scored against the others.
    """

    def refine(group: list[int], step: int) -> list[int]:
        if len(group) <= 1 or step == len(order):
            return sorted(group)
        name = order[step]
        if name == HEAD_TO_HEAD:
            value = {
                a: sum(
                    (scored_against.get((a, b), Fraction(0)) for b in group if b != a), Fraction(0)
                )
                for a in group
            }
        elif name == FAULTS:
            value = {a: -faults[a] for a in group}
        else:
            value = {a: numeric[name][a] for a in group}
        buckets: dict[Fraction, list[int]] = defaultdict(list)
        for a in group:
            buckets[value[a]].append(a)
        ordered = []
        for key in sorted(buckets, reverse=True):
            ordered.extend(refine(buckets[key], step + 1))
        return ordered

    buckets: dict[Fraction, list[int]] = defaultdict(list)
    for a in range(entrants):
        buckets[points[a]].append(a)
    ordered = [a for key in sorted(buckets, reverse=True) for a in refine(buckets[key], 0)]
    return tuple(
        Standing(
            entrant=a,
            place=place,
            points=float(points[a]),
            tiebreaks={
                **{name: float(numeric[name][a]) for name in order if name in numeric},
                **({FAULTS: float(faults[a])} if FAULTS in order else {}),
            },
        )
        for place, a in enumerate(ordered, start=1)
    )
