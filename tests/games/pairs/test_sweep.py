"""Sweep: forced deals through the rule text's example and the tricky rules
(docs/rules/pairs-sweep.md)."""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.sweep import GAME, MAX_HANDS, hand_points
from games.policies import random_policy
from games.rng import Rng, derive_seed


def forced(hands: dict[int, list[int]], centres: list[list[int]]) -> list[int]:
    """The deck dealing ``hands`` one card at a time from seat 1 (seat 0 deals the first
    hand), then ``centres`` as the first rounds' centre cards."""
    players = len(hands)
    order = [(1 + i) % players for i in range(players)]
    deck = [hands[seat][i] for i in range(5) for seat in order]
    return deck + [card for centre in centres for card in centre]


def new_match(hands, centres, starter: int = 0, options: dict | None = None):
    """A match on the forced deck whose random first player is ``starter``."""
    deck = forced(hands, centres)
    for seed in range(200):
        state = GAME.new_match(len(hands), options or {}, seed=seed, deck=deck)
        if state.starter == starter:
            return state
    raise AssertionError("no seed gives that starter")


def play_round(state, cards: dict[int, int]) -> None:
    """Each seat plays its card when its turn comes."""
    for _ in cards:
        (seat,) = state.to_act()
        state.apply({seat: cards[seat]})


def captures(state) -> list[tuple[int, int, list[int]]]:
    return [
        (e["seat"], e["with"], e["cards"]) for e in state.events(None) if e["type"] == "capture"
    ]


HANDS3 = {0: [1, 4, 6, 6, 7], 1: [2, 6, 7, 8, 8], 2: [3, 8, 8, 9, 10]}


def test_the_lowest_card_takes_the_highest_centre_rank_then_cards_capture_upwards() -> None:
    # The text's example: a 4 is lowest and the highest centre cards are two 9s.
    state = new_match(HANDS3, [[2, 5, 7, 9, 9]], starter=0)
    assert state.centre == [2, 5, 7, 9, 9]
    assert state.to_act() == (0,)
    play_round(state, {0: 4, 1: 6, 2: 8})
    assert captures(state) == [
        (0, 4, [9, 9]),
        # The 4 fell into the centre: the 6 takes it with the 2 and the 5.
        (1, 6, [2, 4, 5]),
        (2, 8, [6, 7]),
    ]
    assert state.hands == [[1, 6, 6, 7, 9, 9], [2, 2, 4, 5, 7, 8, 8], [3, 6, 7, 8, 9, 10]]
    # Only the 8 is left: it is discarded, and seat 2, who took the last card, starts.
    discards = [e for e in state.events(None) if e["type"] == "discard"]
    assert discards == [{"type": "discard", "cards": [8]}]
    assert state.round == 2 and state.starter == 2 and state.to_act() == (2,)


def test_a_low_card_above_the_whole_centre_still_takes_only_the_top_rank() -> None:
    # The lowest play is a 6 and the centre's highest rank is 5: it takes the two 5s only,
    # not the 2, 3 and 4 below it; they wait for the 8.
    state = new_match(HANDS3, [[2, 3, 4, 5, 5]], starter=0)
    play_round(state, {0: 6, 1: 8, 2: 9})
    assert captures(state) == [(0, 6, [5, 5]), (1, 8, [2, 3, 4, 6]), (2, 9, [8])]
    assert state.starter == 2


def test_a_card_never_takes_its_own_rank() -> None:
    # The 7 takes the 2, the 3 and the 4 below it, not the centre's 7; the 8 takes both 7s.
    state = new_match(HANDS3, [[2, 4, 7, 9, 9]], starter=0)
    play_round(state, {0: 7, 1: 8, 2: 3})
    assert captures(state) == [(2, 3, [9, 9]), (0, 7, [2, 3, 4]), (1, 8, [7, 7])]
    discards = [e["cards"] for e in state.events(None) if e["type"] == "discard"]
    assert discards == [[8]] and state.starter == 1


