"""Kitty, the hard game and soft: forced deals through the rules (docs/rules/pairs-kitty.md).

The variations are in test_kitty_variants.py."""

from __future__ import annotations

from collections import Counter

import pytest

from games import IllegalAction
from games.pairs.counting import most_of_each_rank as hand_points
from games.pairs.kitty import GAME
from games.policies import hero_among_random, play_out, random_policy
from games.rng import Rng, derive_seed
from tests.support.kitty_deal import KITTY, new, pass_highest

# -- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "size", "removed"), [(3, 16, 0), (4, 12, 0), (5, 9, 3), (6, 8, 0)]
)
def test_the_kitty_is_seven_and_hands_come_out_even(players, size, removed) -> None:
    state = GAME.new_match(players, seed=11)
    assert state.conserved()["cards"] == 55
    obs = state.observation(0)
    assert obs["hand_sizes"] == [size] * players
    assert obs["kitty_left"] == 6 and len(obs["targets"]) == 1
    assert obs["removed"] == removed
    # The removed cards are set aside unseen: swapping them with the kitty shows nobody anything.
    if removed:
        swapped = state.clone()
        swapped.removed, swapped.kitty[:3] = swapped.kitty[:3], swapped.removed
        for seat in [None, *range(players)]:
            assert swapped.observation(seat) == state.observation(seat)


def test_forced_deal_kitty_on_top_and_hands_private() -> None:
    state, hands = new(fixed={0: [1, 2, 3]})
    assert state.targets == [8] and state.kitty == KITTY[1:]
    for seat in range(4):
        assert state.observation(seat)["hand"] == hands[seat]
    assert "hand" not in state.observation(None)
    deals = [e for e in state.events(2) if e["type"] == "deal"]
    assert deals[0]["cards"] == hands[2]
    assert all("cards" not in e for e in state.events(None) if e["type"] == "deal")


# -- passing and bidding ----------------------------------------------------------------


def test_everyone_passes_one_card_to_the_left_at_once() -> None:
    state, hands = new(fixed={0: [1, 2, 3], 1: [2, 6], 2: [4, 6], 3: [5, 6]})
    assert state.to_act() == (0, 1, 2, 3)
    state.apply({0: 3, 1: 6, 2: 4, 3: 5})
    assert Counter(state.hands[1]) == Counter(hands[1]) - Counter([6]) + Counter([3])
    assert Counter(state.hands[0]) == Counter(hands[0]) - Counter([3]) + Counter([5])
    # The gift is seen by its giver and its receiver only.
    last = {seat: state.events(seat)[-1] for seat in [None, 0, 1, 2]}
    assert last[None] == {"type": "pass"}
    assert last[0]["gave"] == 3 and last[1]["got"] == 3
    assert last[2] == {"type": "pass", "gave": 4, "got": 6}
    assert state.observation(None)["phase"] == "bid"


def test_lowest_bid_takes_the_target_and_every_bid_is_discarded() -> None:
    state, _ = new(fixed={0: [2, 7], 1: [3, 9], 2: [5, 9], 3: [4, 9]})
    pass_highest(state)
    before = {seat: Counter(state.hands[seat]) for seat in range(4)}
    state.apply({0: 7, 1: 3, 2: 5, 3: 4})
    assert Counter(state.hands[1]) == before[1] - Counter([3]) + Counter([8])
    assert sorted(state.discards) == [3, 4, 5, 7]
    take = [e for e in state.events(None) if e["type"] == "take"]
    assert take == [{"type": "take", "seat": 1, "card": 8, "how": "lowest"}]
    assert state.targets == [5] and state.round == 1


def test_tied_low_bids_are_ignored_and_the_next_unmatched_bid_wins() -> None:
    state, _ = new(fixed={0: [2, 7], 1: [2, 9], 2: [5, 9], 3: [4, 9]})
    pass_highest(state)
    state.apply({0: 2, 1: 2, 2: 5, 3: 4})
    assert 8 in state.hands[3]
    assert [e["seat"] for e in state.events(None) if e["type"] == "take"] == [3]


def test_no_unmatched_bid_discards_the_target() -> None:
    state, _ = new(fixed={0: [3, 7], 1: [3, 9], 2: [6, 9], 3: [6, 9]})
    pass_highest(state)
    held = sum(len(h) for h in state.hands)
    state.apply({0: 3, 1: 3, 2: 6, 3: 6})
    assert sum(len(h) for h in state.hands) == held - 4
    assert sorted(state.discards) == [3, 3, 6, 6, 8]
    assert [e for e in state.events(None) if e["type"] == "discard"][0]["cards"] == [8]


