"""A reference the standings tests compare the product's pair totals with."""

from __future__ import annotations

from tournaments.format_inputs import results_of, seeded_entries
from tournaments.formats.common import pairwise_scores
from tournaments.models import Tournament


def pairwise_from_every_game(tournament: Tournament) -> dict:
    """game_points' pairwise computed from every game, without the stored pair totals."""
    entries = seeded_entries(tournament)
    bot = [e.bot_id for e in entries]
    cells: dict = {}
    for result in results_of(tournament, entries):
        for (a, b), scored in pairwise_scores(result).items():
            cell = cells.setdefault((bot[a], bot[b]), [0.0, 0])
            cell[0] += float(scored)
            cell[1] += 1
    return cells
