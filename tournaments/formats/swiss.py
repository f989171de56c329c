"""Swiss system: a fixed number of rounds, each pairing entrants of equal scores.

Two seats follow the Dutch system: entrants are ranked by score then seed;
inside a score group the top half meets the bottom half (1st against the
first of the lower half, and so on); whoever is left over floats down to the
next group; a rematch is taken only when no pairing of the round avoids it
(the search is exhaustive for small fields and bounded for large ones, where
a rematch-free pairing is easy to find); seats alternate. With an odd field the lowest-ranked entrant without a bye
sits out and scores a win. For 3+ seats, tables are filled from neighbouring
ranks, avoiding a table that has already played while that is possible.

A pairing of ``games_per_pairing`` duplicate games scores like a chess
match: 1 to the side with more game points, 1/2 each when level (for tables,
shared by place at the table). Every table of a round is dealt the same
cards. Tie-breaks: Buchholz (opponents' scores; for tables, the mean of the
table-mates'; a bye adds nothing), Sonneborn-Berger (each round's score
times that opponent's score), head-to-head, fewer faults.
"""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from tournaments.formats.common import (
    Event,
    Finished,
    Pairing,
    Result,
    by_key,
    faults_of,
    game_scores,
    pairwise_scores,
    rotation,
)
from tournaments.formats.standings import FAULTS, HEAD_TO_HEAD, rank

TIEBREAKS = ("buchholz", "sonneborn_berger", HEAD_TO_HEAD, FAULTS)
# Pairing is a backtracking search; this many steps bound one pass over a round.
SEARCH_BUDGET = 5_000


def default_rounds(entrants: int) -> int:
    return math.ceil(math.log2(max(entrants, 2))) + 1


def check(event: Event) -> int:
    rounds = event.rounds if event.rounds is not None else default_rounds(event.entrants)
    if event.players_per_match < 2 or event.entrants < event.players_per_match:
        raise ValueError(
            f"{event.entrants} entrants cannot fill {event.players_per_match}-seat tables"
        )
    if rounds < 1:
        raise ValueError("a Swiss event needs at least one round")
    if event.games_per_pairing < 1:
        raise ValueError("a pairing needs at least one game")
    return rounds


@dataclass
class History:
    """What the pairing of the next round needs to know about the rounds before it."""

    entrants: int
    score: list[Fraction]
    had_bye: list[bool]
    met: list[set[int]]
    tables: set[frozenset[int]] = field(default_factory=set)
    first_seats: list[int] = field(default_factory=list)  # first seats minus second seats
    last_first: list[bool | None] = field(default_factory=list)

    @classmethod
    def empty(cls, entrants: int) -> History:
        return cls(
            entrants=entrants,
            score=[Fraction(0)] * entrants,
            had_bye=[False] * entrants,
            met=[set() for _ in range(entrants)],
            first_seats=[0] * entrants,
            last_first=[None] * entrants,
        )

    def ranking(self) -> list[int]:
        return sorted(range(self.entrants), key=lambda a: (-self.score[a], a))


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[tuple[int, ...], ...]  # entrants of each table, first seat first
    byes: tuple[int, ...]


class _OutOfBudget(Exception):
    pass


def _seat_clash(a: int, b: int, history: History) -> bool:
    """Both already had one seat twice more than the other: one of them would reach three."""
    balance_a, balance_b = history.first_seats[a], history.first_seats[b]
    return (balance_a >= 2 and balance_b >= 2) or (balance_a <= -2 and balance_b <= -2)


