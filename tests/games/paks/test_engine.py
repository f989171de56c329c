"""Paks: the rule text's examples on forced decks, and the rules around them.

Seat 0 deals the first hand, so cards go out one at a time from seat 1, and
seat 1 draws first. Forced decks list the deal, then the three board cards,
then the stock, top card first.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from games import IllegalAction, InvalidOptions, registry
from games.paks.engine import GAME, team_rule
from games.paks.moves import steals
from games.paks.values import pak_value
from games.policies import random_policy
from games.rng import Rng, derive_seed
from tests.support.paks_table import act, after, new

# -- the stealing example -------------------------------------------------------------------


def test_stealing_two_paks_of_one_suit_from_one_player() -> None:
    hands = {0: ["TS", "5S", "2S", "5C", "2C"], 1: ["KS", "9S", "3H", "4H", "6H"]}
    stock = ["QS", "3D", "JC", "4D", "8C"]
    state = new(hands, ["7S", "6S", "AC"], stock)
    assert state.to_act() == (1,)  # seat 1 drew the Q♠ into its hand
    act(state, "7S", "KS", "done")
    assert state.paks == [[], [["KS", "7S"]]]
    # Seat 0 drew the 3♦: no diamond on the board, so it fed the table. Seat 1 drew the J♣.
    assert state.board == ["6S", "AC", "3D"]
    feeds = [e for e in state.events(None) if e["type"] == "feed"]
    assert feeds == [{"type": "feed", "seat": 0, "card": "3D"}]
    assert state.to_act() == (1,)
    act(state, "6S", "9S", "done")
    assert state.paks[1] == [["KS", "7S"], ["9S", "6S"]]
    # Seat 0 drew the 4♦ and captures the A♣ with 5-2♣ (52 beats 20): a 27-point pak.
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["AC", "3D", "pass"]
    act(state, "AC", "5C")
    assert "done" not in state.legal_actions(0)  # 5 does not beat 20
    act(state, "2C", "done")
    assert state.paks[0] == [["AC", "5C", "2C"]]
    assert pak_value(state.paks[0][0]) == 27
    assert state.observation(None)["pak_values"][0] == [27]
    # Either spade pak can start the steal; 10-5-2♠ (62) beats both together (32).
    assert state.phase == "steal"
    assert state.legal_actions(0) == [[1, 0], [1, 1], "end"]
    act(state, [1, 0])
    assert state.legal_actions(0) == [1, "2S", "5S", "TS"]
    act(state, 1, "TS", "5S")
    assert "done" not in state.legal_actions(0)  # 15 does not beat 32
    act(state, "2S")
    assert state.legal_actions(0) == ["done"]
    act(state, "done")
    # The stolen paks and the stealing cards make one pak; the club pak stays apart.
    assert state.paks == [[["AC", "5C", "2C"], ["KS", "TS", "9S", "7S", "6S", "5S", "2S"]], []]
    assert pak_value(state.paks[0][1]) == 49
    steal = next(e for e in state.events(None) if e["type"] == "steal")
    assert steal["stolen"] == [["KS", "7S"], ["9S", "6S"]] and steal["value"] == 62
    # Nothing is left to steal: the turn passed and seat 1 drew (the 8♣, fed to the board).
    assert after(state, "steal")[0] == {"type": "draw", "seat": 1, "card": "8C"}


def test_stealing_is_one_owner_per_suit_never_the_formed_suit() -> None:
    hands = {
        0: ["AS", "AD", "KD", "2C", "3C"],
        1: ["KS", "QD", "2H", "3H", "4H"],
        2: ["QS", "JD", "4C", "6C", "7C"],
    }
    board = ["7S", "8S", "5D"]
    stock = ["9S", "9D", "6D", "9C", "TC"]
    state = new(hands, board, stock)
    act(state, "7S", "KS", "done")  # seat 1: K-7♠ (drew 9♠)
    act(state, "8S", "QS", "done")  # seat 2: Q-8♠ (drew 9♦)
    act(state, "5D", "KD", "done")  # seat 0 drew 6♦; its pak is a diamond one
    # Diamonds are out (just formed); spades can come from seat 1 or seat 2, not both.
    assert state.legal_actions(0) == [[1, 0], [2, 0], "end"]
    act(state, [2, 0])
    assert state.legal_actions(0) == ["AS"]  # no "take": seat 1's spades are another owner's
    act(state, "AS", "done")
    assert state.paks[0] == [["KD", "5D"], ["AS", "QS", "8S"]]
    assert state.paks[1] == [["KS", "7S"]] and state.paks[2] == []
    # Spades were stolen this turn: seat 1's spade pak is safe, and the turn passed on.
    assert after(state, "steal")[0]["type"] == "draw"
    assert after(state, "steal")[0]["seat"] == 1


def test_no_steal_in_the_suit_of_the_pak_just_formed() -> None:
    hands = {0: ["AD", "KD", "QD", "AS", "2C"], 1: ["KS", "9H", "3H", "4H", "6H"]}
    state = new(hands, ["7S", "5D", "8H"], ["9S", "9D", "TC"])
    act(state, "7S", "KS", "done")  # seat 1: K-7♠ (17)
    state.paks[1].append(["JD", "4D"])  # planted: a diamond pak worth 14
    act(state, "5D", "AD", "done")  # seat 0 drew 9♦ and formed a diamond pak
    # K-Q-9♦ (29) would beat J-4♦ (14), but diamonds were just formed: only the spades.
    assert steals(state.hands[0], state.paks, 0, []) == [[1, 0], [1, 1]]
    assert state.legal_actions(0) == [[1, 0], "end"]
    act(state, [1, 0], "AS", "done")
    assert state.paks[1] == [["JD", "4D"]]
    assert state.paks[0] == [["AD", "5D"], ["AS", "KS", "7S"]]


def test_a_steal_keeps_the_stealers_own_paks_of_that_suit_apart() -> None:
    hands = {0: ["TS", "5S", "2S", "5C", "2C"], 1: ["KS", "9S", "3H", "4H", "6H"]}
    state = new(hands, ["7S", "6S", "AC"], ["QS", "3D", "JC", "4D", "8C"])
    act(state, "7S", "KS", "done", "6S", "9S", "done")
    state.paks[0] = [["8S", "3S"]]  # seat 0 already holds a spade pak (planted)
    act(state, "AC", "5C", "2C", "done", [1, 0], 1, "TS", "5S", "2S", "done")
    assert state.paks[0] == [
        ["8S", "3S"],
        ["AC", "5C", "2C"],
        ["KS", "TS", "9S", "7S", "6S", "5S", "2S"],
    ]


def test_partners_may_be_robbed_but_the_heuristic_does_not() -> None:
    filler = ["2H", "3H", "4H", "6H", "7H"]
    clubs = ["9C", "TC", "JC", "QC", "KC"]
    hands = {0: filler, 1: ["AS", "AD", "2C", "3C", "4C"], 2: filler, 3: clubs}
    state = new(hands, ["7S", "5D", "8H"], ["9S"])
    state.paks[2] = [["QD", "4D"]]  # planted: an opponent's diamonds (14)
    state.paks[3] = [["KD", "6D"]]  # and the partner's (16)
    act(state, "7S", "AS", "done")
    assert state.legal_actions(1) == [[2, 0], [3, 0], "end"]
    heuristic = GAME.policies["heuristic"]
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == [2, 0]
    act(state, [3, 0], "AD", "done")
    assert state.paks[3] == [] and state.paks[1][-1] == ["AD", "KD", "6D"]


def test_a_steal_needs_a_higher_total_and_turn_can_end_without_stealing() -> None:
    hands = {0: ["9S", "AD", "KD", "2C", "3C"], 1: ["KS", "QD", "2H", "3H", "4H"]}
    state = new(hands, ["7S", "5D", "8H"], ["9H", "9D", "TC"])
    act(state, "7S", "KS", "done")  # K-7♠ is worth 17
    act(state, "5D", "AD", "done")
    # 9♠ alone (9) cannot steal 17: the turn ends straight away.
    assert after(state, "pak")[0] == {"type": "draw", "seat": 1, "card": "TC"}
    assert state.paks == [[["AD", "5D"]], [["KS", "7S"]]]


def test_declining_to_steal() -> None:
    hands = {0: ["AS", "AD", "KD", "2C", "3C"], 1: ["KS", "QD", "2H", "3H", "4H"]}
    state = new(hands, ["7S", "5D", "8H"], ["9H", "9D", "TC"])
    act(state, "7S", "KS", "done", "5D", "AD", "done")
    assert state.legal_actions(0) == [[1, 0], "end"]
    assert state.default_action(0) == "end"
    act(state, "end")
    assert state.paks == [[["AD", "5D"]], [["KS", "7S"]]]


# -- the turn ---------------------------------------------------------------------------------


def test_draw_is_revealed_and_a_new_suit_feeds_the_table() -> None:
    hands = {0: ["2C", "3C", "4C", "5C", "6C"], 1: ["2D", "3D", "4D", "5D", "6D"]}
    state = new(hands, ["KS", "KH", "8H"], ["7C", "AS", "9D"])
    # Seat 1 drew 7♣ (no club on the board): it feeds; seat 0 drew A♠ and may take a king.
    assert state.board == ["KS", "KH", "8H", "7C"]
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["7C", "KS", "pass"]
    draws = [e for e in state.events(1) if e["type"] == "draw"]
    assert draws == [
        {"type": "draw", "seat": 1, "card": "7C"},
        {"type": "draw", "seat": 0, "card": "AS"},
    ]
    assert state.observation(1)["drawn"] == "AS"
    assert state.default_action(0) == "pass"
    act(state, "pass")
    assert "AS" in state.hands[0]
    assert after(state, "pass")[:2] == [
        {"type": "draw", "seat": 1, "card": "9D"},
        {"type": "feed", "seat": 1, "card": "9D"},
    ]


def test_a_hand_that_cannot_pak_passes_like_one_that_chooses_to() -> None:
    hands = {0: ["AS", "AH", "AD", "5C", "6C"], 1: ["3C", "4C", "6H", "2H", "8D"]}
    state = new(hands, ["KS", "QH", "JD"], ["2S", "7S"])
    # Seat 1 drew 2♠ (spades are on the board) but beats nothing: the engine moves on,
    # logging the same "pass" a choice would, so the others learn nothing about its hand.
    assert state.events(0)[-3:-1] == [
        {"type": "draw", "seat": 1, "card": "2S"},
        {"type": "pass", "seat": 1},
    ]
    assert state.to_act() == (0,) and state.drawn == "7S"
    act(state, "pass")
    assert {"type": "pass", "seat": 0} in state.events(1)


def test_full_table_draws_are_secret_and_a_pak_is_compelled() -> None:
    hands = {0: ["2C", "3H", "4S", "6D", "7H"], 1: ["AD", "5S", "6S", "8S", "9S"]}
    state = new(hands, ["KS", "QH", "JD"], ["9C", "3D", "TC"])
    # Seat 1 drew 9♣: fed, and now every suit is on the board. Seat 0 drew 3♦ in secret.
    assert state.board == ["KS", "QH", "JD", "9C"]
    assert state.observation(None)["full_table"] is True
    assert [e for e in state.events(1) if e["type"] == "draw"][1] == {
        "type": "draw",
        "seat": 0,
        "hidden": True,
    }
    assert [e for e in state.events(0) if e["type"] == "draw"][1]["card"] == "3D"
    # Seat 0 cannot beat anything (hearts 3+7 only tie the queen): its hand is shown.
    show = [e for e in state.events(None) if e["type"] == "show"]
    assert show == [{"type": "show", "seat": 0, "cards": ["2C", "3D", "6D", "3H", "7H", "4S"]}]
    # Seat 1 drew T♣ in secret; it can take three cards and must take one: no "pass".
    assert state.to_act() == (1,)
    assert state.observation(0)["drawn"] is None and state.observation(1)["drawn"] == "TC"
    assert state.legal_actions(1) == ["9C", "JD", "KS"]
    assert state.default_action(1) == "9C"
    act(state, "KS", "9S")
    assert "done" not in state.legal_actions(1)  # 9 does not beat the king's 10
    act(state, "8S", "done")
    assert state.paks[1] == [["KS", "9S", "8S"]]


def test_the_last_drawer_finishes_the_turn_then_the_hand_ends() -> None:
    hands = {0: ["TS", "5S", "2S", "5C", "2C"], 1: ["KS", "9S", "3H", "4H", "6H"]}
    state = new(hands, ["7S", "6S", "AC"], ["QS"])
    state.stock = ["JS"]  # cut the stock to one card
    act(state, "7S", "KS", "done")
    # Seat 0 drew the last card and still plays its whole turn: a pak, then the steal choice.
    assert state.stock == [] and state.to_act() == (0,)
    act(state, "AC", "5C", "2C", "done")
    assert state.phase == "steal" and state.legal_actions(0) == [[1, 0], "end"]
    act(state, "end")
    assert after(state, "pak")[0] == {"type": "stock_out"}
    # No suit is held by both players: nothing is discarded; A-5-2♣ scores 30, K-7♠ 15.
    assert state.session.hands[0]["points"] == [30, 15]
    assert state.session.hand == 1 and state.session.dealer == 1


# -- end of the hand --------------------------------------------------------------------------


def end_with(state, paks: list[list[list[str]]]) -> None:
    """Put ``paks`` on the table and end the hand there (stock out)."""
    state.paks = [[list(p) for p in seat] for seat in paks]
    state.stock = []
    state.pending = None
    state._end_hand()


HEART = ["9H", "2H"]  # scores 15


def test_lowest_count_of_each_suit_is_discarded_by_everyone() -> None:
    # The text's example: 4, 3 and 1 heart paks; each player throws one away.
    state = GAME.new_match(3, seed=4)
    end_with(
        state,
        [
            [HEART, ["AH", "3H"], HEART, HEART, ["KS", "2S"]],
            [HEART, HEART, ["KH", "4H"]],
            [["QH", "4H"], ["5C", "3C"]],
        ],
    )
    assert state.phase == "discard" and state.to_act() == (0, 1, 2)
    assert state.discard_left == [{"H": 1}] * 3
    assert state.observation(1)["discard_left"] == [{"H": 1}] * 3
    assert state.legal_actions(0) == [[0, 0], [0, 1], [0, 2], [0, 3]]
    assert state.legal_actions(2) == [[2, 0]]
    assert state.default_action(0) in ([0, 0], [0, 2], [0, 3])  # a 15-point pak, not A-3
    state.apply({0: [0, 1], 1: [1, 2], 2: [2, 0]})  # choices are simultaneous
    scores = state.session.hands[0]["points"]
    assert scores == [15 * 3 + 15, 15 * 2, 10]
    assert state.session.totals == scores


def test_a_suit_someone_lacks_costs_nobody_anything() -> None:
    state = GAME.new_match(2, seed=4)
    end_with(state, [[HEART, HEART], [["AS", "KS"]]])
    assert state.session.hands[0]["points"] == [30, 30]
    assert state.session.hand == 1 and state.session.dealer == 1


def test_partners_pool_their_paks_and_one_partner_chooses() -> None:
    assert team_rule(4, {}) == [[0, 2], [1, 3]]
    assert team_rule(6, {}) == [[0, 2, 4], [1, 3, 5]]
    assert team_rule(3, {}) == [] and team_rule(2, {}) == []
    state = GAME.new_match(4, seed=4)
    end_with(state, [[HEART], [HEART, HEART], [["AH", "8H"]], [HEART, ["AS", "KS"]]])
    # Team 0-2 holds two heart paks, team 1-3 three: each discards two.
    assert state.discard_left == [{"H": 2}, {"H": 2}]
    assert state.to_act() == (0, 1)
    assert state.legal_actions(0) == [[0, 0], [2, 0]]
    assert state.legal_actions(1) == [[1, 0], [1, 1], [3, 0]]
    state.apply({0: [2, 0], 1: [3, 0]})
    state.apply({0: [0, 0], 1: [1, 0]})
    assert state.session.hands[0]["points"] == [0, 15 + 30]
    assert state.session.totals == [0, 45, 0, 45]


def test_first_to_the_target_wins_and_a_tie_plays_on() -> None:
    state = GAME.new_match(2, {"target": 50}, seed=4)
    end_with(state, [[["AS", "KS", "QS"]], [["AH", "KH", "QH"]]])  # 40 each
    end_with(state, [[["JS"]], [["JH"]]])  # 50 each: tied at the target, play on
    assert state.session.totals == [50, 50] and not state.is_over()
    end_with(state, [[["AS"]], [["2H"]]])
    assert state.is_over()
    result = state.result()
    assert [s["score"] for s in result["seats"]] == [70, 55]
    assert [s["rank"] for s in result["seats"]] == [1, 2]
    assert result["teams"] == []


def test_team_result_shares_score_and_rank() -> None:
    state = GAME.new_match(6, {"target": 20}, seed=4)
    end_with(state, [[["AS"]], [], [["KS"]], [["2D"]], [], []])
    assert state.is_over()
    result = state.result()
    assert [s["score"] for s in result["seats"]] == [30, 5, 30, 5, 30, 5]
    assert [s["rank"] for s in result["seats"]] == [1, 4, 1, 4, 1, 4]
    assert result["teams"] == [[0, 2, 4], [1, 3, 5]]


# -- options, players, notation ---------------------------------------------------------------


def test_player_counts_and_options() -> None:
    with pytest.raises(InvalidOptions, match="5"):
        GAME.new_match(5)
    for players in (2, 3, 4, 6):
        GAME.new_match(players)
    with pytest.raises(InvalidOptions):
        GAME.new_match(7)
    with pytest.raises(InvalidOptions):
        GAME.new_match(1)
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, {"target": 0})
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, {"target": 5001})
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, {"target": "500"})
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, {"decks": 2})
    assert GAME.new_match(2).options == {"target": 500}
    assert registry.get("paks") is GAME
    assert GAME.teams(4) == [[0, 2], [1, 3]]


def test_illegal_actions_leave_the_hand_alone() -> None:
    hands = {0: ["2C", "3C", "4C", "5C", "6C"], 1: ["2D", "3D", "4D", "5D", "6D"]}
    state = new(hands, ["KS", "KH", "8H"], ["7C", "AS", "9D"])
    before = json.dumps(state.observation(0), sort_keys=True)
    for bad in ["KH", "done", "2C", {"capture": "KS"}, ["KS"], "ks"]:
        with pytest.raises(IllegalAction) as caught:
            state.apply({0: bad})
        assert "9D" not in str(caught.value)
    assert json.dumps(state.observation(0), sort_keys=True) == before


def test_hidden_hands_and_stock_never_show() -> None:
    state = GAME.new_match(3, seed=11)
    rng = Rng(5)
    for _ in range(40):
        for viewer in (None, 0, 1, 2):
            clone = state.perturb_hidden(viewer, rng)
            assert clone.observation(viewer) == state.observation(viewer)
            assert clone.conserved() == state.conserved()
        seat = state.to_act()[0]
        state.apply({seat: state.legal_actions(seat)[0]})
    view = state.observation(1)
    assert "hand" not in state.observation(None)
    assert view["hand"] == state.hands[1]
    deals = [e for e in state.events(1) if e["type"] == "deal"]
    assert [("cards" in e) for e in deals] == [e["seat"] == 1 for e in deals]


def test_many_random_matches_conserve_cards_and_end() -> None:
    """2,000 random matches, every player count, a small target."""
    game = registry.get("paks")
    for i in range(2000):
        players = (2, 3, 4, 6)[i % 4]
        state = game.new_match(players, {"target": 1}, seed=i)
        rng = Rng(derive_seed(i, "test"))
        expected = state.conserved()
        actions = 0
        while not state.is_over():
            moves = {s: random_policy(None, state.legal_actions(s), rng) for s in state.to_act()}
            state.apply(moves)
            actions += 1
            assert actions < game.max_actions
            if i < 100:
                assert state.conserved() == expected
        assert state.conserved() == expected
        assert Counter(state.conserved()) == Counter(expected)
        state.result()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_heuristic_plays_legal_moves_at_every_player_count(players: int) -> None:
    # Full matches to the book's 500 with the heuristic in every seat.
    heuristic = GAME.policies["heuristic"]
    rng = Rng(players)
    state = GAME.new_match(players, seed=players)
    while not state.is_over():
        moves = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            moves[seat] = heuristic(state.observation(seat), legal, rng)
            assert moves[seat] in legal
        state.apply(moves)
    assert max(s["score"] for s in state.result()["seats"]) >= 500
