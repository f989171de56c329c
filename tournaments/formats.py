"""Pairing formats: who plays whom, in which seats, on which deal."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class PlannedMatch:
    round: int
    entrants: tuple[int, ...]  # entry indexes, in seat order
    deal: int  # matches sharing (group, deal) are dealt the same cards
    group: int


def round_robin(
    entrants: int, players_per_match: int, games_per_pairing: int, rotate_seats: bool
) -> list[PlannedMatch]:
    """Every group of ``players_per_match`` entrants meets ``games_per_pairing`` times.

    With seat rotation, game ``g`` of a group shifts the seats by ``g``, and
    each cycle of rotations replays one deal (duplicate style), so no entrant
    gains from a lucky seat or a lucky shuffle. Rounds number the games of
    each group, so round 1 holds every group's first game.
    """
    if players_per_match < 1 or entrants < players_per_match:
        raise ValueError(f"{entrants} entrants cannot fill {players_per_match}-seat matches")
    planned = []
    for group, members in enumerate(combinations(range(entrants), players_per_match)):
        for game in range(games_per_pairing):
            shift = game % players_per_match if rotate_seats else 0
            seats = members[shift:] + members[:shift]
            deal = game // players_per_match if rotate_seats else game
            planned.append(PlannedMatch(round=game + 1, entrants=seats, deal=deal, group=group))
    planned.sort(key=lambda p: (p.round, p.group))
    return planned