class _Budget:
    """Steps left for one round's pairing search, shared by all its attempts."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget


def _pair_two(
    order: list[int],
    history: History,
    allow_rematch: bool,
    avoid_seat_clash: bool,
    budget: _Budget,
) -> list[tuple[int, int]] | None:
    score, met = history.score, history.met
    # How many entrants each one could still meet for the first time among those unpaired.
    fresh = {x: sum(1 for y in order if y != x and y not in met[x]) for x in order}

    def candidates(top: int, rest: list[int]) -> list[int]:
        group = [x for x in rest if score[x] == score[top]]
        if not group:
            return rest  # a floater meets the highest-ranked of the groups below
        half = (len(group) + 1) // 2 - 1
        lower = [x for x in rest if score[x] != score[top]]
        return group[half:] + group[:half][::-1] + lower

    def take(pair: tuple[int, int], remaining: list[int], sign: int) -> bool:
        """Count ``pair`` out of (sign -1) or back into (sign +1) the others' fresh options."""
        stuck = False
        for x in remaining:
            fresh[x] += sign * sum(1 for y in pair if y not in met[x])
            stuck = stuck or fresh[x] == 0
        return stuck

    def solve(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        top, others = rest[0], rest[1:]
        for partner in candidates(top, others):
            budget.spend()
            if not allow_rematch and partner in met[top]:
                continue
            if avoid_seat_clash and _seat_clash(top, partner, history):
                continue
            remaining = [x for x in others if x != partner]
            stuck = take((top, partner), remaining, -1)
            # Without rematches, someone left with nobody new to meet is a dead end.
            found = None if stuck and not allow_rematch else solve(remaining)
            take((top, partner), remaining, +1)
            if found is not None:
                return [(top, partner), *found]
        return None

    try:
        return solve(order)
    except _OutOfBudget:
        return None


def _pair_tables(
    order: list[int], size: int, history: History, allow_repeat: bool, budget: _Budget
) -> list[tuple[int, ...]] | None:

    def solve(rest: list[int]) -> list[tuple[int, ...]] | None:
        if not rest:
            return []
        top, others = rest[0], rest[1:]
        for mates in combinations(others, size - 1):
            budget.spend()
            table = (top, *mates)
            if not allow_repeat and frozenset(table) in history.tables:
                continue
            found = solve([x for x in others if x not in mates])
            if found is not None:
                return [table, *found]
        return None

    try:
        return solve(order)
    except _OutOfBudget:
        return None


def _seat_order(a: int, b: int, history: History, board: int) -> tuple[int, int]:
    """Who takes the first seat: whoever had it less often, else whoever had the second
    seat last round, else alternately by board (the higher-ranked first on board 1)."""
    if history.first_seats[a] != history.first_seats[b]:
        return (a, b) if history.first_seats[a] < history.first_seats[b] else (b, a)
    if history.last_first[a] is not None and history.last_first[a] != history.last_first[b]:
        return (b, a) if history.last_first[a] else (a, b)
    return (a, b) if board % 2 == 0 else (b, a)


def _history_key(history: History) -> tuple:
    return (
        tuple(history.score),
        tuple(history.had_bye),
        tuple(frozenset(m) for m in history.met),
        frozenset(history.tables),
        tuple(history.first_seats),
        tuple(history.last_first),
    )


# Every question runs the event again from round 1, so rounds already paired are
# remembered (pairing is a pure function of the event and the history).
_paired: OrderedDict[tuple, Round] = OrderedDict()
_PAIRED_KEPT = 1024


def pair_round(event: Event, history: History, number: int) -> Round:
    key = (event, number, _history_key(history))
    if key in _paired:
        _paired.move_to_end(key)
        return _paired[key]
    round_ = _pair_round(event, history, number)
    _paired[key] = round_
    if len(_paired) > _PAIRED_KEPT:
        _paired.popitem(last=False)
    return round_


def _pair_round(event: Event, history: History, number: int) -> Round:
    size = event.players_per_match
    ranking = history.ranking()
    sitting_out = len(ranking) % size
    # Bye candidates: lowest-ranked first, those who had no bye before the others.
    candidates = [a for a in reversed(ranking) if not history.had_bye[a]]
    candidates += [a for a in reversed(ranking) if history.had_bye[a]]
    bye_sets = [()] if not sitting_out else list(combinations(candidates, sitting_out))
    # Trying every bye set would be slow for big fields; the lowest few are enough.
    bye_sets = bye_sets[:12]
    # Passes: no repeat and no seat clash; no repeat; anything. Each of the first
    # two has its own budget; the last always succeeds at once.
    for allow_repeat, avoid_clash in ((False, True), (False, False), (True, False)):
        if size > 2 and avoid_clash:
            continue
        budget = _Budget(SEARCH_BUDGET if not allow_repeat else 10**9)
        for byes in bye_sets:
            order = [a for a in ranking if a not in byes]
            if size == 2:
                pairs = _pair_two(order, history, allow_repeat, avoid_clash, budget)
                tables = (
                    None
                    if pairs is None
                    else [_seat_order(a, b, history, board) for board, (a, b) in enumerate(pairs)]
                )
            else:
                tables = _pair_tables(order, size, history, allow_repeat, budget)
            if tables is not None:
                return Round(number=number, tables=tuple(tables), byes=tuple(sorted(byes)))
    raise AssertionError("a pairing that allows repeats always exists")


def _round_pairings(event: Event, round_: Round) -> list[Pairing]:
    pairings = []
    for table_number, table in enumerate(round_.tables):
        group = round_.number  # every table of a round plays the same deals
        for game in range(event.games_per_pairing):
            seats, deal = rotation(table, game, event.rotate_seats)
            pairings.append(
                Pairing(
                    key=f"R{round_.number}.T{table_number}.G{game}",
                    round=round_.number,
                    seats=seats,
                    deal=deal,
                    group=group,
                )
            )
    return pairings


def _table_points(table: tuple[int, ...], games: list[Result]) -> dict[int, Fraction]:
    """Each member's round score from the table: place by game points, shared on ties."""
    totals = defaultdict(Fraction)
    for result in games:
        for entrant, score in game_scores(result).items():
            totals[entrant] += score
    others = len(table) - 1
    return {
        a: Fraction(
            2 * sum(1 for b in table if totals[b] < totals[a])
            + sum(1 for b in table if b != a and totals[b] == totals[a]),
            2 * others,
        )
        for a in table
    }


@dataclass(frozen=True)
class Progress:
    rounds: tuple[Round, ...]
    round_scores: tuple[dict[int, Fraction], ...]  # per completed round
    due: tuple[Pairing, ...]  # empty when every round is complete


def progress(event: Event, results: Sequence[Result]) -> Progress:
    """Run the event again: pair each round from the ones before, until one is incomplete."""
    total_rounds = check(event)
    done = by_key(results)
    history = History.empty(event.entrants)
    rounds: list[Round] = []
    scores: list[dict[int, Fraction]] = []
    for number in range(1, total_rounds + 1):
        round_ = pair_round(event, history, number)
        rounds.append(round_)
        pairings = _round_pairings(event, round_)
        due = [p for p in pairings if p.key not in done]
        if due:
            return Progress(tuple(rounds), tuple(scores), tuple(due))
        round_score: dict[int, Fraction] = {a: Fraction(1) for a in round_.byes}
        for table_number, table in enumerate(round_.tables):
            games = [
                done[p.key] for p in pairings if p.key.startswith(f"R{number}.T{table_number}.")
            ]
            round_score.update(_table_points(table, games))
            history.tables.add(frozenset(table))
            for a in table:
                history.met[a].update(b for b in table if b != a)
            if len(table) == 2:
                first, second = table
                history.first_seats[first] += 1
                history.first_seats[second] -= 1
                history.last_first[first], history.last_first[second] = True, False
        for a in round_.byes:
            history.had_bye[a] = True
        for a, value in round_score.items():
            history.score[a] += value
        scores.append(round_score)
    return Progress(tuple(rounds), tuple(scores), ())


def next_matches(event: Event, results: Sequence[Result]) -> list[Pairing] | Finished:
    state = progress(event, results)
    if state.due:
        return list(state.due)
    return finish(event, results, state)


def finish(event: Event, results: Sequence[Result], state: Progress) -> Finished:
    entrants = event.entrants
    points = [Fraction(0)] * entrants
    for round_score in state.round_scores:
        for a, value in round_score.items():
            points[a] += value
    buchholz = [Fraction(0)] * entrants
    sonneborn = [Fraction(0)] * entrants
    for round_, round_score in zip(state.rounds, state.round_scores):
        for table in round_.tables:
            for a in table:
                mates = [b for b in table if b != a]
                mates_points = sum((points[b] for b in mates), Fraction(0)) / len(mates)
                buchholz[a] += mates_points
                sonneborn[a] += round_score[a] * mates_points
    scored_against: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for result in results:
        for pair, score in pairwise_scores(result).items():
            scored_against[pair] += score
    standings = rank(
        entrants=entrants,
        points=points,
        numeric={"buchholz": buchholz, "sonneborn_berger": sonneborn},
        order=TIEBREAKS,
        scored_against=scored_against,
        faults=faults_of(results, entrants),
    )
    return Finished(order=tuple(s.entrant for s in standings), standings=standings)
