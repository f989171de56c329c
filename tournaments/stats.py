"""A small facade of fixed names for match statistics, importable without Django settings.

Outside checks import these names, so they stay here; the code is ``tournaments.ratings``
(``match`` and ``sprt``), which pages, the API and bulk play call directly. Argument order
is wins, losses, draws, as these names fix it.
"""

from __future__ import annotations

from tournaments.ratings import match, sprt


def elo_margin(wins: float, losses: float, draws: float) -> tuple[float, float]:
    """(Elo difference, half-width of its 95% interval) from a W-L-D record."""
    stats = match.trinomial(wins=wins, draws=draws, losses=losses)
    return stats.elo, stats.margin


def los(wins: float, losses: float) -> float:
    """Likelihood of superiority in percent (decisive games only)."""
    return match.los_from_wins_losses(wins, losses)


def sprt_llr(wins: float, losses: float, draws: float, elo0: float, elo1: float) -> float:
    """Trinomial log-likelihood ratio of H1 (elo1) over H0 (elo0), fishtest's method."""
    return sprt.llr_trinomial(wins=wins, draws=draws, losses=losses, elo0=elo0, elo1=elo1)
