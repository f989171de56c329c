"""Maximum-likelihood Bradley-Terry ratings over a pool, with 95% intervals.

The model: side i scores against side j with probability p_i / (p_i + p_j), a
draw counting half a win to each (so the fit speaks the same Elo as a W-D-L
record). Ratings are 400 log10 p, centred so that the pool's mean rating is the
``anchor`` the caller passes (the pool's current average, so refits do not drift
the scale). The fit is Zermelo's / Hunter's minorisation-maximisation (MM)
iteration, which increases the likelihood at every step and needs no step size.

Uncertainty comes from the observed information (the negative Hessian of the
log-likelihood at the fit), as BayesElo and Ordo do: its inverse, restricted to
centred ratings, is the covariance of the ratings; an interval is +-1.96 standard
deviations and the likelihood of superiority of one player over another uses the
covariance between the two. For large pools the full inverse is too slow in pure
Python, so past ``exact_limit`` players each variance is 1 / (its own
information), which ignores the uncertainty of the opponents' ratings and so is
somewhat narrower.

When no maximum-likelihood fit exists (a player won or lost every game, or the
pool falls apart into groups that never met), every player also gets
``prior_draws`` virtual draws against a virtual player at the pool average. That
pulls the unbounded ratings back to finite values, ties separate groups to the
same scale, and leaves their uncertainty wide. By default the prior is used only
then (so a well-connected pool gets the plain maximum-likelihood fit); pass a
number to always use it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from tournaments.ratings.match import Z95, rank_score

ELO_PER_NEPER = 400.0 / math.log(10.0)
DEFAULT_PRIOR_DRAWS = 1.0
_NORMAL = NormalDist()


@dataclass(frozen=True)
class PairRecord:
    """What ``first`` did against ``second`` (counts may be fractional weights)."""

    first: Hashable
    second: Hashable
    wins: float = 0.0
    draws: float = 0.0
    losses: float = 0.0


def records_from_ranked_results(
    results: Iterable[tuple[Sequence[Hashable], Sequence[int]]],
) -> list[PairRecord]:
    """Pairwise decomposition of ranked multi-seat results into aggregated records.

    A result is (the key of each side, the rank of each side, 1 = best). Each pair
    of sides is one comparison by rank; in a game of n sides each comparison
    weighs 1 / (n - 1), so that every side contributes one game's worth of
    evidence per game, as the live Elo does (the n - 1 comparisons of one game
    share its luck and are not independent).
    """
    tally: dict[tuple[Hashable, Hashable], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for keys, ranks in results:
        n = len(keys)
        if n < 2:
            continue
        weight = 1.0 / (n - 1)
        for i in range(n):
            for j in range(i + 1, n):
                score = rank_score(ranks[i], ranks[j])
                bucket = 0 if score == 1.0 else (1 if score == 0.5 else 2)
                tally[(keys[i], keys[j])][bucket] += weight
    return [PairRecord(a, b, w, d, lo) for (a, b), (w, d, lo) in tally.items()]


@dataclass
class BradleyTerryFit:
    players: list[Hashable]
    elo: dict[Hashable, float]
    stdev: dict[Hashable, float]  # standard deviation of each rating, in Elo
    games: dict[Hashable, float]
    score: dict[Hashable, float]  # points scored (wins + draws / 2)
    prior_draws: float
    iterations: int
    converged: bool
    exact_covariance: bool
    _index: dict[Hashable, int] = field(repr=False, default_factory=dict)
    _covariance: list[list[float]] | None = field(repr=False, default=None)

    def interval(self, player: Hashable, z: float = Z95) -> tuple[float, float]:
        """The 95% interval of ``player``'s rating (``z`` sets another level)."""
        return self.elo[player] - z * self.stdev[player], self.elo[player] + z * self.stdev[player]

    def covariance(self, first: Hashable, second: Hashable) -> float:
        """Covariance of two ratings in Elo squared (0 off the diagonal if approximate)."""
        if first == second:
            return self.stdev[first] ** 2
        if self._covariance is None:
            return 0.0
        return self._covariance[self._index[first]][self._index[second]] * ELO_PER_NEPER**2

    def los(self, first: Hashable, second: Hashable) -> float:
        """Likelihood, in percent, that ``first`` is truly stronger than ``second``."""
        variance = (
            self.stdev[first] ** 2 + self.stdev[second] ** 2 - 2 * self.covariance(first, second)
        )
        difference = self.elo[first] - self.elo[second]
        if variance <= 0:
            return 50.0 if difference == 0 else (100.0 if difference > 0 else 0.0)
        return 100.0 * _NORMAL.cdf(difference / math.sqrt(variance))


