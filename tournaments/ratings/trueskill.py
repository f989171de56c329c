"""TrueSkill (Herbrich, Minka and Graepel) for free-for-all games of single players.

Each player's skill is a Gaussian; a game observes only the order of their
performances (skill plus noise of deviation ``beta``). The update is expectation
propagation on the factor graph of the paper: players sorted by rank, one
difference factor between neighbours, each truncated to "ahead by more than the
draw margin" (or "within it" for a tie), iterated until the messages settle.
Written out here rather than taken from the ``trueskill`` package, which is not
a dependency; teams are not covered (the pools that need teams rate them as
their Elo does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

MU = 25.0
SIGMA = MU / 3.0
BETA = SIGMA / 2.0
TAU = SIGMA / 100.0
DRAW_PROBABILITY = 0.10
_NORMAL = NormalDist()
_MIN_DELTA = 1e-4


@dataclass(frozen=True)
class TrueSkillRating:
    mu: float = MU
    sigma: float = SIGMA


class _Gaussian:
    """A Gaussian in natural parameters: precision pi and precision-adjusted mean tau."""

    __slots__ = ("pi", "tau")

    def __init__(self, pi: float = 0.0, tau: float = 0.0):
        self.pi, self.tau = pi, tau

    @classmethod
    def from_moments(cls, mu: float, sigma: float) -> _Gaussian:
        pi = 1.0 / (sigma * sigma)
        return cls(pi, pi * mu)

    @property
    def mu(self) -> float:
        return self.tau / self.pi if self.pi else 0.0

    @property
    def sigma(self) -> float:
        return math.sqrt(1.0 / self.pi) if self.pi else math.inf

    def __mul__(self, other: _Gaussian) -> _Gaussian:
        return _Gaussian(self.pi + other.pi, self.tau + other.tau)

    def __truediv__(self, other: _Gaussian) -> _Gaussian:
        return _Gaussian(self.pi - other.pi, self.tau - other.tau)


class _Variable:
    """A variable's marginal and the last message each factor sent it."""

    def __init__(self):
        self.value = _Gaussian()
        self.messages: dict[object, _Gaussian] = {}

    def set_message(self, factor: object, message: _Gaussian) -> float:
        old = self.messages.get(factor, _Gaussian())
        self.messages[factor] = message
        return self._set(self.value / old * message)

    def set_value(self, factor: object, value: _Gaussian) -> float:
        old = self.messages.get(factor, _Gaussian())
        self.messages[factor] = value * old / self.value
        return self._set(value)

    def _set(self, value: _Gaussian) -> float:
        delta = max(abs(self.value.tau - value.tau), math.sqrt(abs(self.value.pi - value.pi)))
        self.value = value
        return delta

    def without(self, factor: object) -> _Gaussian:
        return self.value / self.messages.get(factor, _Gaussian())


def _v_win(diff: float, margin: float) -> float:
    x = diff - margin
    return _NORMAL.pdf(x) / _NORMAL.cdf(x)


def _w_win(diff: float, margin: float) -> float:
    v = _v_win(diff, margin)
    return v * (v + diff - margin)


def _v_draw(diff: float, margin: float) -> float:
    a, b = margin - abs(diff), -margin - abs(diff)
    value = (_NORMAL.pdf(b) - _NORMAL.pdf(a)) / (_NORMAL.cdf(a) - _NORMAL.cdf(b))
    return -value if diff < 0 else value


def _w_draw(diff: float, margin: float) -> float:
    a, b = margin - abs(diff), -margin - abs(diff)
    v = _v_draw(abs(diff), margin)
    return v * v + (a * _NORMAL.pdf(a) - b * _NORMAL.pdf(b)) / (_NORMAL.cdf(a) - _NORMAL.cdf(b))