def test_plays_are_in_turn_from_the_starter_and_face_up() -> None:
    state = new_match(HANDS3, [[2, 5, 7, 9, 9]], starter=1)
    assert state.to_act() == (1,)
    state.apply({1: 7})
    assert state.to_act() == (2,)
    # The next player sees the card already played.
    assert state.observation(2)["plays"] == [[1, 7]]
    with pytest.raises(IllegalAction):
        state.apply({2: 1})  # seat 2 holds no 1
    state.apply({2: 3})
    assert state.to_act() == (0,)


def test_matched_cards_take_single_cards_in_turn_with_a_choice() -> None:
    hands = {
        0: [5, 6, 6, 8, 8],
        1: [7, 6, 8, 8, 9],
        2: [7, 8, 9, 9, 10],
        3: [10, 9, 9, 10, 10],
    }
    state = new_match(hands, [[1, 2, 3, 9, 10]], starter=0)
    play_round(state, {0: 5, 1: 7, 2: 7, 3: 10})
    # The 5 took the 10; the two 7s now share 1, 2, 3 and the fallen 5, seat 1 first.
    assert captures(state) == [(0, 5, [10])]
    assert state.phase == "pick" and state.to_act() == (1,)
    assert state.legal_actions(1) == [1, 2, 3, 5]
    state.apply({1: 5})
    assert state.to_act() == (2,)
    state.apply({2: 3})
    state.apply({1: 2})
    # Only the 1 is left for seat 2: taken without asking.
    assert captures(state)[1:] == [
        (1, 7, [5]),
        (2, 7, [3]),
        (1, 7, [2]),
        (2, 7, [1]),
        # Both 7s fell in: the 10 takes them with the 9.
        (3, 10, [7, 7, 9]),
    ]
    assert state.starter == 3


