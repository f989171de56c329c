"""Sequential probability ratio test on logistic Elo, as fishtest runs it.

H0: the Elo difference is ``elo0``; H1: it is ``elo1``. The log-likelihood ratio
(LLR) is computed from the observed outcome frequencies; the test stops when it
leaves the bounds that alpha (false H1) and beta (false H0) fix.

The main method is fishtest's generalised SPRT: for each hypothesis, the outcome
distribution closest to the observed one whose expected score is that
hypothesis's score (a maximum-likelihood estimate under a mean constraint). It
works the same on single games (trinomial: 0, 1/2, 1) and on game pairs
(pentanomial: 0, 1/4, ..., 1 per game), which is what paired duplicate deals need.
The normal approximation is kept beside it as a check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tournaments.ratings.match import PAIR_SCORES, score_from_elo

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
# Empty outcome buckets get this count, so that a fresh test (or one with no
# draws yet) has a defined LLR; fishtest regularises the same way.
EMPTY_BUCKET = 1e-3


class Verdict(StrEnum):
    H0 = "H0"  # accept H0: not the stronger version
    H1 = "H1"  # accept H1: stronger by elo1
    CONTINUE = "continue"


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def verdict(llr: float, alpha: float = 0.05, beta: float = 0.05) -> Verdict:
    lower, upper = bounds(alpha, beta)
    if llr >= upper:
        return Verdict.H1
    if llr <= lower:
        return Verdict.H0
    return Verdict.CONTINUE


def _frequencies(counts: Sequence[float]) -> tuple[float, list[float]]:
    regularised = [c if c > 0 else EMPTY_BUCKET for c in counts]
    total = sum(regularised)
    return sum(counts), [c / total for c in regularised]


def mle_with_mean(
    probabilities: Sequence[float], outcomes: Sequence[float], mean: float
) -> list[float]:
    """The distribution on ``outcomes`` with expectation ``mean`` that is most likely
    to have produced the observed ``probabilities``.

    By Lagrange multipliers it is p_i / (1 + x (a_i - mean)) with x the root of
    sum p_i (a_i - mean) / (1 + x (a_i - mean)) = 0, which is decreasing in x on the
    interval where every denominator stays positive; bisection finds it.
    """
    deviations = [a - mean for a in outcomes]
    high_dev = max(deviations)
    low_dev = min(deviations)
    if high_dev <= 0 or low_dev >= 0:
        raise ValueError("the mean must lie strictly inside the range of the outcomes")
    lo, hi = -1.0 / high_dev, -1.0 / low_dev

    def slope(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for p, d in zip(probabilities, deviations))

    # Shrink the open interval slightly so the denominators stay positive.
    span = hi - lo
    lo, hi = lo + span * 1e-12, hi - span * 1e-12
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    x = (lo + hi) / 2.0
    fitted = [p / (1.0 + x * d) for p, d in zip(probabilities, deviations)]
    total = sum(fitted)
    return [p / total for p in fitted]


def _llr_mle(counts: Sequence[float], outcomes: Sequence[float], elo0: float, elo1: float):
    units, freq = _frequencies(counts)
    if units <= 0:
        return 0.0
    p0 = mle_with_mean(freq, outcomes, score_from_elo(elo0))
    p1 = mle_with_mean(freq, outcomes, score_from_elo(elo1))
    return units * sum(f * (math.log(a) - math.log(b)) for f, a, b in zip(freq, p1, p0))


def _llr_normal(counts: Sequence[float], outcomes: Sequence[float], elo0: float, elo1: float):
    units, freq = _frequencies(counts)
    if units <= 0:
        return 0.0
    mean = sum(f * a for f, a in zip(freq, outcomes))
    variance = sum(f * (a - mean) ** 2 for f, a in zip(freq, outcomes))
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return units * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


def llr_trinomial(
    *, wins: float, draws: float, losses: float, elo0: float, elo1: float, method: str = "mle"
) -> float:
    """LLR of H1 (``elo1``) against H0 (``elo0``) from independent games."""
    counts = (losses, draws, wins)
    if method == "mle":
        return _llr_mle(counts, TRINOMIAL_SCORES, elo0, elo1)
    if method == "normal":
        return _llr_normal(counts, TRINOMIAL_SCORES, elo0, elo1)
    raise ValueError(f"unknown method {method!r}: 'mle' or 'normal'")


def llr_pentanomial(
    counts: Sequence[int], elo0: float, elo1: float, *, method: str = "mle"
) -> float:
    """LLR from game pairs; ``counts[k]`` pairs scored k/2 points out of 2."""
    if len(counts) != 5:
        raise ValueError("pentanomial counts are five: pairs scoring 0, 1/2, 1, 3/2 and 2")
    if method == "mle":
        return _llr_mle(counts, PAIR_SCORES, elo0, elo1)
    if method == "normal":
        return _llr_normal(counts, PAIR_SCORES, elo0, elo1)
    raise ValueError(f"unknown method {method!r}: 'mle' or 'normal'")


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float
    upper: float
    verdict: Verdict


def sprt_pentanomial(
    counts: Sequence[int],
    elo0: float,
    elo1: float,
    *,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtState:
    """Everything a gating page shows: the LLR, its bounds and the verdict so far."""
    llr = llr_pentanomial(counts, elo0, elo1)
    lower, upper = bounds(alpha, beta)
    return SprtState(llr=llr, lower=lower, upper=upper, verdict=verdict(llr, alpha, beta))


def sprt_trinomial(
    *,
    wins: float,
    draws: float,
    losses: float,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtState:
    llr = llr_trinomial(wins=wins, draws=draws, losses=losses, elo0=elo0, elo1=elo1)
    lower, upper = bounds(alpha, beta)
    return SprtState(llr=llr, lower=lower, upper=upper, verdict=verdict(llr, alpha, beta))
