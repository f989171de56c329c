"""Starboard: forced deals through every rule of the text (antes, the paired
deal, paying to draw, busts, knock-outs on locking, the split pot and its odd
coins, the lone player locking, the moving button) and the chip session.

The forced deck applies to the first game of a match; nothing is burned, so
its first two cards start the shared hand. The first button goes to a random
seat; ``new`` picks a seed that gives it to seat 0.
"""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.basic_shoe import OpenShoe
from games.pairs.starboard import GAME
from games.policies import random_policy
from games.rng import Rng, derive_seed


def new(players: int, *cards: int, rotations: int = 1):
    """A match on the forced deck ``cards`` whose first button is seat 0."""
    for seed in range(100):
        state = GAME.new_match(players, {"rotations": rotations}, seed=seed, deck=list(cards))
        if state.button == 0:
            return state
    raise AssertionError("no seed gives seat 0 the first button")


def play(state, *actions: str) -> None:
    for action in actions:
        (seat,) = state.to_act()
        state.apply({seat: action})


def events_of(state, kind: str) -> list[dict]:
    return [event for event in state.events(None) if event["type"] == kind]


def test_antes_and_a_paired_deal_is_replaced() -> None:
    state = new(3, 4, 4, 4, 7)
    observation = state.observation(2)
    assert observation["hand"] == [4, 7]
    assert observation["discards"] == [4, 4]
    assert observation["pot"] == 3 and observation["chips"] == [-1, -1, -1]
    assert state.to_act() == (0,), "the button acts first"
    assert state.legal_actions(0) == ["draw", "lock"]
    assert events_of(state, "deal")[0]["replaced"] == [4, 4]


def test_drawing_costs_a_coin_and_a_pair_busts_the_drawer_only() -> None:
    state = new(3, 1, 2, 3, 3)
    play(state, "draw")  # seat 0 pays 1 and adds a 3
    assert state.observation(None)["hand"] == [1, 2, 3]
    assert state.pot.chips == 4 and state.chips == [-2, -1, -1]
    play(state, "draw")  # seat 1 pays 1 and draws another 3: bust
    observation = state.observation(None)
    assert observation["hand"] == [1, 2, 3], "the pairing card is discarded"
    assert observation["discards"] == [3]
    assert observation["status"] == ["in", "bust", "in"]
    assert state.pot.chips == 5 and state.chips == [-2, -2, -1]
    assert state.to_act() == (2,)
    play(state, "lock")
    assert state.to_act() == (0,), "the busted seat is skipped"


def test_locking_knocks_out_players_locked_with_fewer_cards() -> None:
    state = new(3, 1, 2, 5)
    play(state, "lock")  # seat 0 locks on 2 cards
    play(state, "draw")  # seat 1: a 5, three cards
    play(state, "lock")  # seat 2 locks on 3: seat 0 is knocked out
    assert state.observation(None)["status"] == ["knocked_out", "in", "locked"]
    assert events_of(state, "lock")[-1]["knocked_out"] == [0]
    play(state, "lock")  # seat 1 on 3 as well: a tie, nobody else is knocked out
    win = events_of(state, "win")[0]
    assert win["seats"] == [1, 2] and win["cards"] == 3
    assert win["pot"] == 4 and win["share"] == 2 and win["carried"] == 0
    assert state.session.hands[0]["deltas"] == [-1, 0, 1]


def test_knock_outs_happen_on_locking_not_on_drawing() -> None:
    # Seats 0 and 1 lock on 2 cards; seat 2 draws safely to 3, then busts: nobody
    # ever locked on more, so the two early lockers split the pot.
    state = new(3, 1, 2, 5, 5)
    play(state, "lock", "lock", "draw")
    observation = state.observation(None)
    assert observation["status"] == ["locked", "locked", "in"]
    assert observation["locked_with"] == [2, 2, None]
    assert state.to_act() == (2,), "locked players are still in: seat 2 is not alone"
    play(state, "draw")  # the second 5: bust
    win = events_of(state, "win")[0]
    assert win["seats"] == [0, 1] and win["cards"] == 2


def test_odd_coins_stay_for_the_next_pot_and_the_button_moves_left() -> None:
    state = new(3, 1, 2, 3, 3)
    play(state, "draw")  # seat 0: a 3 (pot 4)
    play(state, "lock", "lock")  # seats 1 and 2 lock on 3 cards
    play(state, "draw")  # seat 0 pairs the 3 (pot 5) and busts
    win = events_of(state, "win")[0]
    assert win["seats"] == [1, 2] and win["pot"] == 5
    assert win["share"] == 2 and win["carried"] == 1
    assert state.session.hands[0]["deltas"] == [-3, 1, 1]
    # The second game: the odd coin plus three new antes, button on seat 1.
    observation = state.observation(None)
    assert observation["game"] == 1 and observation["button"] == 1
    assert observation["pot"] == 1 + 3
    assert state.to_act() == (1,)
    assert sum(state.chips) + state.pot.chips == 0


