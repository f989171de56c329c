"""Plays a whole event through a format with random results (no database)."""

from __future__ import annotations

import random

from tournaments.formats import Event, Finished, Result, next_matches


def random_ranks(seats: int, rng: random.Random, draws: float = 0.15) -> tuple[int, ...]:
    if rng.random() < draws:
        return (1,) * seats
    order = list(range(seats))
    rng.shuffle(order)
    ranks = [0] * seats
    for place, seat in enumerate(order, start=1):
        ranks[seat] = place
    return tuple(ranks)


def play(format: str, event: Event, seed: int, draws: float = 0.15, max_steps: int = 1000):
    """Answer the format's due games in random batches until it finishes.

    Returns (finished, results, batches) where batches lists each answer's due games.
    """
    rng = random.Random(seed)
    results: list[Result] = []
    batches = []
    seen = {}
    for _ in range(max_steps):
        answer = next_matches(format, event, results)
        if isinstance(answer, Finished):
            return answer, results, batches
        assert answer, "a format must return games or Finished"
        keys = [p.key for p in answer]
        assert len(keys) == len(set(keys))
        answered = {r.pairing.key for r in results}
        for pairing in answer:
            # A due game is never one already answered, and it does not change while it waits.
            assert pairing.key not in answered
            assert seen.setdefault(pairing.key, pairing) == pairing
        batches.append(answer)
        # Results arrive in any order, and only some of them before the next question.
        chosen = rng.sample(answer, k=rng.randint(1, len(answer)))
        for pairing in chosen:
            faults = tuple(e for e in pairing.seats if rng.random() < 0.02)
            results.append(Result(pairing, random_ranks(len(pairing.seats), rng, draws), faults))
    raise AssertionError("the event did not finish")
