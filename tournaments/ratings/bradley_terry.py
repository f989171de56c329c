"""Maximum-likelihood Bradley-Terry ratings over a pool, with 95% intervals.

The model: side i scores against side j with probability p_i / (p_i + p_j), a
draw counting half a win to each (so the fit speaks the same Elo as a W-D-L
record). Ratings are 400 log10 p, centred so that the pool's mean rating is the
``anchor`` the caller passes (the pool's current average, so refits do not drift
the scale).

The fit is Newton's method on the log-likelihood of the natural-log strengths.
Its Hessian is a weighted graph Laplacian (one weight per pair of players who
met), so each Newton step is solved by conjugate gradients with a diagonal
preconditioner, matrix-free, with numpy: the cost of a step is a few passes over
the distinct pairs, never a dense n x n matrix, and results are first summed per
pair, so the number of pairs, not of games, drives the cost. Newton converges in
a handful of steps (fewer from a warm start), and a backtracking line search
keeps every step uphill.

Uncertainty comes from the observed information (the negative Hessian of the
log-likelihood at the fit), as BayesElo and Ordo do: its inverse, restricted to
centred ratings, is the covariance of the ratings; an interval is +-1.96 standard
deviations and the likelihood of superiority of one player over another uses the
covariance between the two. Past ``exact_limit`` players the dense inverse is not
taken: each variance is then 1 / (its own information), which ignores the
uncertainty of the opponents' ratings and so is somewhat narrower.

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

import numpy as np

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
    _covariance: np.ndarray | None = field(repr=False, default=None)

    def interval(self, player: Hashable, z: float = Z95) -> tuple[float, float]:
        """The 95% interval of ``player``'s rating (``z`` sets another level)."""
        return self.elo[player] - z * self.stdev[player], self.elo[player] + z * self.stdev[player]

    def covariance(self, first: Hashable, second: Hashable) -> float:
        """Covariance of two ratings in Elo squared (0 off the diagonal if approximate)."""
        if first == second:
            return self.stdev[first] ** 2
        if self._covariance is None:
            return 0.0
        value = self._covariance[self._index[first], self._index[second]]
        return float(value) * ELO_PER_NEPER**2

    def los(self, first: Hashable, second: Hashable) -> float:
        """Likelihood, in percent, that ``first`` is truly stronger than ``second``."""
        variance = (
            self.stdev[first] ** 2 + self.stdev[second] ** 2 - 2 * self.covariance(first, second)
        )
        difference = self.elo[first] - self.elo[second]
        if variance <= 0:
            return 50.0 if difference == 0 else (100.0 if difference > 0 else 0.0)
        return 100.0 * _NORMAL.cdf(difference / math.sqrt(variance))


def new_player_stdev(games: float, prior_draws: float = 1.0) -> float:
    """The standard deviation, in Elo, a fit gives a player after ``games`` against
    opposition of its own strength, counting ``prior_draws`` virtual draws (each game
    carries a quarter of information at even odds). 0 games: about 347, so +-680."""
    return ELO_PER_NEPER / math.sqrt(0.25 * (games + prior_draws))


def los_independent(elo: float, stdev: float, other: float, other_stdev: float) -> float:
    """Likelihood, in percent, that a rating is above another, their errors independent."""
    spread = math.hypot(stdev, other_stdev)
    if spread <= 0:
        return 50.0 if elo == other else (100.0 if elo > other else 0.0)
    return 100.0 * _NORMAL.cdf((elo - other) / spread)


def fit(
    records: Iterable[PairRecord],
    *,
    anchor: float = 0.0,
    prior_draws: float | None = None,
    initial_elo: Mapping[Hashable, float] | None = None,
    tolerance: float = 1e-9,
    max_iterations: int = 100,
    exact_limit: int = 150,
) -> BradleyTerryFit:
    """Fit the pool; see the module docstring for the model, prior and intervals.

    ``initial_elo`` (the previous fit's ratings, say) starts the iteration there:
    a refit after a few new results then takes fewer Newton steps. It changes
    where the iteration starts, not where it ends. ``tolerance`` is the largest
    change of a rating, in natural-log strength (1e-9 is 4e-7 Elo), at which a
    step counts as converged.
    """
    index: dict[Hashable, int] = {}
    players: list[Hashable] = []
    firsts: list[int] = []
    seconds: list[int] = []
    counts: list[tuple[float, float, float]] = []
    for record in records:
        for key in (record.first, record.second):
            if key not in index:
                index[key] = len(players)
                players.append(key)
        firsts.append(index[record.first])
        seconds.append(index[record.second])
        counts.append((record.wins, record.draws, record.losses))
    table = np.array(counts, dtype=float).reshape(-1, 3)
    return fit_arrays(
        players,
        np.array(firsts, dtype=np.int64),
        np.array(seconds, dtype=np.int64),
        table[:, 0],
        table[:, 1],
        table[:, 2],
        anchor=anchor,
        prior_draws=prior_draws,
        initial_elo=initial_elo,
        tolerance=tolerance,
        max_iterations=max_iterations,
        exact_limit=exact_limit,
    )


