"""Glicko-2 (Glickman, "Example of the Glicko-2 system"): one rating period's update.

A rating carries a deviation (RD, how unsure it is) and a volatility (how much
it is expected to move). Results within a period are applied together; a player
who did not play only sees the deviation grow.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

GLICKO_SCALE = 400.0 / math.log(10.0)  # 173.7178: Glicko-2's internal scale
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.5
_CONVERGENCE = 1e-6


@dataclass(frozen=True)
class Glicko2Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)


def update(
    player: Glicko2Rating,
    results: Iterable[tuple[Glicko2Rating, float]],
    *,
    tau: float = DEFAULT_TAU,
) -> Glicko2Rating:
    """The player's rating after one period of ``(opponent, score)`` results."""
    mu = (player.rating - DEFAULT_RATING) / GLICKO_SCALE
    phi = player.deviation / GLICKO_SCALE
    sigma = player.volatility
    results = list(results)
    if not results:
        return Glicko2Rating(
            player.rating, GLICKO_SCALE * math.sqrt(phi * phi + sigma * sigma), sigma
        )

    inverse_v = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - DEFAULT_RATING) / GLICKO_SCALE
        g_j = _g(opponent.deviation / GLICKO_SCALE)
        expected = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        inverse_v += g_j * g_j * expected * (1.0 - expected)
        improvement += g_j * (score - expected)
    v = 1.0 / inverse_v
    delta = v * improvement

    # New volatility: the root of f by the Illinois variant of regula falsi (step 5).
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)

    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Glicko2Rating(DEFAULT_RATING + GLICKO_SCALE * new_mu, GLICKO_SCALE * new_phi, new_sigma)