def test_the_one_wins_but_must_give_the_target_to_another_player() -> None:
    state, _ = new(fixed={0: [1, 7], 1: [2, 9], 2: [5, 9], 3: [4, 9]})
    pass_highest(state)
    state.apply({0: 1, 1: 2, 2: 5, 3: 4})
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == [{"card": 8, "to": s} for s in (1, 2, 3)]
    with pytest.raises(IllegalAction):
        state.apply({0: {"card": 8, "to": 0}})
    # The 2 was the next unmatched bid, but the target is the 1's to give.
    before = [Counter(hand) for hand in state.hands]
    state.apply({0: {"card": 8, "to": 2}})
    after = [Counter(hand) for hand in state.hands]
    assert after == [before[0], before[1], before[2] + Counter([8]), before[3]]
    assert state.round == 1 and state.to_act() == (0, 1, 2, 3)


def test_bids_stay_secret_until_all_are_in() -> None:
    state, _ = new(fixed={0: [2, 7], 1: [3, 9], 2: [5, 9], 3: [4, 9]})
    pass_highest(state)
    with pytest.raises(IllegalAction):
        state.apply({0: 2})  # the others have not bid: nothing happens
    assert state.observation(None)["bids"] == [] and state.phase == "bid"
    state.apply({0: 2, 1: 3, 2: 5, 3: 4})
    reveal = [e for e in state.events(None) if e["type"] == "bids"]
    assert reveal == [{"type": "bids", "bids": [2, 3, 5, 4]}]


def test_hard_game_is_seven_rounds_then_most_cards_score() -> None:
    state, _ = new(seed=5)
    rng = Rng(9)
    rounds = 0
    while state.to_act():
        if state.phase == "pass":
            rounds += 1
        state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
    assert rounds == 7 and state.kitty == []
    counts = [[0] * 11 for _ in range(4)]
    for seat, hand in enumerate(state.hands):
        for card in hand:
            counts[seat][card] += 1
    expected = [0] * 4
    for rank in range(1, 11):
        top = max(c[rank] for c in counts)
        for seat in range(4):
            if top and counts[seat][rank] == top:
                expected[seat] += rank
    assert [s["score"] for s in state.result()["seats"]] == expected


def test_most_cards_of_a_rank_score_it_and_ties_score_in_full() -> None:
    # Three 8s beat two; two 5s each tie; nobody holds a 10, which scores nothing.
    a = Counter({8: 3, 5: 2, 1: 1})
    b = Counter({8: 2, 5: 2, 3: 1})
    c = Counter({9: 1})
    counts = [[side[r] for r in range(11)] for side in (a, b, c)]
    assert hand_points(counts) == [8 + 5 + 1, 5 + 3, 9]


# -- soft ------------------------------------------------------------------------------


def test_soft_targets_are_one_two_two_two() -> None:
    state, _ = new(options={"soft": True}, seed=4)
    rng = Rng(1)
    seen = []
    while state.to_act():
        if state.phase == "pass":
            seen.append(len(state.targets))
        state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
    assert seen == [1, 2, 2, 2] and state.kitty == []


def soft_round_two(fixed: dict[int, list[int]]):
    state, _ = new(fixed=fixed, options={"soft": True})
    pass_highest(state)
    state.apply({s: state.hands[s][-1] for s in range(4)})  # round 0: bids of the highest cards
    assert state.targets == [5, 9]
    pass_highest(state)
    return state


def test_soft_lowest_chooses_a_target_and_the_second_lowest_takes_the_other() -> None:
    state = soft_round_two({0: [2, 7], 1: [3, 9], 2: [4, 9], 3: [6, 9]})
    state.apply({0: 2, 1: 3, 2: 4, 3: 6})
    assert state.to_act() == (0,) and state.legal_actions(0) == [5, 9]
    hands = {seat: Counter(state.hands[seat]) for seat in range(4)}
    state.apply({0: 9})
    assert Counter(state.hands[0]) == hands[0] + Counter([9])
    assert Counter(state.hands[1]) == hands[1] + Counter([5])  # the 3 is second lowest
    takes = [e for e in state.events(None) if e["type"] == "take"][-2:]
    assert [(e["seat"], e["card"], e["how"]) for e in takes] == [(0, 9, "lowest"), (1, 5, "second")]


