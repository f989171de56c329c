"""Shared Pairs-deck mechanics: the deal for low must end whatever is left to draw."""

from games.cards import Shoe
from games.pairs.counting import most_of_each_rank, rank_counts
from games.pairs.deal import deal_for_low
from games.rng import Rng


def test_a_tie_only_pairing_cards_could_break_ends_with_the_first_tied_seat():
    # Both seats get a 5 and only 5s are left: every tie-breaker would pair and be
    # replaced. The deal must stop and give the start to the first tied seat.
    shoe = Shoe([5] * 6, Rng(1))
    stacks, first, dealt = deal_for_low(shoe, [1, 0])
    assert first == 1
    assert stacks == {1: [5], 0: [5]}
    assert all(discarded for _, _, discarded in dealt[2:])
    assert len(shoe) + len(shoe.discards) == 4  # every card is still somewhere


def test_a_tie_is_broken_by_the_next_non_pairing_card():
    # Top first: 3, 3 dealt; seat 0's tie-breaker 3 pairs and is replaced by 9;
    # seat 1 draws 2, which is lower.
    shoe = Shoe([3, 3, 3, 9, 2], Rng(1), forced=[3, 3, 3, 9, 2])
    stacks, first, dealt = deal_for_low(shoe, [0, 1])
    assert first == 1
    assert stacks == {0: [3, 9], 1: [3, 2]}
    assert dealt == [(0, 3, False), (1, 3, False), (0, 3, True), (0, 9, False), (1, 2, False)]


def test_most_of_each_rank_scores_ties_in_full():
    hands = [[9, 9, 5, 1], [9, 9, 2], [5, 3, 3]]
    assert most_of_each_rank([rank_counts(h) for h in hands]) == [9 + 5 + 1, 9 + 2, 5 + 3]
