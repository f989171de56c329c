"""The Venture heuristic (games/pairs/venture.py): flat Monte Carlo over the rest of the deal.

For each card it could bid, it deals the cards it has not seen into the other
hands (their sizes are public), plays the deal out with every other player
bidding one of its ranks at random and itself bidding its highest rank after
this round (a simple policy that already beats random; searching one bid on
top of it does better still), and scores the end as the engine does. The
card with the best average outcome is bid: a point for finishing first (a
shared first counts) plus the margin over the best rival, which is the
steadier signal. Every candidate card is tried on the same dealt worlds and
random streams, so they are compared fairly. It only reads the observation.

While drafting it keeps the highest ranks: a high bid is mostly matched, or
taken by the lowest bid before it fires, and the low cards passed on make
the neighbours the ones who take the top rank. At talk it stays quiet.
"""

from __future__ import annotations

from games.rng import Rng

QUIET = "quiet"
# Copies of each rank in the deck (index = rank).
COPIES = list(range(11))
# Worlds sampled per decision, by player count (fewer players: longer deals).
WORLDS = {3: 40, 4: 64, 5: 64, 6: 80, 7: 100, 8: 100}
# How much a point of margin over the best rival counts next to finishing first: a
# whole first place is worth one point of margin (the margin is the steadier signal).
MARGIN_WEIGHT = 1.0
# Drafting: how much we like to keep each rank (index = rank); high ranks are the
# likeliest to be matched, or taken by the lowest bid before they fire.
DRAFT_LIKING = [0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8]


def _fire(table: list[int], bids: list[int], caps: list[list[int]]) -> None:
    """One round on count tables: ``table`` (the pool) and ``caps`` (captures, per seat)
    are updated in place. Same rules as ``games.pairs.venture.fire``."""
    for card in bids:
        table[card] += 1
    ranks = sorted(set(bids))  # at most one per seat: cheaper than every rank of the deck
    low = ranks[0]
    count = bids.count
    taken_early = 0
    if count(low) == 1:
        top = 10
        while not table[top]:
            top -= 1
        caps[bids.index(low)][top] += table[top]
        table[top] = 0
        taken_early = top
    floor = 1
    for rank in ranks[1:]:
        if rank == taken_early or count(rank) != 1:
            continue
        row = caps[bids.index(rank)]
        for r in range(floor, rank):
            taken = table[r]
            if taken:
                row[r] += taken
                table[r] = 0
        floor = rank


def _points(caps: list[int], table: list[int]) -> int:
    total = 0
    for rank, count in enumerate(caps):
        if count:
            total += rank if count + table[rank] == rank else -count
    return total


def _counts(cards: list[int]) -> list[int]:
    counts = [0] * 11
    for card in cards:
        counts[card] += 1
    return counts


def _rivals_bids(hands: list[list[int]], rng: Rng) -> list[list[int]]:
    """The other seats' bids of every round left, seat 1 on: each bids one of its ranks at
    random. They depend only on their own hands and the stream, never on our bids, so
    every candidate card of one world plays against the same ones, drawn once."""
    rounds = len(hands[0])
    below = rng.below
    counts = [_counts(hand) for hand in hands]
    ranks = [sorted(set(hand)) for hand in hands]
    plays = []
    for _ in range(rounds):  # round by round, seat by seat: the stream's order
        bids = [0] * len(hands)
        for seat in range(1, len(hands)):
            options = ranks[seat]
            card = options[below(len(options))] if len(options) > 1 else options[0]
            row = counts[seat]
            row[card] -= 1
            if not row[card]:
                options.remove(card)
            bids[seat] = card
        plays.append(bids)
    return plays


def _playout(
    first: int,
    hand: list[int],
    rivals: list[list[int]],
    table: list[int],
    caps: list[list[int]],
    base: list[int],
) -> float:
    """Play the deal out from this round with ``first`` as our bid; seat 0 is us, the
    others bid ``rivals`` (``_rivals_bids``), whose seat-0 slots it fills with ours.
    ``table`` and ``caps`` are copies the playout may change; ``hand`` is not changed."""
    # Our later bids: the highest rank left each round (a simple policy that already
    # beats random; searching one bid on top of it does better).
    ours = list(hand)
    ours.remove(first)
    ours.sort(reverse=True)
    ours.insert(0, first)
    for plays, card in zip(rivals, ours):
        plays[0] = card
        _fire(table, plays, caps)
    players = len(caps)
    scores = [base[seat] + _points(caps[seat], table) for seat in range(players)]
    me = scores[0]
    best_rival = max(scores[1:])
    return (1.0 if me >= best_rival else 0.0) + MARGIN_WEIGHT * (me - best_rival)


def _bid(observation: dict, legal: list, rng: Rng, others: list[list[int]] | None = None) -> int:
    """The bid with the best average playout. ``others`` gives the other hands, from
    the next seat on, instead of guessing them: only bench/venture_luck.py's player
    who peeks passes it, to measure what seeing every card would be worth."""
    seat = observation["seat"]
    players = observation["players"]
    hand = observation["cards"]
    pool = observation["pool"]
    captured = observation["captured"]
    sizes = observation["hand_sizes"]
    totals = observation["totals"]
    # Seat 0 of the playouts is us, the others follow in table order.
    order = [(seat + i) % players for i in range(players)]
    seen = _counts(hand + pool + [card for cards in captured for card in cards])
    unseen = [rank for rank in range(1, 11) for _ in range(max(0, COPIES[rank] - seen[rank]))]
    table = _counts(pool)
    caps = [_counts(captured[s]) for s in order]
    base = [totals[s] for s in order]
    value = {card: 0.0 for card in legal}
    for _ in range(WORLDS.get(players, 32)):
        hands = [list(hand)]
        if others is not None:
            hands += others
        else:
            rng.shuffle(unseen)
            start = 0
            for s in order[1:]:
                hands.append(unseen[start : start + sizes[s]])
                start += sizes[s]
        rivals = _rivals_bids(hands, Rng(rng.next_u64()))
        for card in legal:
            value[card] += _playout(
                card, hand, rivals, list(table), [list(row) for row in caps], base
            )
    return max(legal, key=lambda card: (value[card], -card))


def heuristic(observation: dict, legal: list, rng: Rng) -> object:
    """Quiet at talk, keeps high ranks while drafting, bids by playing the deal out."""
    phase = observation["phase"]
    if phase == "talk":
        return QUIET
    if phase == "draft":
        return max(legal, key=lambda card: (DRAFT_LIKING[card], card))
    if len(legal) == 1:
        return legal[0]
    return _bid(observation, legal, rng)