def _strongly_connected(n: int, beats: list[set[int]]) -> bool:
    """True when every player can be reached from every other along 'scored against'."""
    if n <= 1:
        return True
    beaten_by: list[set[int]] = [set() for _ in range(n)]
    for i, targets in enumerate(beats):
        for j in targets:
            beaten_by[j].add(i)
    for graph in (beats, beaten_by):
        seen = {0}
        stack = [0]
        while stack:
            for j in graph[stack.pop()]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
        if len(seen) != n:
            return False
    return True


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse with partial pivoting (small dense matrices only)."""
    n = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise ZeroDivisionError("singular information matrix")
        a[col], a[pivot] = a[pivot], a[col]
        row = a[col]
        inv = 1.0 / row[col]
        for k in range(col, 2 * n):
            row[k] *= inv
        for r in range(n):
            if r != col:
                factor = a[r][col]
                if factor:
                    other = a[r]
                    for k in range(col, 2 * n):
                        other[k] -= factor * row[k]
    return [row[n:] for row in a]


def fit(
    records: Iterable[PairRecord],
    *,
    anchor: float = 0.0,
    prior_draws: float | None = None,
    initial_elo: Mapping[Hashable, float] | None = None,
    tolerance: float = 1e-9,
    max_iterations: int = 100_000,
    exact_limit: int = 150,
) -> BradleyTerryFit:
    """Fit the pool; see the module docstring for the model, prior and intervals.

    ``initial_elo`` (the previous fit's ratings, say) starts the iteration there:
    a refit after a few new results then takes fewer sweeps (MM converges
    linearly, so about a quarter to a half fewer, not a handful). It changes where
    the iteration starts, not where it ends. ``tolerance`` is the
    largest change of a rating, in natural-log strength (1e-9 is 4e-7 Elo), at
    which a sweep counts as converged.
    """
    index: dict[Hashable, int] = {}
    players: list[Hashable] = []
    games_between: dict[tuple[int, int], float] = defaultdict(float)
    scored: list[float] = []
    draws = 0.0
    scored_against: list[set[int]] = []  # j in scored_against[i]: i took points from j
    for record in records:
        total = record.wins + record.draws + record.losses
        if total <= 0 or record.first == record.second:
            continue
        for key in (record.first, record.second):
            if key not in index:
                index[key] = len(players)
                players.append(key)
                scored.append(0.0)
                scored_against.append(set())
        i, j = index[record.first], index[record.second]
        games_between[(min(i, j), max(i, j))] += total
        draws += record.draws
        scored[i] += record.wins + record.draws / 2.0
        scored[j] += record.losses + record.draws / 2.0
        if record.wins + record.draws > 0:
            scored_against[i].add(j)
        if record.losses + record.draws > 0:
            scored_against[j].add(i)
    n = len(players)

    opponents: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for (i, j), games in games_between.items():
        opponents[i].append((j, games))
        opponents[j].append((i, games))
    games_of = [sum(g for _, g in opponents[i]) for i in range(n)]

    if prior_draws is None:
        prior_draws = 0.0 if _strongly_connected(n, scored_against) else DEFAULT_PRIOR_DRAWS
    # The virtual opponent sits at strength 1, the pool's geometric mean, which the
    # normalisation after every sweep keeps in place.
    half_prior = prior_draws / 2.0

    strength = [1.0] * n
    if initial_elo and n:
        start = [initial_elo.get(key) for key in players]
        known = [elo for elo in start if elo is not None]
        centre = sum(known) / len(known) if known else 0.0
        strength = [
            1.0 if elo is None else math.exp((elo - centre) / ELO_PER_NEPER) for elo in start
        ]
    converged = n <= 1
    iterations = 0
    while not converged and iterations < max_iterations:
        iterations += 1
        previous = strength[:]
        # Gauss-Seidel order: each update already uses the others' newest values.
        for i in range(n):
            p_i = strength[i]
            denominator = sum(g / (p_i + strength[j]) for j, g in opponents[i])
            denominator += prior_draws / (p_i + 1.0)
            strength[i] = (scored[i] + half_prior) / denominator
        mean_log = sum(math.log(p) for p in strength) / n
        scale = math.exp(-mean_log)
        strength = [p * scale for p in strength]
        # Measured after normalising: a common drift of all ratings is no change.
        largest_step = max(abs(math.log(a / b)) for a, b in zip(strength, previous))
        converged = largest_step < tolerance

    theta = [math.log(p) for p in strength]

    # Observed information of the natural-log strengths.
    matrix = [[0.0] * n for _ in range(n)] if n <= exact_limit else None
    diagonal = [0.0] * n
    for (i, j), games in games_between.items():
        weight = games * strength[i] * strength[j] / (strength[i] + strength[j]) ** 2
        diagonal[i] += weight
        diagonal[j] += weight
        if matrix is not None:
            matrix[i][j] -= weight
            matrix[j][i] -= weight
    # Sum over games of the model's per-game variance s (1 - s), before the prior.
    model_variance = sum(diagonal) / 2.0
    for i in range(n):
        diagonal[i] += prior_draws * strength[i] / (strength[i] + 1.0) ** 2

    # A drawn game varies less than the win-or-lose game the model assumes (a draw
    # is a quarter less squared deviation), so the information counts it too
    # little: scale the covariance by the share of the model's variance that
    # remains once the observed draws are accounted for. Without draws this is 1;
    # for two players it makes the interval the cutechess W-D-L margin.
    dispersion = 1.0
    if draws > 0 and model_variance > 0:
        dispersion = max(model_variance - draws / 4.0, 0.0) / model_variance

    covariance: list[list[float]] | None = None
    if matrix is not None and n > 0:
        for i in range(n):
            matrix[i][i] = diagonal[i]
        covariance = _centred_covariance(matrix, singular=prior_draws == 0.0)
        covariance = [[value * dispersion for value in row] for row in covariance]
        variances = [covariance[i][i] for i in range(n)]
    else:
        variances = [dispersion / d if d > 0 else math.inf for d in diagonal]

    return BradleyTerryFit(
        players=players,
        elo={key: anchor + ELO_PER_NEPER * theta[i] for key, i in index.items()},
        stdev={key: ELO_PER_NEPER * math.sqrt(max(variances[i], 0.0)) for key, i in index.items()},
        games={key: games_of[i] for key, i in index.items()},
        score={key: scored[i] for key, i in index.items()},
        prior_draws=prior_draws,
        iterations=iterations,
        converged=converged,
        exact_covariance=covariance is not None,
        _index=dict(index),
        _covariance=covariance,
    )


def _centred_covariance(information: list[list[float]], *, singular: bool) -> list[list[float]]:
    """Covariance of the ratings measured from their mean.

    Without a prior the information matrix is singular along "everyone up by the
    same amount" (only differences are identified); adding J/n (J all ones) makes it
    invertible and subtracting J/n afterwards gives its pseudo-inverse, the
    covariance of centred ratings. With a prior it is invertible and the inverse
    is projected onto centred ratings.
    """
    n = len(information)
    if singular:
        shifted = [[value + 1.0 / n for value in row] for row in information]
        inverse = _invert(shifted)
        return [[value - 1.0 / n for value in row] for row in inverse]
    inverse = _invert(information)
    row_means = [sum(row) / n for row in inverse]
    col_means = [sum(inverse[r][c] for r in range(n)) / n for c in range(n)]
    total_mean = sum(row_means) / n
    return [
        [inverse[r][c] - row_means[r] - col_means[c] + total_mean for c in range(n)]
        for r in range(n)
    ]
