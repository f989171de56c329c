"""Weng and Lin's Plackett-Luce update, as OpenSkill 6.2.0 computes it by default.

Teams are ranked (1 = best, ties share); a team's mu and variance are the sums of
its players'; every player moves by their share of the team's variance. Written
out here (the ``openskill`` package is not a dependency) with its defaults:
mu 25, sigma 25/3, beta 25/6, tau 25/300 added to every sigma before the game,
kappa 0.0001 as the floor of a variance's shrink factor, gamma = sqrt(team
variance) / c.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MU = 25.0
SIGMA = MU / 3.0
BETA = SIGMA / 2.0
TAU = MU / 300.0
KAPPA = 0.0001


@dataclass(frozen=True)
class PlackettLuceRating:
    mu: float = MU
    sigma: float = SIGMA


def rate(
    teams: Sequence[Sequence[PlackettLuceRating]],
    ranks: Sequence[int],
    *,
    beta: float = BETA,
    tau: float = TAU,
    kappa: float = KAPPA,
) -> list[list[PlackettLuceRating]]:
    """New ratings of every player of every team after one ranked game."""
    if len(teams) != len(ranks) or len(teams) < 2:
        raise ValueError("one rank per team, at least two teams")
    teams = [[PlackettLuceRating(p.mu, math.hypot(p.sigma, tau)) for p in team] for team in teams]
    team_mu = [sum(p.mu for p in team) for team in teams]
    team_variance = [sum(p.sigma * p.sigma for p in team) for team in teams]
    c = math.sqrt(sum(v + beta * beta for v in team_variance))
    strength = [math.exp(mu / c) for mu in team_mu]
    # The teams still in the race when team q finished: itself and all ranked below.
    sum_q = [sum(s for s, r in zip(strength, ranks) if r >= rank_q) for rank_q in ranks]
    tied = [sum(1 for r in ranks if r == rank_q) for rank_q in ranks]

    updated = []
    for i, team in enumerate(teams):
        omega = delta = 0.0
        for q in range(len(teams)):
            if ranks[q] <= ranks[i]:
                share = strength[i] / sum_q[q]
                delta += share * (1.0 - share) / tied[q]
                omega += ((1.0 - share) if q == i else -share) / tied[q]
        omega *= team_variance[i] / c
        delta *= team_variance[i] / (c * c)
        delta *= math.sqrt(team_variance[i]) / c
        new_team = []
        for player in team:
            weight = player.sigma * player.sigma / team_variance[i]
            new_team.append(
                PlackettLuceRating(
                    player.mu + weight * omega,
                    player.sigma * math.sqrt(max(1.0 - weight * delta, kappa)),
                )
            )
        updated.append(new_team)
    return updated
