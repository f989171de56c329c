"""Ranking and multi-hand bookkeeping shared by every engine."""

from __future__ import annotations

from games.rng import derive_seed_after, seed_text


def score_direction(seats: list[tuple[int | None, float | None]]) -> str | None:
    """``"lowest"`` when a finished game's ``(rank, score)`` seats show the lower score
    placing better (every two seats of different rank and score agree, and at least two
    differ), ``"highest"`` for the reverse, else None (nothing to compare, or a game
    ranked by another key first, such as Pairs' games lost)."""
    known = [(rank, score) for rank, score in seats if rank is not None and score is not None]
    lower_better = [
        (a_rank < b_rank) == (a_score < b_score)
        for i, (a_rank, a_score) in enumerate(known)
        for b_rank, b_score in known[i + 1 :]
        if a_rank != b_rank and a_score != b_score
    ]
    if not lower_better:
        return None
    if all(lower_better):
        return "lowest"
    return "highest" if not any(lower_better) else None


def ranks_from_scores(scores: list[int], higher_is_better: bool = True) -> list[int]:
    """Competition ranking: 1 = best, ties share a rank, the next rank skips (1, 1, 3)."""
    keyed = [s if higher_is_better else -s for s in scores]
    return [1 + sum(1 for other in keyed if other > mine) for mine in keyed]


def seat_results(scores: list[int], ranks: list[int] | None = None, **extra_per_seat) -> list[dict]:
    ranks = ranks if ranks is not None else ranks_from_scores(scores)
    seats = []
    for i, (score, rank) in enumerate(zip(scores, ranks)):
        seat = {"score": int(score), "rank": int(rank)}
        for key, values in extra_per_seat.items():
            seat[key] = values[i]
        seats.append(seat)
    return seats


class Session:
    """State carried across the hands of one match.

    Holds the hand index, the dealer (or button), running totals and each
    finished hand's summary; each hand draws from its own derived seed so it
    can be replayed, or dealt again for duplicate play, on its own.
    """

    __slots__ = ("players", "seed", "hand", "dealer", "totals", "hands", "_hand_seed_text")

    def __init__(self, players: int, seed: int, totals: int | list[int] = 0, dealer: int = 0):
        self.players = players
        self.seed = seed
        self.hand = 0
        self.dealer = dealer
        self.totals = list(totals) if isinstance(totals, list) else [totals] * players
        self.hands: list[dict] = []
        # ``derive_seed(seed, "hand")``'s text, made on the first ``hand_seed``.
        self._hand_seed_text: str | None = None

    def hand_seed(self, hand: int | None = None) -> int:
        """``derive_seed(seed, "hand", hand)``, the current hand by default."""
        text = self._hand_seed_text
        if text is None:
            text = self._hand_seed_text = seed_text(self.seed, "hand")
        return derive_seed_after(text, self.hand if hand is None else hand)

    def finish_hand(self, deltas: list[int], **summary) -> None:
        """Add one hand's per-seat deltas to the totals and move the deal left."""
        for seat, delta in enumerate(deltas):
            self.totals[seat] += delta
        self.hands.append({"hand": self.hand, "deltas": list(deltas), **summary})
        self.hand += 1
        self.dealer = (self.dealer + 1) % self.players

    def left_of(self, seat: int, steps: int = 1) -> int:
        return (seat + steps) % self.players

    def order_from(self, seat: int) -> list[int]:
        """Every seat, starting at ``seat`` and going left."""
        return [(seat + i) % self.players for i in range(self.players)]


class Pot:
    """Chips in the middle. Splitting leaves odd chips in the pot for the next hand."""

    __slots__ = ("chips",)

    def __init__(self, chips: int = 0):
        self.chips = chips

    def add(self, amount: int) -> None:
        if amount < 0:
            raise ValueError("cannot add a negative amount to a pot")
        self.chips += amount

    def split(self, winners: list[int]) -> dict[int, int]:
        """Equal whole shares to ``winners``; the remainder stays in the pot."""
        if not winners:
            return {}
        share = self.chips // len(winners)
        self.chips -= share * len(winners)
        return dict.fromkeys(winners, share)  # {seat: share for seat in winners}, in C

    def take_all(self) -> int:
        chips, self.chips = self.chips, 0
        return chips
