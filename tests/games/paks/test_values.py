"""Paks values (games/paks/values.py): what a card or a combination captures, what a
pak is worth, and the capture of the jack of diamonds in play."""

from __future__ import annotations

import pytest

from games.paks.engine import GAME
from games.paks.values import capture_value, pak_value, points, suit_powers
from tests.support.paks_table import act, new

# -- capturing values ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "value"),
    [
        (["AD"], 20),
        (["KD"], 10),
        (["TD"], 10),
        (["9D"], 9),
        (["KD", "2D"], 12),
        (["9D", "4D"], 13),
        (["5D", "5D"], 55),
        (["5D", "4D"], 54),
        (["5D", "3D"], 53),
        (["5D", "2D"], 52),
        (["4D", "4D"], 44),
        (["4D", "3D"], 43),
        (["4D", "2D"], 42),
        (["3D", "3D"], 33),
        (["3D", "2D"], 32),
        (["2D", "2D"], 22),
        (["TS", "5S", "2S"], 62),
        # Our decision for more low cards: as many pairs as possible, best digits in the tens.
        (["5S", "4S", "3S"], 57),
        (["5S", "5S", "4S", "4S"], 108),
        (["5S", "4S", "3S", "2S"], 52 + 43),
        (["AS", "6S", "7S"], 33),
    ],
)
def test_capture_values(cards, value) -> None:
    assert capture_value(cards) == value
    assert suit_powers(cards) == {cards[0][1]: value}


def test_pak_values_count_every_card_alone() -> None:
    assert pak_value(["AC", "5C", "2C"]) == 27
    assert pak_value(["KS", "7S"]) + pak_value(["9S", "6S"]) == 32
    assert pak_value(["KS", "TS", "9S", "7S", "6S", "5S", "2S"]) == 49
    # Scoring is yet another scale: aces 20, kings to eights 10, the rest 5.
    assert points(["AS", "KS", "8S", "7S", "2S"]) == 20 + 10 + 10 + 5 + 5


def test_any_combination_worth_eleven_captures_the_jack_of_diamonds() -> None:
    hands = {
        0: ["QC", "QC", "QH", "QH", "7H"],
        1: ["AD", "KD", "9D", "4D", "2D"],
        2: ["5D", "5D", "3D", "2D", "TD"],
    }
    # The text's list: A alone (20), K-2 (12), 9-4 (13), 5-5 (55), 3-2 (32); and 3-10 (13).
    for seat, lays, value in [
        (1, ["AD"], 20),
        (1, ["KD", "2D"], 12),
        (1, ["9D", "4D"], 13),
        (2, ["5D", "5D"], 55),
        (2, ["3D", "2D"], 32),
        (2, ["3D", "TD"], 13),
    ]:
        state = new(hands, ["JD", "8C", "9C"], ["6D", "6D", "7D"])
        if seat == 2:
            act(state, "pass")  # seat 1 waits
        assert state.to_act() == (seat,)
        assert "JD" in state.legal_actions(seat)
        act(state, "JD")
        for card in lays:
            assert "done" not in state.legal_actions(seat)
            act(state, card)
        assert state.legal_actions(seat)[0] == "done", lays
        act(state, "done")
        assert sorted(state.paks[seat][0]) == sorted(["JD", *lays])
        (made,) = [e for e in state.events(None) if e["type"] == "pak"]
        assert made["value"] == value
    # The ten alone only ties the jack: not enough.
    state = new(hands, ["JD", "8C", "9C"], ["6D", "6D", "7D"])
    act(state, "pass", "JD", "TD")
    assert "done" not in state.legal_actions(2)


def test_pairs_of_a_rank_need_two_decks() -> None:
    assert GAME.new_match(2, seed=1).conserved()["cards"] == 52
    assert GAME.new_match(2, seed=1).conserved()["5S"] == 1
    for players in (3, 4, 6):
        assert GAME.new_match(players, seed=1).conserved()["cards"] == 104
        assert GAME.new_match(players, seed=1).conserved()["5S"] == 2