def test_the_only_player_left_locks() -> None:
    state = new(2, 6, 8, 8)
    play(state, "draw")  # seat 0 pairs the 8 and busts
    lock = events_of(state, "lock")[0]
    assert lock == {"type": "lock", "seat": 1, "cards": 2, "knocked_out": [], "auto": True}
    assert state.session.hands[0]["deltas"] == [-2, 2]
    assert state.session.hands[0]["winners"] == [1]


def test_the_last_player_in_may_still_draw_past_the_lockers() -> None:
    state = new(2, 6, 8, 1, 2)
    play(state, "lock")  # seat 0 on 2 cards
    play(state, "draw", "draw", "lock")  # seat 1 draws twice, then locks on 4
    win = events_of(state, "win")[0]
    assert win["seats"] == [1] and win["cards"] == 4
    assert events_of(state, "lock")[-1]["knocked_out"] == [0]
    assert state.session.hands[0]["deltas"] == [-1, 1]


def test_session_gives_every_seat_the_button_equally_and_ranks_by_chips() -> None:
    for players in (2, 3, 5):
        state = GAME.new_match(players, {"rotations": 2}, seed=players)
        rng = Rng(players)
        buttons = []
        while not state.is_over():
            if len(buttons) == state.session.hand:
                buttons.append(state.button)
                assert state.to_act() == (state.button,)
            (seat,) = state.to_act()
            state.apply({seat: random_policy({}, state.legal_actions(seat), rng)})
        first = buttons[0]
        assert buttons == [(first + game) % players for game in range(2 * players)]
        seats = state.result()["seats"]
        assert [seat["score"] for seat in seats] == state.chips
        for a in seats:
            assert a["rank"] == 1 + sum(1 for b in seats if b["score"] > a["score"])


def test_the_first_button_goes_to_a_random_seat() -> None:
    firsts = {GAME.new_match(4, seed=seed).button for seed in range(60)}
    assert firsts == {0, 1, 2, 3}


def test_many_random_matches_conserve_chips_and_cards_and_end() -> None:
    for index in range(2000):
        players = 2 + index % 6
        seed = derive_seed(17, "match", index)
        state = GAME.new_match(players, {"rotations": 1}, seed=seed)
        rng = Rng(seed)
        actions = 0
        while not state.is_over():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            state.apply({seat: legal[rng.below(len(legal))]})
            actions += 1
            assert actions <= 40 * players
            assert sum(state.chips) + state.pot.chips == 0
            assert state.card_count() == 55
        assert all(type(chips) is int for chips in state.chips)
        assert len(state.session.hands) == players


def test_a_game_can_never_run_out_of_cards() -> None:
    # The longest possible game: the deal pairs nine times (all ten 10s), every
    # other rank joins the hand, then six of seven players bust and the last
    # locks. 25 cards of 55.
    state = new(7, 10, *([10] * 9), 1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert state.observation(None)["hand"] == [10, 1]
    play(state, *["draw"] * 8)
    assert sorted(state.hand) == list(range(1, 11))
    assert state.observation(None)["deck_size"] == 55 - 19
    play(state, *["draw"] * 6)  # every card pairs now: six busts, the last locks
    assert events_of(state, "lock")[0]["seat"] == 0 and events_of(state, "lock")[0]["auto"]


def test_open_shoe_burns_nothing_and_deals_the_forced_order() -> None:
    shoe = OpenShoe(Rng(3), [5, 9, 1])
    assert len(shoe) == 55 and shoe.discards == []
    assert [shoe.draw(), shoe.draw(), shoe.draw()] == [5, 9, 1]


def test_wrong_seat_and_bad_actions_change_nothing() -> None:
    state = new(3, 1, 2)
    record = state.to_json()
    with pytest.raises(IllegalAction):
        state.apply({1: "lock"})
    for bad in ("hit", "DRAW", 1, None, ["lock"]):
        with pytest.raises(IllegalAction):
            state.apply({0: bad})
    assert state.to_json() == record
    assert state.default_action(0) == "lock"


@pytest.mark.parametrize("options", [{"rotations": 0}, {"rotations": 51}, {"rotations": "2"}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


def test_heuristic_draws_when_safe_and_locks_when_last_and_ahead() -> None:
    heuristic = GAME.policies["heuristic"]
    state = new(2, 1, 2, 3)
    play(state, "draw")  # seat 0: a 3
    # Only 3 of the 52 unseen cards pair 1-2-3: drawing is worth it.
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == "draw"
    state = new(2, 6, 8, 9, 10)
    play(state, "draw")  # seat 0: 6-8-9, where 20 of 52 unseen cards pair
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == "lock"
    state = new(2, 1, 2, 3)
    play(state, "lock", "draw")  # seat 0 locks on 2, seat 1 draws to 3
    # Seat 1 is the last one in and already ahead: locking takes the pot.
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == "lock"
