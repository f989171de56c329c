"""Statistics of one pairing, cutechess-cli style, on single games or on game pairs.

Games dealt in pairs on the same cards (duplicate play, seats swapped) are not
independent: a good deal helps both games of a pair in opposite directions. So a
record of pairs is summarised by pair scores (0, 1/2, 1, 3/2, 2 per pair: the
pentanomial counts fishtest uses) and its variance is taken over pairs, not games.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

_NORMAL = NormalDist()
# The two-sided 95% quantile of the standard normal (1.95996...).
Z95 = _NORMAL.inv_cdf(0.975)

# Pair score of each pentanomial bucket, as a per-game score (0, 1/4, ..., 1).
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def elo_from_score(score: float) -> float:
    """Logistic Elo difference that an expected score implies (+-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a side rated ``elo`` points above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def los_from_wins_losses(wins: float, losses: float) -> float:
    """Likelihood of superiority in percent, from decisive games only (cutechess).

    Draws carry no information on which side is better under this model; with no
    decisive game the answer is an even 50.
    """
    if wins + losses <= 0:
        return 50.0
    return 50.0 + 50.0 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


@dataclass(frozen=True)
class MatchStats:
    """A pairing's summary from the first side's point of view."""

    units: float  # games (trinomial) or game pairs (pentanomial); weights may be fractional
    games: float
    score: float  # mean score per game, 0..1
    stdev: float  # standard error of ``score``
    elo: float  # Elo difference implied by ``score``
    margin: float  # half-width of the 95% Elo interval (inf when undefined)
    los: float  # likelihood of superiority, percent
    z: float = Z95  # the normal quantile the margin was taken at

    @property
    def elo_low(self) -> float:
        return score_interval_elo(self.score, self.stdev, self.z)[0]

    @property
    def elo_high(self) -> float:
        return score_interval_elo(self.score, self.stdev, self.z)[1]


def score_interval_elo(score: float, stdev: float, z: float = Z95) -> tuple[float, float]:
    """The Elo interval that the score interval ``score +- z * stdev`` maps to."""
    return elo_from_score(score - z * stdev), elo_from_score(score + z * stdev)


def _elo_margin(score: float, stdev: float, z: float) -> float:
    low, high = score_interval_elo(score, stdev, z)
    if math.isinf(low) or math.isinf(high):
        return math.inf
    return (high - low) / 2.0


def _summary(
    counts: Sequence[float], outcomes: Sequence[float], z: float
) -> tuple[float, float, float, float, float]:
    """Mean per-game score, its standard error, the Elo and its margin."""
    units = sum(counts)
    if units <= 0:
        return 0, 0.5, 0.0, 0.0, math.inf
    mean = sum(c * x for c, x in zip(counts, outcomes)) / units
    variance = sum(c * (x - mean) ** 2 for c, x in zip(counts, outcomes)) / units
    stdev = math.sqrt(variance / units)
    return units, mean, stdev, elo_from_score(mean), _elo_margin(mean, stdev, z)


def trinomial(*, wins: float, draws: float, losses: float, z: float = Z95) -> MatchStats:
    """Summary of independent games: cutechess-cli's Elo, margin and LOS.

    Keyword-only: W-D-L and W-L-D orders are both common, and a swap is silent.
    """
    units, mean, stdev, elo, margin = _summary((losses, draws, wins), (0.0, 0.5, 1.0), z)
    return MatchStats(
        units=units,
        games=units,
        score=mean,
        stdev=stdev,
        elo=elo,
        margin=margin,
        los=los_from_wins_losses(wins, losses),
        z=z,
    )


def pentanomial(counts: Sequence[int], *, z: float = Z95) -> MatchStats:
    """Summary of game pairs; ``counts[k]`` pairs scored k/2 points out of 2.

    The variance is the variance of pair scores, so a deal that decides both games
    of its pair is not counted as two independent pieces of evidence. LOS is the
    normal approximation on the same mean and standard error (fishtest's).
    """
    if len(counts) != 5:
        raise ValueError("pentanomial counts are five: pairs scoring 0, 1/2, 1, 3/2 and 2")
    units, mean, stdev, elo, margin = _summary(counts, PAIR_SCORES, z)
    if stdev > 0:
        los = 100.0 * _NORMAL.cdf((mean - 0.5) / stdev)
    else:
        los = 50.0 if mean == 0.5 else (100.0 if mean > 0.5 else 0.0)
    return MatchStats(
        units=units,
        games=2 * units,
        score=mean,
        stdev=stdev,
        elo=elo,
        margin=margin,
        los=los,
        z=z,
    )


def pair_bucket(first: float, second: float) -> int:
    """Pentanomial bucket (0..4) of a pair from the side's two game scores (0, 1/2, 1)."""
    return round(2 * (first + second))


def pentanomial_counts(pairs: Iterable[tuple[float, float]]) -> list[int]:
    """Pentanomial counts from the side's scores in each pair of games."""
    counts = [0] * 5
    for first, second in pairs:
        counts[pair_bucket(first, second)] += 1
    return counts


def rank_score(rank: int, other_rank: int) -> float:
    """One side's score against another in a ranked result (1 = best; ties share)."""
    if rank < other_rank:
        return 1.0
    if rank == other_rank:
        return 0.5
    return 0.0


def head_to_head_scores(
    results: Iterable[tuple[Sequence[Hashable], Sequence[int]]], first: Hashable, second: Hashable
) -> list[float]:
    """``first``'s score against ``second`` in each multi-seat result where both sat.

    A result is (the key at each seat, the rank of each seat). Every result with
    both keys gives one pairwise comparison by rank, so a 4-seat game is a win, a
    draw or a loss between the two, whatever the other seats did.
    """
    scores = []
    for keys, ranks in results:
        keys = list(keys)
        if first in keys and second in keys:
            scores.append(rank_score(ranks[keys.index(first)], ranks[keys.index(second)]))
    return scores


def wdl(scores: Iterable[float]) -> tuple[int, int, int]:
    """(wins, draws, losses) from per-game scores of 1, 1/2 and 0."""
    wins = draws = losses = 0
    for score in scores:
        if score == 1.0:
            wins += 1
        elif score == 0.0:
            losses += 1
        else:
            draws += 1
    return wins, draws, losses
