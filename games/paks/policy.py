"""The Paks heuristic: capture the richest card, steal the richest enemy pak, pay cheaply.

It reads only the observation (docs/rules/paks.md lists its fields).
"""

from __future__ import annotations

from games.paks.moves import needed as pending_total
from games.paks.values import POINTS, SINGLE, capture_value, points
from games.rng import Rng


def _lay(observation: dict, legal: list) -> object:
    """Take more paks while possible; then lay the cheapest card that wins, else the strongest."""
    takes = [a for a in legal if type(a) is int]
    if takes:
        owner = observation["paks"][observation["pending"]["victim"]]
        return max(takes, key=lambda i: points(owner[i]))
    laid = observation["pending"]["cards"]
    adds = [a for a in legal if type(a) is str and a != "done"]
    if "done" in legal:
        # Late in the hand a card kept is a card wasted: put it in the pak, where it scores.
        if adds and observation["stock"] < observation["players"]:
            return max(adds, key=lambda c: POINTS[c])
        return "done"
    needed = pending_total(observation["pending"], observation["paks"])
    winning = [c for c in adds if capture_value([*laid, c]) > needed]
    if winning:
        return min(winning, key=lambda c: (SINGLE[c], -POINTS[c]))
    return max(adds, key=lambda c: (capture_value([*laid, c]), POINTS[c]))


def _partners(observation: dict) -> set[int]:
    seat = observation["seat"]
    for team in observation["teams"]:
        if seat in team:
            return set(team)
    return {seat}


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    phase = observation["phase"]
    if phase == "pak":
        captures = [a for a in legal if a != "pass"]
        # Every capture gains points and a pak; the richest card first.
        return max(captures, key=lambda c: (POINTS[c], SINGLE[c]))
    paks = observation["paks"]
    if phase == "steal":
        friends = _partners(observation)
        steals = [a for a in legal if a != "end" and a[0] not in friends]
        if not steals:
            return "end"
        return max(steals, key=lambda a: points(paks[a[0]][a[1]]))
    if phase == "discard":
        return min(legal, key=lambda a: points(paks[a[0]][a[1]]))
    return _lay(observation, legal)
