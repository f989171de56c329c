"""Basic Pairs: the booklet's worked examples on forced decks, and the rules
around them (tie-breaks, reshuffles, target scores, observations).

Seats: the dealer of the first game is seat 0, so the deal starts at seat 1.
In the booklet's examples Angie (A) deals; A..E are seats 0..4.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games import IllegalAction, InvalidOptions, registry
from games.cards import Shoe, pairs_deck
from games.pairs.basic import losing_score
from games.pairs.deal import deal_for_low
from games.policies import random_policy
from games.rng import Rng

GAME = registry.get("pairs")
BURN = [10, 10, 10, 10, 10]
A, B, C, D, E = range(5)


def new(players: int, *cards: int, burn: list[int] = BURN, **options):
    """A match whose deck starts with ``burn`` then ``cards`` (deal order, then hits)."""
    return GAME.new_match(players=players, options=options, seed=5, deck=[*burn, *cards])


def act(state, action) -> None:
    (seat,) = state.to_act()
    state.apply({seat: action})


def stacks(state) -> list[list[int]]:
    return state.observation(None)["stacks"]


def fold_points(state) -> int:
    """What the player to act would score by folding now (played on a copy)."""
    (seat,) = state.to_act()
    probe = state.clone()
    probe.apply({seat: "fold"})
    return probe.observation(None)["scores"][seat]


def test_example_game_five_players() -> None:
    # Deal from Angie's left: B 10, C 10, D 6, E 9, A 7. Then the hits: D 8, E 3,
    # A 9, B 5. Round two (Angie deals again): B 10, C 5, D 4, E 6, A 9.
    state = new(5, 10, 10, 6, 9, 7, 8, 3, 9, 5, 10, 5, 4, 6, 9)
    assert stacks(state) == [[7], [10], [10], [6], [9]]
    start = state.observation(None)
    assert start["discard_pile"] == 5 and start["burned"] == 5, "five burned in the middle"
    assert start["draw_pile"] == 55 - 5 - 5
    assert state.to_act() == (D,), "the lowest card, Delia's 6, starts"
    assert state.legal_actions(D) == ["hit", "fold"]
    assert fold_points(state) == 6, "Delia could fold for her own 6"
    act(state, "hit")  # Delia: 8, no pair
    assert stacks(state)[D] == [6, 8]
    assert state.to_act() == (E,), "play passes to the left"
    assert fold_points(state) == 6, "Echo could fold for Delia's 6"
    assert state.observation(E)["unseen"][9 - 1] == 8, "only eight 9s left unseen"
    act(state, "hit")  # Echo: 3
    assert fold_points(state) == 3, "Angie could fold for Echo's 3"
    act(state, "hit")  # Angie: 9
    assert fold_points(state) == 3, "so could Bob"
    act(state, "hit")  # Bob: 5
    assert stacks(state) == [[7, 9], [10, 5], [10], [6, 8], [9, 3]]
    assert state.to_act() == (C,)
    # Had Carlos hit and paired his 10, he would have scored 10 instead of 3.
    hit = state.clone()
    hit.apply({C: "hit"})
    assert hit.observation(None)["scores"] == [0, 0, 10, 0, 0]
    act(state, "fold")  # Carlos takes Echo's 3
    observation = state.observation(None)
    assert observation["scores"] == [0, 0, 3, 0, 0]
    assert observation["score_cards"] == [[], [], [3], [], []]
    fold = next(e for e in state.events(None) if e["type"] == "fold")
    assert fold == {"type": "fold", "seat": C, "from": E, "card": 3, "points": 3}
    # Every other card in play went to the discards, face up, and a new round began.
    assert sorted(observation["seen_discards"]) == [5, 6, 7, 8, 9, 9, 10, 10]
    assert observation["round"] == 1
    assert observation["target"] == 13
    # Angie still deals: the new round starts with Bob, and the low card (Delia's 4) leads.
    deal = [e for e in state.events(None) if e["type"] == "deal"][-1]
    assert deal["cards"] == [[B, 10], [C, 5], [D, 4], [E, 6], [A, 9]]
    assert observation["dealer"] == A and observation["scores"][C] == 3
    assert state.to_act() == (D,)


def test_tie_for_low_is_broken_by_extra_cards() -> None:
    # B 4, C 4, D 10, E 7, A 10; tie-breakers B 8, C 9: Bob starts.
    state = new(5, 4, 4, 10, 7, 10, 8, 9)
    assert stacks(state) == [[10], [4, 8], [4, 9], [10], [7]]
    assert state.to_act() == (B,)


def test_tied_tie_breakers_get_more_cards() -> None:
    # B and C tie on 4, then again on 8; the third cards (9 and 5) settle it for C.
    state = new(5, 4, 4, 10, 7, 10, 8, 8, 9, 5)
    assert stacks(state) == [[10], [4, 8, 9], [4, 8, 5], [10], [7]]
    assert state.to_act() == (C,)


def test_tie_break_pair_is_replaced() -> None:
    # B's tie-breaker is another 4: it is discarded and replaced by a 8.
    state = new(5, 4, 4, 10, 7, 10, 4, 8, 9)
    assert stacks(state) == [[10], [4, 8], [4, 9], [10], [7]]
    assert state.to_act() == (B,)
    observation = state.observation(None)
    assert observation["scores"] == [0] * 5
    assert observation["seen_discards"] == [4]
    deal = next(e for e in state.events(None) if e["type"] == "deal")
    assert deal["cards"] == [[1, 4], [2, 4], [3, 10], [4, 7], [0, 10], [1, 4], [1, 8], [2, 9]]
    assert deal["replaced"] == [5]
    assert deal["start"] == B


def test_hitting_a_pair_scores_its_rank_and_ends_the_round() -> None:
    state = new(2, 9, 5, 5, 3, 2, 1, burn=[10, 10, 10, 10, 6])
    # Seat 1 gets 9, seat 0 gets 5; seat 0 starts and pairs its 5.
    assert state.to_act() == (0,)
    act(state, "hit")
    observation = state.observation(None)
    assert observation["scores"] == [5, 0]
    assert observation["score_cards"] == [[5], []]
    # Next round: seat 1 gets 3, seat 0 gets 2; seat 0 (the 2) starts.
    assert observation["stacks"] == [[2], [3]]
    assert state.to_act() == (0,)
    assert observation["seen_discards"] == [5, 9]


def test_fold_takes_the_lowest_card_in_play_even_the_folders_own() -> None:
    state = new(3, 6, 9, 2, 8, 7)  # seat1 6, seat2 9, seat0 2: seat 0 starts
    act(state, "hit")  # seat 0: 8
    act(state, "hit")  # seat 1: 7
    act(state, "fold")  # seat 2 takes seat 0's 2
    assert state.observation(None)["scores"] == [0, 0, 2]


def test_reshuffle_burns_five_and_keeps_cards_in_play_out() -> None:
    # Eight players, each round dealt from seat 1; the starter folds at once on
    # its own unique low card. Six rounds use 5 + 48 cards; round seven's deal
    # gets two cards, then the pile runs out mid-deal.
    lows = [1, 2, 2, 3, 3, 3]
    fillers = sorted((c for c in pairs_deck() if c >= 4), reverse=True)
    deck = fillers[:5]
    fillers = fillers[5:]
    for round_index, low in enumerate(lows):
        cards = [fillers.pop() for _ in range(7)]
        cards.insert(round_index, low)  # seat round_index + 1 gets the low card
        deck += cards
    deck += fillers  # the two cards dealt before the reshuffle
    assert len(deck) == 55
    state = GAME.new_match(players=8, seed=3, deck=deck)
    for round_index in range(6):
        assert state.to_act() == (round_index + 1,)
        act(state, "fold")
    assert state.shoe.shuffles == 1
    events = state.events(None)
    shuffle_at = max(i for i, e in enumerate(events) if e["type"] == "shuffle")
    assert events[shuffle_at] == {"type": "shuffle", "burned": 5}
    deal = events[shuffle_at + 1]
    assert deal["type"] == "deal" and deal["round"] == 6
    assert deal["shuffled_before"] == 2
    assert deal["cards"][:2] == [[1, fillers[0]], [2, fillers[1]]]
    observation = state.observation(None)
    assert observation["stacks"][1][0] == fillers[0]
    assert observation["stacks"][2][0] == fillers[1]
    assert observation["burned"] == 5
    # The new pile and the burns are exactly the old discards: not the two
    # cards in play, not the six scored cards.
    after = [card for _, card in deal["cards"][2:]]
    reshuffled = state.shoe.cards() + state.shoe.discards[:5] + after
    expected = Counter(pairs_deck()) - Counter(lows) - Counter(fillers)
    assert Counter(reshuffled) == expected
    # The face-up record restarts at the shuffle.
    replaced = [deal["cards"][i][1] for i in deal.get("replaced", [])]
    assert Counter(observation["seen_discards"]) == Counter(replaced)


@pytest.mark.parametrize(
    ("players", "target"), [(2, 31), (3, 21), (4, 16), (5, 13), (6, 11), (7, 11), (8, 11)]
)
def test_the_game_ends_when_a_player_reaches_the_target(players: int, target: int) -> None:
    assert losing_score(players) == target
    state = GAME.new_match(players=players, seed=players)
    rng = Rng(players)
    while not state.is_over():
        before = state.observation(None)["scores"]
        assert max(before) < target
        (seat,) = state.to_act()
        state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
    final = state.events(None)[-1]
    assert final["type"] == "game_over"
    loser = final["loser"]
    assert final["scores"][loser] >= target
    assert all(score < target for s, score in enumerate(final["scores"]) if s != loser)
    result = state.result()["seats"]
    assert result[loser]["rank"] == players
    assert result[loser]["losses"] == 1
    others = sorted((final["scores"][s], result[s]["rank"]) for s in range(players) if s != loser)
    assert [r for _, r in others] == sorted(r for _, r in others), "fewer points rank higher"


def test_unseen_counts_follow_the_cards_shown() -> None:
    state = new(2, 9, 5, 3)
    unseen = state.observation(1)["unseen"]
    # Nothing seen but the 9 and the 5 dealt (the burns are hidden).
    assert unseen == [1, 2, 3, 4, 4, 6, 7, 8, 8, 10]
    act(state, "hit")  # seat 0: 3
    assert state.observation(0)["unseen"][2] == 2
    assert state.observation(0)["draw_pile"] == 55 - 5 - 3


def test_only_the_acting_seat_may_act_and_bad_actions_change_nothing() -> None:
    state = new(2, 9, 5)
    record = state.to_json()
    with pytest.raises(IllegalAction):
        state.apply({1: "hit"})
    for bad in ("eights", "fold:1:9", "HIT", 1, None):
        with pytest.raises(IllegalAction):
            state.apply({0: bad})
    assert state.to_json() == record


def test_default_action_folds_on_the_lowest_card() -> None:
    state = new(2, 9, 5)
    assert state.default_action(0) == "fold"
    state = new(2, 9, 5, continuous=True)
    assert state.default_action(0) == "fold:0:5"


@pytest.mark.parametrize(
    "options",
    [{"gambling": "vegas"}, {"games": 21}, {"games": -1}, {"stake": 0}, {"continuous": 1}],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(players=3, options=options)


def test_heuristic_beats_random() -> None:
    heuristic = GAME.policies["heuristic"]
    losses = 0
    matches = 150
    for match in range(matches):
        state = GAME.new_match(players=2, seed=match)
        rng = Rng(match)
        smart = match % 2
        while not state.is_over():
            (seat,) = state.to_act()
            policy = heuristic if seat == smart else random_policy
            state.apply({seat: policy(state.observation(seat), state.legal_actions(seat), rng)})
        losses += state.result()["seats"][smart]["losses"]
    assert losses < 0.35 * matches


def test_a_tie_no_card_can_break_goes_to_the_first_tied_seat() -> None:
    # Both seats show a 1, then a 2; the only cards left are 2s, which pair
    # seat 0 and are replaced forever: the tie-break gives up.
    shoe = Shoe([1, 1, 2, 2, 2, 2], Rng(1), forced=[1, 1, 2, 2, 2, 2])
    stacks, starter, dealt = deal_for_low(shoe, [0, 1])
    assert starter == 0
    assert stacks == {0: [1, 2], 1: [1, 2]}
    assert all(paired for seat, card, paired in dealt[4:])
    assert len(shoe) + len(shoe.discards) == 2


def test_a_tie_that_runs_the_deck_dry_keeps_every_card_dealt() -> None:
    shoe = Shoe([1, 1, 2, 2], Rng(1), forced=[1, 1, 2, 2])
    stacks, starter, dealt = deal_for_low(shoe, [1, 0])
    assert starter == 1
    assert stacks == {1: [1, 2], 0: [1, 2]}
    assert [(seat, card) for seat, card, _ in dealt] == [(1, 1), (0, 1), (1, 2), (0, 2)]