def test_matched_lowest_cards_share_the_top_rank_and_the_first_player_gets_more() -> None:
    hands = {0: [2, 1, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [5, 4, 6, 7, 9]}
    state = new_match(hands, [[3, 4, 8, 8, 8]], starter=1)
    play_round(state, {1: 2, 2: 5, 0: 2})
    # No choice among equal cards: seat 1 played first and takes two 8s, seat 0 one.
    assert captures(state) == [(1, 2, [8]), (0, 2, [8]), (1, 2, [8]), (2, 5, [2, 2, 3, 4])]


def test_the_first_matched_player_gets_the_odd_card_and_a_lone_rank_needs_no_choice() -> None:
    hands = {0: [6, 3, 4, 8, 8], 1: [6, 3, 4, 8, 8], 2: [1, 4, 5, 6, 7]}
    state = new_match(hands, [[2, 5, 7, 9, 9]], starter=0)
    play_round(state, {0: 6, 1: 6, 2: 1})
    # The 1 takes both 9s and falls in; the 6s share the 1, the 2 and the 5.
    assert state.phase == "pick" and state.to_act() == (0,)
    assert state.legal_actions(0) == [1, 2, 5]
    state.apply({0: 5})
    state.apply({1: 2})
    # Only the 1 is left: seat 0 takes it without being asked.
    assert captures(state) == [(2, 1, [9, 9]), (0, 6, [5]), (1, 6, [2]), (0, 6, [1])]
    assert state.phase == "play" and state.round == 2 and state.starter == 0


def test_a_player_whose_hand_runs_out_sits_out() -> None:
    # Seat 2 always matches seat 1, who played first and takes the only target.
    hands = {0: [1, 2, 2, 3, 3], 1: [5, 5, 6, 6, 7], 2: [5, 5, 6, 6, 7]}
    centres = [
        [7, 7, 8, 9, 10],
        [7, 7, 8, 9, 10],
        [7, 8, 8, 9, 10],
        [8, 8, 9, 9, 10],
        [8, 9, 9, 9, 10],
    ]
    state = new_match(hands, centres, starter=0)
    for low, rank in zip([1, 2, 2, 3, 3], [5, 5, 6, 6, 7]):
        # The low card takes the 10(s); the matched pair finds only that low card below it.
        play_round(state, {0: low, 1: rank, 2: rank})
        assert state.starter == 1
    assert all(seat != 2 for seat, _, _ in captures(state))
    assert state.hands[2] == [] and state.round == 6
    assert state.order == [1, 0] and state.to_act() == (1,)


def test_the_deck_runs_out_after_eleven_minus_players_rounds_and_all_cards_stay() -> None:
    for players in range(3, 7):
        state = GAME.new_match(players, seed=players)
        assert state.rounds == 11 - players
        assert len(state.shoe) == 55 - 5 * players - 5  # the first centre is out
        rng = Rng(players)
        while not state.is_over():
            state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
        assert state.round == 11 - players and len(state.shoe) == 0
        held = sum(len(hand) for hand in state.hands)
        assert held + len(state.discarded) == 55


def test_first_player_is_random_then_the_last_taker() -> None:
    starters = {GAME.new_match(4, seed=seed).starter for seed in range(40)}
    assert starters == {0, 1, 2, 3}


def test_most_cards_of_a_rank_score_it_and_ties_each_score() -> None:
    hands = [[9, 9, 5, 1], [9, 9, 3], [5, 3, 3]]
    # 9s: tie two-two, both score 9. 5s: one each, both score 5. 3s: seat 2. 1: seat 0.
    assert hand_points(hands) == [9 + 5 + 1, 9, 5 + 3]


def test_one_hand_without_the_long_game() -> None:
    state = GAME.new_match(3, seed=3)
    rng = Rng(1)
    while not state.is_over():
        state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
    assert len(state.session.hands) == 1
    scores = [seat["score"] for seat in state.result()["seats"]]
    assert scores == hand_points(state.hands)


@pytest.mark.parametrize("players", [3, 6])
def test_the_long_game_runs_to_150(players: int) -> None:
    for seed in range(5):
        state = GAME.new_match(players, {"long_game": True}, seed=seed)
        rng = Rng(seed)
        while not state.is_over():
            state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
        hands = state.session.hands
        assert len(hands) < MAX_HANDS
        totals = [0] * players
        for number, hand in enumerate(hands):
            totals = [t + d for t, d in zip(totals, hand["deltas"])]
            reached = max(totals) >= 150 and totals.count(max(totals)) == 1
            # Play stops at the first hand where one player alone leads at 150 or more.
            assert reached == (number == len(hands) - 1)
        ranks = [seat["rank"] for seat in state.result()["seats"]]
        assert ranks[totals.index(max(totals))] == 1 and ranks.count(1) == 1


def test_the_deal_is_private() -> None:
    state = new_match(HANDS3, [[2, 5, 7, 9, 9]], starter=0)
    assert state.observation(1)["cards"] == sorted(HANDS3[1])
    assert "cards" not in state.observation(None)
    deals = [e for e in state.events(1) if e["type"] == "deal"]
    assert [e.get("cards") for e in deals] == [sorted(HANDS3[1]), None, None]


def test_cards_are_conserved_and_every_match_ends() -> None:
    for i in range(2000):
        players = 3 + i % 4
        options = {"long_game": i % 10 == 0}
        state = GAME.new_match(players, options, seed=i)
        rng = Rng(derive_seed(i, "sweep-test"))
        actions = 0
        while not state.is_over():
            moves = {s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()}
            state.apply(moves)
            actions += 1
            assert actions <= GAME.max_actions
            assert state.conserved() == {"cards": 55}


@pytest.mark.parametrize("options", [{"long_game": 1}, {"long_game": "yes"}, {"target": 150}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


def test_heuristic_playing_last_takes_the_biggest_haul() -> None:
    state = new_match(HANDS3, [[2, 5, 7, 9, 9]], starter=1)
    state.apply({1: 2})
    state.apply({2: 3})
    # Seat 0 plays last and knows every play: its 1 would fire first and take both 9s;
    # any other card takes one or two small cards.
    heuristic = GAME.policies["heuristic"]
    assert heuristic(state.observation(0), state.legal_actions(0), Rng(1)) == 1
