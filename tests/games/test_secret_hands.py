"""The helpers shared by the secret-hand games, the Pairs card counting and the tie-break for low."""

from __future__ import annotations

from collections import Counter

from games.cards import Shoe, pairs_deck
from games.pairs.counting import pair_risk, unseen_counts
from games.pairs.deal import break_tie_for_low
from games.rng import Rng
from games.secret_hands import can_draw, next_seat, redistribute


def test_redistribute_keeps_sizes_and_cards_but_moves_them() -> None:
    boxes = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9]]
    before = Counter(card for box in boxes for card in box)
    moved = False
    for seed in range(5):
        redistribute(Rng(seed), boxes)
        assert [len(box) for box in boxes] == [3, 2, 0, 4]
        assert Counter(card for box in boxes for card in box) == before
        moved = moved or boxes[0] != [1, 2, 3]
    assert moved


def test_can_draw_counts_the_burn_of_a_reshuffle() -> None:
    shoe = Shoe([1, 2, 3], Rng(1), burn=2)
    assert len(shoe) == 1 and can_draw(shoe)
    shoe.draw()
    # Two burned cards in the discards: a reshuffle would burn both again.
    assert not can_draw(shoe)
    shoe.discard(7)
    assert can_draw(shoe)


def test_seats_to_the_left_skip_players_who_are_out() -> None:
    alive = [True, False, True, False]
    assert next_seat(0, alive) == 2
    assert next_seat(2, alive) == 0
    assert next_seat(0, [True, False]) == 0


def test_counting_helpers() -> None:
    unseen = unseen_counts([10, 10, 1])
    assert unseen[10] == 8 and unseen[1] == 0 and sum(unseen) == 52
    chance, cost = pair_risk([1, 10], unseen)
    assert chance == 8 / 52 and cost == 80 / 52


def test_break_tie_for_low_replaces_pairs_and_repeats_ties() -> None:
    shoe = Shoe(pairs_deck(), Rng(3), forced=[4, 6, 6, 2, 9])
    stacks = {1: [4], 2: [4], 0: [4, 8]}
    first, dealt = break_tie_for_low(shoe, [1, 2], stacks)
    # Seat 1's 4 pairs and is replaced by a 6; seat 2 also gets a 6: tied again.
    # Then seat 1 gets a 2 and seat 2 a 9: seat 1 goes first.
    assert first == 1
    assert dealt == [(1, 4, True), (1, 6, False), (2, 6, False), (1, 2, False), (2, 9, False)]
    assert stacks == {1: [4, 6, 2], 2: [4, 6, 9], 0: [4, 8]}
    assert shoe.discards == [4]


def test_break_tie_for_low_gives_up_when_every_card_would_pair() -> None:
    # Only 5s and 6s are left, and both tied stacks already show a 5 and a 6.
    shoe = Shoe([5, 6, 5, 6], Rng(1))
    stacks = {2: [5, 6], 0: [6, 5]}
    first, dealt = break_tie_for_low(shoe, [2, 0], stacks)
    assert first == 2
    assert all(discarded for _, _, discarded in dealt)
    assert len(shoe) + len(shoe.discards) == 4