class _Difference:
    """d = left - right, with its truncation (left ahead, or a tie)."""

    def __init__(self, left: _Variable, right: _Variable, margin: float, tie: bool):
        self.left, self.right, self.margin, self.tie = left, right, margin, tie
        self.diff = _Variable()

    @staticmethod
    def _sum(terms: Sequence[tuple[float, _Gaussian]]) -> _Gaussian:
        variance = 0.0
        mean = 0.0
        for coeff, gaussian in terms:
            mean += coeff * gaussian.mu
            variance = math.inf if gaussian.pi == 0 else variance + coeff * coeff / gaussian.pi
        pi = 0.0 if math.isinf(variance) else 1.0 / variance
        return _Gaussian(pi, pi * mean)

    def down(self) -> None:
        message = self._sum([(1.0, self.left.without(self)), (-1.0, self.right.without(self))])
        self.diff.set_message(self, message)

    def up_left(self) -> None:
        # left = d + right
        message = self._sum([(1.0, self.diff.without(self)), (1.0, self.right.without(self))])
        self.left.set_message(self, message)

    def up_right(self) -> None:
        # right = left - d
        message = self._sum([(1.0, self.left.without(self)), (-1.0, self.diff.without(self))])
        self.right.set_message(self, message)

    def truncate(self) -> float:
        cavity = self.diff.without(self._truncation_key)
        sqrt_pi = math.sqrt(cavity.pi)
        diff, margin = cavity.tau / sqrt_pi, self.margin * sqrt_pi
        if self.tie:
            v, w = _v_draw(diff, margin), _w_draw(diff, margin)
        else:
            v, w = _v_win(diff, margin), _w_win(diff, margin)
        denominator = 1.0 - w
        value = _Gaussian(cavity.pi / denominator, (cavity.tau + sqrt_pi * v) / denominator)
        return self.diff.set_value(self._truncation_key, value)

    @property
    def _truncation_key(self) -> tuple:
        return ("truncation", id(self))


def draw_margin(draw_probability: float, players: int, beta: float = BETA) -> float:
    return _NORMAL.inv_cdf((draw_probability + 1.0) / 2.0) * math.sqrt(players) * beta


def rate(
    ratings: Sequence[TrueSkillRating],
    ranks: Sequence[int],
    *,
    beta: float = BETA,
    tau: float = TAU,
    draw_probability: float = DRAW_PROBABILITY,
) -> list[TrueSkillRating]:
    """New ratings of players in one free-for-all game (rank 1 = best, ties share)."""
    if len(ratings) != len(ranks) or len(ratings) < 2:
        raise ValueError("one rank per player, at least two players")
    order = sorted(range(len(ratings)), key=lambda i: ranks[i])
    skills = [_Variable() for _ in order]
    performances = [_Variable() for _ in order]
    beta_sq = beta * beta

    for skill, index in zip(skills, order):
        prior = ratings[index]
        skill.set_value("prior", _Gaussian.from_moments(prior.mu, math.hypot(prior.sigma, tau)))
    for skill, performance in zip(skills, performances):
        cavity = skill.without("noise")
        a = 1.0 / (1.0 + beta_sq * cavity.pi)
        performance.set_message("noise", _Gaussian(a * cavity.pi, a * cavity.tau))

    margin = draw_margin(draw_probability, 2, beta)
    differences = [
        _Difference(
            performances[k],
            performances[k + 1],
            margin,
            ranks[order[k]] == ranks[order[k + 1]],
        )
        for k in range(len(order) - 1)
    ]
    for _ in range(100):
        if len(differences) == 1:
            differences[0].down()
            delta = differences[0].truncate()
        else:
            delta = 0.0
            for difference in differences[:-1]:
                difference.down()
                delta = max(delta, difference.truncate())
                difference.up_right()
            for difference in differences[:0:-1]:
                difference.down()
                delta = max(delta, difference.truncate())
                difference.up_left()
        if delta <= _MIN_DELTA:
            break
    differences[0].up_left()
    differences[-1].up_right()

    updated: list[TrueSkillRating | None] = [None] * len(ratings)
    for skill, performance, index in zip(skills, performances, order):
        cavity = performance.without("noise")
        a = 1.0 / (1.0 + beta_sq * cavity.pi)
        skill.set_message("noise", _Gaussian(a * cavity.pi, a * cavity.tau))
        updated[index] = TrueSkillRating(skill.value.mu, skill.value.sigma)
    return updated  # type: ignore[return-value]
