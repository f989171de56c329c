"""A competition's ladder in divisions (the leagues of AI Arena and CodinGame): pure logic.

Entrants are any distinct integers (the service passes entry ids). The ladder order is the
list of every entrant, best first; divisions are cut from it top-down, division 1 the top.

- Cutting: ``size`` each from the top; a remainder too small to play (fewer than
  ``minimum``, the game's seats) joins the division above instead of making its own. No size
  plays everyone in one division.
- A division's table for a cycle: from the finished games its entrants played in that
  division during the cycle, each game scored by rank as the tournament formats score it
  (1 for beating every other seat, 1/2 per tie, 0 for last; tournaments.formats.common).
  Ranked by points per game (entrants may play unequal numbers of games on a ladder), then
  by games played (more first), then head-to-head points among those still level, then the
  order the entrants were given in (the service gives entry order: earlier entrant first).
- At a cycle's end the top ``promote`` of each division move up one and the bottom
  ``promote`` move down one; between two divisions at most half of the smaller one (rounded
  down) changes places, so no entrant both rises and falls and a division never empties.
  Then the divisions are cut again from the resulting order: that only changes anything
  when entrants joined (they play through the bottom division) or left (the entrant just
  relegated into the place below is reprieved first).
- The deal of the competition's ladder table ``t`` comes from the competition's committed
  seed (``competition_table_seed``), so an archive's reader checks every deal against it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from games.rng import derive_seed
from tournaments.formats.common import Pairing, Result, game_scores, pairwise_scores
from tournaments.formats.standings import HEAD_TO_HEAD, rank

GAMES = "games"
TIEBREAKS = (GAMES, HEAD_TO_HEAD)


def competition_table_seed(seed: int, table: int) -> int:
    """The deal seed of the competition's ladder table ``table`` (1, 2, ...): every game of
    the table (its seats rotated) is dealt from it. 62 bits, as the tournaments' deals."""
    return derive_seed(seed, "competition-table", table) >> 2


def split(order: Sequence[int], *, size: int | None, minimum: int = 2) -> list[list[int]]:
    """Divisions cut from the ladder ``order`` (best first), top division first.

    ``size`` entrants each from the top; a remainder below ``minimum`` joins the division
    above (so the bottom division may hold up to ``size + minimum - 1``). A ``size`` below
    ``minimum`` counts as ``minimum``; None is one division of everyone.
    """
    order = list(order)
    if len(set(order)) != len(order):
        raise ValueError("an entrant appears twice in the order")
    if not order:
        return []
    if size is not None:
        size = max(size, minimum, 1)
    if size is None or len(order) <= size:
        return [order]
    divisions = [order[i : i + size] for i in range(0, len(order), size)]
    if len(divisions) > 1 and len(divisions[-1]) < minimum:
        divisions[-2].extend(divisions.pop())
    return divisions


@dataclass(frozen=True)
class Game:
    """A finished game of a division's cycle: ``ranks[i]`` (1 best, ties share) is the
    place of ``seats[i]``, an entrant; a seat of someone no longer in the table (left the
    competition, disqualified) still counts for the others' scores."""

    seats: tuple[int, ...]
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class Row:
    """An entrant's line of a division's table."""

    entrant: int
    place: int  # 1 best; ties are broken (see the module's doc)
    points: Fraction  # game points: 1 a win over every other seat, 1/2 per tie
    games: int
    score: Fraction  # points per game: what the table is ranked by (0 with no game)


def division_table(entrants: Sequence[int], games: Iterable[Game]) -> list[Row]:
    """The table of one division for one cycle, best first.

    ``entrants`` are the division's, in the order that breaks a tie nothing else breaks;
    ``games`` its finished games of the cycle (seats of others count for nobody).
    """
    entrants = list(entrants)
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant appears twice in the division")
    index = {entrant: i for i, entrant in enumerate(entrants)}
    count = len(entrants)
    points = [Fraction(0)] * count
    played = [0] * count
    scored_against: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for game in games:
        if len(game.seats) != len(game.ranks):
            raise ValueError("a game needs one rank per seat")
        # Outsiders get indexes past the table's so they score (for the others) apart.
        outsiders = iter(range(count, count + len(game.seats)))
        seats = tuple(index[s] if s in index else next(outsiders) for s in game.seats)
        result = Result(
            pairing=Pairing(key="", round=0, seats=seats, deal=0, group=0), ranks=game.ranks
        )
        for seat, score in game_scores(result).items():
            if seat < count:
                points[seat] += score
                played[seat] += 1
        for (a, b), score in pairwise_scores(result).items():
            if a < count and b < count:
                scored_against[(a, b)] += score
    scores = [points[i] / played[i] if played[i] else Fraction(0) for i in range(count)]
    standings = rank(
        entrants=count,
        points=scores,
        numeric={GAMES: [Fraction(n) for n in played]},
        order=TIEBREAKS,
        scored_against=scored_against,
        faults=[0] * count,
    )
    return [
        Row(
            entrant=entrants[s.entrant],
            place=s.place,
            points=points[s.entrant],
            games=played[s.entrant],
            score=scores[s.entrant],
        )
        for s in standings
    ]


def moves(sizes: Sequence[int], *, promote: int) -> list[int]:
    """How many entrants change places between division d and d+1, for each adjacent
    pair: ``promote``, but at most half of either division (rounded down)."""
    return [max(0, min(promote, upper // 2, lower // 2)) for upper, lower in zip(sizes, sizes[1:])]


def promoted(tables: Sequence[Sequence[int]], *, promote: int) -> list[list[int]]:
    """The divisions after a cycle's promotion and relegation, top first: ``tables`` are
    each division's entrants in their table's order (best first).

    A division's new order: those relegated from above, then its entrants who stay, in
    their table's order, then those promoted from below. So when the divisions are cut
    again, a place left by an entrant gone goes first to the entrant just relegated from
    it (a reprieve, as leagues do), and a new division opened at the bottom takes the
    bottom division's last, never an entrant that just came down.
    """
    tables = [list(t) for t in tables]
    counts = moves([len(t) for t in tables], promote=promote)
    result = []
    for d, table in enumerate(tables):
        up = counts[d - 1] if d > 0 else 0  # this division's top going up
        down = counts[d] if d < len(counts) else 0  # its bottom going down
        stay = table[up : len(table) - down]
        from_above = tables[d - 1][len(tables[d - 1]) - up :] if up else []
        from_below = tables[d + 1][:down] if down else []
        result.append(from_above + stay + from_below)
    return result


def next_divisions(
    tables: Sequence[Sequence[int]],
    *,
    promote: int,
    size: int | None,
    minimum: int = 2,
    newcomers: Sequence[int] = (),
) -> list[list[int]]:
    """The divisions of the next cycle: promotion and relegation between ``tables`` (each
    division's entrants, best first), ``newcomers`` at the very bottom, and the divisions
    cut again from that order (``split``)."""
    order = [entrant for division in promoted(tables, promote=promote) for entrant in division]
    return split([*order, *newcomers], size=size, minimum=minimum)
