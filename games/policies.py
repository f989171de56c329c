"""Built-in policies every game gets. A policy is ``(observation, legal, rng) -> action``."""

from __future__ import annotations

from collections.abc import Sequence

from games.protocol import Policy, State
from games.rng import Rng


def random_policy(observation: dict, legal: list, rng: Rng):
    """Uniform over the legal actions."""
    return legal[rng.below(len(legal))]


def play_out(state: State, policies: Sequence[Policy], rng: Rng) -> State:
    """Play ``state`` to its end, seat ``s`` choosing with ``policies[s]``; one ``rng`` for all.

    For benches and tests that pit policies against each other in-process (the
    server plays bots through ``bots``, with clocks and faults).
    """
    while not state.is_over():
        state.apply(
            {
                seat: policies[seat](state.observation(seat), state.legal_actions(seat), rng)
                for seat in state.to_act()
            }
        )
    return state


def hero_among_random(hero_policy: Policy, hero: int, players: int) -> list[Policy]:
    """Seat policies with ``hero_policy`` at ``hero`` and ``random_policy`` everywhere else."""
    return [hero_policy if seat == hero else random_policy for seat in range(players)]
