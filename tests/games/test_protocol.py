"""The protocol's own checks, which every engine relies on."""

import copy

import pytest

from games import registry
from games.protocol import IllegalAction, is_legal


@pytest.mark.parametrize(
    "action, legal, expected",
    [
        ("hit", ["hit", "fold"], True),
        ("stand", ["hit", "fold"], False),
        (1, [1, 2], True),
        (True, [1, 2], False),  # JSON true is not 1
        (1, [True, 2], False),
        (1, [True, 1], True),
        (0, [False], False),
        (1.0, [1], False),
        (None, [None, 0], True),
        (None, [0, False, ""], False),
        (["7H", 2], [["7H", 2], ["7H", 3]], True),
        (["7H", True], [["7H", 1]], False),
        ({"bid": 3}, [{"bid": 3}], True),
        ({"bid": 1}, [{"bid": True}], False),
    ],
)
def test_is_legal_keeps_json_types_apart(action, legal, expected):
    assert is_legal(action, legal) is expected


@pytest.mark.parametrize(
    "moves, message",
    [
        ({0: "first", 1: "first"}, "must act together"),  # a seat missing
        ({0: "first", 1: "first", 2: "first", 3: "first"}, "must act together"),  # one more
        ({0: 99, 1: "first", 3: "first"}, "must act together"),  # a wrong seat, a bad move
        ({0: "first", 1: 99, 2: "first"}, "seat 1: 99 is not a legal action now"),
        ({0: "first", 1: True, 2: "first"}, "seat 1: true is not a legal action now"),
    ],
)
def test_a_simultaneous_decision_is_refused_whole_and_changes_nothing(moves, message):
    state = registry.get("pairs-venture").new_match(players=3, seed=5)
    assert state.to_act() == (0, 1, 2)
    legal = [state.legal_actions(seat) for seat in range(3)]
    moves = {seat: legal[seat % 3][0] if move == "first" else move for seat, move in moves.items()}
    before = state.observation(None)
    with pytest.raises(IllegalAction, match=message):
        state.apply(moves)
    assert state.observation(None) == before
    assert state.moves == []


def test_player_counts_follow_each_games_own_rule():
    paks = registry.get("paks")
    assert paks.player_counts() == [2, 3, 4, 6]
    pairs = registry.get("pairs")
    assert pairs.player_counts() == list(range(pairs.min_players, pairs.max_players + 1))


def test_replay_stays_the_registrys_name_for_rebuilding_a_record():
    """Outside code calls ``registry.replay``; the project calls it ``rebuild``."""
    state = registry.get("pairs").new_match(players=3, seed=11)
    while not state.is_over() and len(state.moves) < 5:
        seat = state.to_act()[0]
        state.apply({seat: state.legal_actions(seat)[0]})
    record = state.to_json()
    assert record["moves"]
    assert registry.replay(record).to_json() == record == registry.rebuild(record).to_json()


def _played(slug: str, players: int, moves: int):
    state = registry.get(slug).new_match(players=players, seed=3)
    for _ in range(moves):
        if state.is_over():
            break
        state.apply({seat: state.legal_actions(seat)[0] for seat in state.to_act()})
    return state


def _seen_afresh(state, seat):
    """The events as a fresh build from the log gives them."""
    out = []
    for public, private in state._events:
        event = dict(public)
        if seat is not None and seat in private:
            event.update(private[seat])
        out.append(event)
    return out


@pytest.mark.parametrize("slug", ["stax", "pairs-venture", "paks"])
def test_events_are_made_once_per_seat_and_clones_keep_their_own(slug):
    players = registry.get(slug).min_players
    state = _played(slug, players, 6)
    first = state.events(0)
    again = state.events(0)
    assert again == first and again is not first
    assert all(a is b for a, b in zip(first, again, strict=True))  # each view made once
    assert state.events(0, since=2) == first[2:]
    for seat in (None, *range(players)):
        assert state.events(seat) == _seen_afresh(state, seat)
    assert state.events(None) is not state.events(None)
    for copy_of in (state.clone(), copy.deepcopy(state)):
        before = [dict(event) for event in state.events(0)]
        for _ in range(8):
            if copy_of.is_over():
                break
            copy_of.apply({s: copy_of.legal_actions(s)[-1] for s in copy_of.to_act()})
            assert copy_of.events(0) == _seen_afresh(copy_of, 0)
        assert state.events(0) == before == _seen_afresh(state, 0)
    # The log grows under views already made: the views grow with it.
    state.apply({seat: state.legal_actions(seat)[0] for seat in state.to_act()})
    assert state.events(1) == _seen_afresh(state, 1)