def fit_arrays(
    players: Sequence[Hashable],
    first: np.ndarray,
    second: np.ndarray,
    wins: np.ndarray,
    draws: np.ndarray,
    losses: np.ndarray,
    *,
    anchor: float = 0.0,
    prior_draws: float | None = None,
    initial_elo: Mapping[Hashable, float] | None = None,
    tolerance: float = 1e-9,
    max_iterations: int = 100,
    exact_limit: int = 150,
) -> BradleyTerryFit:
    """``fit`` on columns: row k says ``players[first[k]]`` won ``wins[k]``, drew
    ``draws[k]`` and lost ``losses[k]`` against ``players[second[k]]``. Rows may
    repeat a pair, in either order; players without a game get no rating."""
    total = wins + draws + losses
    keep = (total > 0) & (first != second)
    first, second = first[keep], second[keep]
    wins, draws, losses, total = wins[keep], draws[keep], losses[keep], total[keep]
    # Only players with a game are fitted; renumber them 0..n-1.
    used = np.unique(np.concatenate([first, second]))
    n = len(used)
    fitted_players = [players[k] for k in used]
    renumber = np.full(len(players), -1, dtype=np.int64)
    renumber[used] = np.arange(n)
    first, second = renumber[first], renumber[second]

    scored = np.bincount(first, wins + draws / 2, minlength=n) + np.bincount(
        second, losses + draws / 2, minlength=n
    )
    # Games per unordered pair: the pair count, not the game count, drives the cost.
    low, high = np.minimum(first, second), np.maximum(first, second)
    pair_ids, inverse = np.unique(low * n + high, return_inverse=True)
    pair_games = np.bincount(inverse, total, minlength=len(pair_ids))
    ends_i, ends_j = pair_ids // max(n, 1), pair_ids % max(n, 1)
    games_of = np.bincount(ends_i, pair_games, minlength=n) + np.bincount(
        ends_j, pair_games, minlength=n
    )
    draw_total = float(draws.sum())

    if prior_draws is None:
        # i took points from j: an arc i -> j.
        took_i = (wins + draws) > 0
        took_j = (losses + draws) > 0
        sources = np.concatenate([first[took_i], second[took_j]])
        targets = np.concatenate([second[took_i], first[took_j]])
        connected = _reaches_all(n, sources, targets) and _reaches_all(n, targets, sources)
        prior_draws = 0.0 if connected else DEFAULT_PRIOR_DRAWS

    theta = np.zeros(n)
    if initial_elo and n:
        start = np.array([initial_elo.get(key, math.nan) for key in fitted_players], dtype=float)
        known = ~np.isnan(start)
        if known.any():
            centre = start[known].mean()
            theta = np.where(known, (start - centre) / ELO_PER_NEPER, 0.0)

    problem = _Problem(n, ends_i, ends_j, pair_games, scored, prior_draws)
    theta, iterations, converged = problem.maximise(theta, tolerance, max_iterations)
    theta = theta - theta.mean() if n else theta

    # Observed information of the natural-log strengths.
    weights = problem.pair_weights(theta)
    diagonal = np.bincount(ends_i, weights, minlength=n) + np.bincount(ends_j, weights, minlength=n)
    # Sum over games of the model's per-game variance s (1 - s), before the prior.
    model_variance = float(weights.sum())
    diagonal = diagonal + prior_draws * _variance_against_average(theta)

    # A drawn game varies less than the win-or-lose game the model assumes (a draw
    # is a quarter less squared deviation), so the information counts it too
    # little: scale the covariance by the share of the model's variance that
    # remains once the observed draws are accounted for. Without draws this is 1;
    # for two players it makes the interval the cutechess W-D-L margin.
    dispersion = 1.0
    if draw_total > 0 and model_variance > 0:
        dispersion = max(model_variance - draw_total / 4.0, 0.0) / model_variance

    covariance = None
    if 0 < n <= exact_limit:
        information = np.zeros((n, n))
        np.add.at(information, (ends_i, ends_j), -weights)
        np.add.at(information, (ends_j, ends_i), -weights)
        information[np.diag_indices(n)] = diagonal
        covariance = _centred_covariance(information, singular=prior_draws == 0.0) * dispersion
        variances = np.diag(covariance).copy()
    else:
        with np.errstate(divide="ignore"):
            variances = np.where(diagonal > 0, dispersion / diagonal, math.inf)

    stdevs = ELO_PER_NEPER * np.sqrt(np.maximum(variances, 0.0))
    elos = anchor + ELO_PER_NEPER * theta
    return BradleyTerryFit(
        players=fitted_players,
        elo=dict(zip(fitted_players, elos.tolist())),
        stdev=dict(zip(fitted_players, stdevs.tolist())),
        games=dict(zip(fitted_players, games_of.tolist())),
        score=dict(zip(fitted_players, scored.tolist())),
        prior_draws=prior_draws,
        iterations=iterations,
        converged=converged,
        exact_covariance=covariance is not None,
        _index={key: i for i, key in enumerate(fitted_players)},
        _covariance=covariance,
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _variance_against_average(theta: np.ndarray) -> np.ndarray:
    """s (1 - s) of each player's expected score against the virtual average player."""
    s = _sigmoid(theta)
    return s * (1.0 - s)


class _Problem:
    """The log-likelihood over aggregated pairs, its gradient and Hessian products."""

    def __init__(self, n, ends_i, ends_j, pair_games, scored, prior_draws):
        self.n, self.i, self.j, self.g = n, ends_i, ends_j, pair_games
        self.scored, self.prior = scored, prior_draws

    def log_likelihood(self, theta: np.ndarray) -> float:
        ti, tj = theta[self.i], theta[self.j]
        value = float(self.scored @ theta) - float(self.g @ np.logaddexp(ti, tj))
        if self.prior:
            # prior/2 points from prior virtual draws against a player at 0.
            value += self.prior * float((theta / 2 - np.logaddexp(theta, 0.0)).sum())
        return value

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        q = _sigmoid(theta[self.i] - theta[self.j])  # i's expected score against j
        expected = np.bincount(self.i, self.g * q, minlength=self.n) + np.bincount(
            self.j, self.g * (1.0 - q), minlength=self.n
        )
        grad = self.scored - expected
        if self.prior:
            grad += self.prior * (0.5 - _sigmoid(theta))
        return grad

    def pair_weights(self, theta: np.ndarray) -> np.ndarray:
        q = _sigmoid(theta[self.i] - theta[self.j])
        return self.g * q * (1.0 - q)

    def maximise(self, theta, tolerance, max_iterations):
        if self.n <= 1:
            return theta, 0, True
        for iteration in range(1, max_iterations + 1):
            grad = self.gradient(theta)
            weights = self.pair_weights(theta)
            diagonal = np.bincount(self.i, weights, minlength=self.n) + np.bincount(
                self.j, weights, minlength=self.n
            )
            if self.prior:
                diagonal = diagonal + self.prior * _variance_against_average(theta)
            # Only differences are identified without a prior: a tiny ridge keeps
            # conjugate gradients away from the flat direction.
            ridge = 1e-12 * float(diagonal.mean() or 1.0)

            def hessian_times(v, weights=weights, diagonal=diagonal, ridge=ridge):
                flow = weights * v[self.j]
                back = weights * v[self.i]
                off = np.bincount(self.i, flow, minlength=self.n) + np.bincount(
                    self.j, back, minlength=self.n
                )
                return diagonal * v - off + ridge * v

            # Inexact Newton: loose solves far from the top, tight ones near it.
            size = float(np.abs(grad).max())
            step = _conjugate_gradients(
                hessian_times, grad, diagonal + ridge, rtol=min(1e-2, max(size, 1e-13))
            )
            base = self.log_likelihood(theta)
            scale = 1.0
            for _ in range(40):
                candidate = theta + scale * step
                if self.log_likelihood(candidate) >= base - 1e-12 * abs(base):
                    break
                scale /= 2.0
            moved = scale * step
            moved = moved - moved.mean()  # a common drift of all ratings is no change
            theta = candidate
            if float(np.abs(moved).max()) < tolerance:
                return theta, iteration, True
        return theta, max_iterations, False


def _conjugate_gradients(apply, rhs, preconditioner, *, rtol: float, max_steps: int = 2000):
    """Solve ``apply(x) = rhs`` for a symmetric positive (semi)definite operator."""
    x = np.zeros_like(rhs)
    residual = rhs.copy()
    target = rtol * float(np.linalg.norm(rhs))
    if target == 0.0:
        return x
    z = residual / preconditioner
    direction = z.copy()
    rz = float(residual @ z)
    for _ in range(max_steps):
        product = apply(direction)
        curvature = float(direction @ product)
        if curvature <= 0:
            break
        alpha = rz / curvature
        x += alpha * direction
        residual -= alpha * product
        if float(np.linalg.norm(residual)) <= target:
            break
        z = residual / preconditioner
        rz_next = float(residual @ z)
        direction = z + (rz_next / rz) * direction
        rz = rz_next
    return x


def _reaches_all(n: int, sources: np.ndarray, targets: np.ndarray) -> bool:
    """True when every player can be reached from player 0 along the arcs."""
    if n <= 1:
        return True
    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        reached = np.zeros(n, dtype=bool)
        reached[targets[frontier[sources]]] = True
        frontier = reached & ~seen
        seen |= frontier
    return bool(seen.all())


def _centred_covariance(information: np.ndarray, *, singular: bool) -> np.ndarray:
    """Covariance of the ratings measured from their mean.

    Without a prior the information matrix is singular along "everyone up by the
    same amount" (only differences are identified); adding J/n (J all ones) makes it
    invertible and subtracting J/n afterwards gives its pseudo-inverse, the
    covariance of centred ratings. With a prior it is invertible and the inverse
    is projected onto centred ratings.
    """
    n = len(information)
    if singular:
        return np.linalg.inv(information + 1.0 / n) - 1.0 / n
    inverse = np.linalg.inv(information)
    centring = np.eye(n) - 1.0 / n
    return centring @ inverse @ centring