def test_soft_ties_are_ignored_and_an_unclaimed_target_is_discarded() -> None:
    state = soft_round_two({0: [3, 7], 1: [3, 9], 2: [3, 9], 3: [6, 9]})
    discards = len(state.discards)
    state.apply({0: 3, 1: 3, 2: 3, 3: 6})
    # Only seat 3's bid is unmatched: it chooses one target, the other is discarded.
    assert state.to_act() == (3,)
    state.apply({3: 5})
    assert len(state.discards) == discards + 4 + 1
    assert [e for e in state.events(None) if e["type"] == "discard"][-1]["cards"] == [9]


def test_soft_one_gives_a_target_away_and_the_second_takes_the_rest() -> None:
    state = soft_round_two({0: [1, 7], 1: [3, 9], 2: [4, 9], 3: [6, 9]})
    state.apply({0: 1, 1: 3, 2: 4, 3: 6})
    assert state.to_act() == (0,)
    assert {a["card"] for a in state.legal_actions(0)} == {5, 9}
    hands = {seat: Counter(state.hands[seat]) for seat in range(4)}
    state.apply({0: {"card": 9, "to": 3}})
    assert Counter(state.hands[3]) == hands[3] + Counter([9])
    assert Counter(state.hands[1]) == hands[1] + Counter([5])


# -- hidden information -------------------------------------------------------------------


def test_perturbation_keeps_known_cards_where_they_are() -> None:
    kitty = [2, 2, 9, 7, 10, 6, 4]
    state, _ = new(fixed={0: [1, 9], 1: [3], 2: [5], 3: [4]}, kitty=kitty)
    state.apply({0: 1, 1: 10, 2: 10, 3: 10})
    rng = Rng(4)
    # Seat 0 passed the only 1 to seat 1: it stays there for seat 0, not for seat 2.
    assert all(1 in state.perturb_hidden(0, rng).hands[1] for _ in range(20))
    assert any(1 not in state.perturb_hidden(2, rng).hands[1] for _ in range(40))
    state.apply({0: 9, 1: 3, 2: 5, 3: 4})  # seat 1 takes the first 2, in public view
    assert state.targets == [2] and 2 in state.hands[1]
    for viewer in (None, 0, 2, 3):
        assert all(2 in state.perturb_hidden(viewer, rng).hands[1] for _ in range(10))
    # Seat 1 has not passed since: seat 0 still knows where its 1 is.
    assert all(1 in state.perturb_hidden(0, rng).hands[1] for _ in range(20))
    state.apply({s: 10 for s in range(4)})
    # After the next pass nobody can tell where the 2 went.
    assert any(2 not in state.perturb_hidden(3, rng).hands[1] for _ in range(40))
    clone = state.perturb_hidden(None, rng)
    assert clone.observation(None) == state.observation(None)
    assert clone.conserved() == state.conserved()


# -- conservation and termination over many random matches -----------------------------------


def test_cards_and_chips_are_conserved_and_every_match_ends() -> None:
    configs = [
        {},
        {"soft": True},
        {"gambling": True},
        {"long_game": True, "target": 30},
        {"partners": True, "gambling": True, "soft": True},
    ]
    for i in range(2000):
        players = 3 + i % 4
        options = dict(configs[i % len(configs)])
        if options.get("partners") and players not in (4, 6):
            options.pop("partners")
        state = GAME.new_match(players, options, seed=i)
        rng = Rng(derive_seed(i, "test"))
        start = state.conserved()
        assert start == {"cards": 55, "chips": 0}
        steps = 0
        while state.to_act():
            moves = {s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()}
            state.apply(moves)
            steps += 1
            assert steps <= GAME.max_actions
            assert state.conserved() == start
        state.result()


# -- the heuristic ----------------------------------------------------------------------------


def test_heuristic_bids_a_spare_low_card_and_keeps_its_majorities() -> None:
    # Seat 0 holds every 2 and 3: one of them is spare, while its 9s and 10s are contested.
    state, _ = new(fixed={0: [2, 2, 3, 3, 3, 9, 9, 9, 10, 10, 10]})
    heuristic = GAME.policies["heuristic"]
    assert heuristic(state.observation(0), state.legal_actions(0), Rng(1)) in (2, 3)
    pass_highest(state)
    assert heuristic(state.observation(0), state.legal_actions(0), Rng(1)) in (2, 3)


def test_heuristic_beats_random_players() -> None:
    heuristic = GAME.policies["heuristic"]
    wins = 0
    matches = 80
    for i in range(matches):
        state = GAME.new_match(4, seed=i)
        hero = i % 4
        play_out(state, hero_among_random(heuristic, hero, 4), Rng(i))
        wins += state.result()["seats"][hero]["rank"] == 1
    assert wins / matches > 0.45  # chance is 25%
