"""Rocket: the text's payout examples on forced deals, the death card, turn order
(dealer's left or the casino button), the shoe and its 20% reshuffle, the session.

The forced deck is the first shoe of the match, top first. Seat 0 deals the first
round; cards go one each from the dealer's left, the dealer's card last.
"""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.pairs.rocket import GAME
from games.rng import Rng, derive_seed


def new(players: int, *cards: int, **options):
    options.setdefault("rotations", 1)
    return GAME.new_match(players, options, seed=3, deck=list(cards))


def play(state, *actions: str) -> None:
    for action in actions:
        (seat,) = state.to_act()
        state.apply({seat: action})


def events_of(state, kind: str) -> list[dict]:
    return [event for event in state.events(None) if event["type"] == kind]


def first_round(state) -> dict:
    return state.session.hands[0]


def test_bets_are_simultaneous_multiples_of_ten_up_to_the_maximum() -> None:
    state = new(4, 5, 6, 7, 8)
    assert state.to_act() == (1, 2, 3), "every player but the dealer bets at once"
    assert state.legal_actions(1) == [10, 20, 30, 40, 50]
    for bad in (15, 0, 60, "10", 10.0):
        with pytest.raises(IllegalAction):
            state.apply({1: bad, 2: 10, 3: 10})
    state = new(2, 5, 6, max_bet=100)
    assert state.legal_actions(1) == list(range(10, 101, 10))
    assert new(2, 5, 6, max_bet=10).legal_actions(1) == [10]


def test_folding_pays_bet_tenths_times_the_lowest_card_of_you_and_the_dealer() -> None:
    # The text: a 20 bet, the lowest card between you and the dealer a 4: fold for 8.
    state = new(2, 6, 4)  # seat 1 shows a 6, the dealer a 4
    state.apply({1: 20})
    assert state.observation(1)["fold_costs"] == [None, 8]
    play(state, "fold")
    assert first_round(state)["deltas"] == [8, -8], "the player keeps the rest of the bet"
    # The lowest card may be the player's own.
    state = new(2, 2, 9)
    state.apply({1: 20})
    play(state, "fold")
    assert first_round(state)["deltas"] == [4, -4]


def test_a_pair_costs_its_rank_times_bet_tenths() -> None:
    # The text: a 20 bet and a pair of 8s costs 2 x 8 = 16.
    state = new(2, 8, 5, 8)
    state.apply({1: 20})
    play(state, "hit")
    hit = events_of(state, "hit")[0]
    assert hit["pair"] and hit["amount"] == 16
    assert first_round(state)["deltas"] == [16, -16]
    assert first_round(state)["end"] == "all_out", "nobody left: the dealer does not draw"
    assert not events_of(state, "dealer_hit")


def test_a_dealer_pair_pays_every_survivor() -> None:
    # The text: the dealer catches 7-7 and a 50 bet is paid 5 x 7 = 35.
    state = new(2, 2, 7, 5, 7)
    state.apply({1: 50})
    play(state, "hit")  # a 5: safe
    assert len(state.session.hands) == 1, "the dealer's pair ends the round"
    assert events_of(state, "dealer_pair")[0]["rank"] == 7
    assert first_round(state)["deltas"] == [-35, 35]


def test_death_card_on_the_dealers_first_card_pays_every_bet_three_tenths() -> None:
    state = new(4, 5, 6, 8, 3)
    state.apply({1: 10, 2: 30, 3: 50})
    death = events_of(state, "death")[0]
    assert death["paid"] == [1, 2, 3]
    assert first_round(state)["deltas"] == [-27, 3, 9, 15]
    assert not events_of(state, "hit") and not events_of(state, "fold"), "nobody acts"
    # The next round has begun with the deal passed left.
    assert state.to_act() == (0, 2, 3) and state.observation(None)["round_dealer"] == 1


def test_a_later_three_kills_the_dealer_and_pays_survivors_only() -> None:
    # Seats 1 and 2 against dealer 0: seat 1 pairs, seat 2 hits a 3 (harmless to a
    # player) and survives; then the dealer draws a 3.
    state = new(3, 4, 6, 9, 4, 3, 3)
    state.apply({1: 20, 2: 40})
    play(state, "hit")  # seat 1: the second 4, pays 2 x 4
    play(state, "hit")  # seat 2: a 3, safe
    assert events_of(state, "hit")[1] == {"type": "hit", "seat": 2, "card": 3}
    death = events_of(state, "death")[0]
    assert death["paid"] == [2]
    assert first_round(state)["deltas"] == [8 - 12, -8, 12]


def test_play_continues_from_the_first_player_until_everyone_is_out() -> None:
    state = new(3, 5, 6, 9, 1, 2, 8, 7)
    state.apply({1: 10, 2: 10})
    play(state, "hit", "fold")  # seat 1 takes a 1; seat 2 folds (lowest of 6 and 9: 6)
    assert [e["card"] for e in events_of(state, "dealer_hit")] == [2], "dealer hits after all"
    assert state.to_act() == (1,), "play resumes with the first player still in"
    assert state.legal_actions(1) == ["hit", "fold"]
    play(state, "hit")  # an 8: safe; the dealer takes the 7
    assert state.stacks[0] == [9, 2, 7] and state.to_act() == (1,)
    play(state, "fold")  # seat 1: 5-1-8 against 9-2-7, lowest 1
    assert first_round(state)["deltas"] == [6 + 1, -1, -6]


def test_the_deal_passes_left_and_play_starts_on_the_dealers_left() -> None:
    state = GAME.new_match(4, {"rotations": 2}, seed=11)
    dealers = []
    while not state.is_over():
        observation = state.observation(None)
        if observation["phase"] == "bet":
            dealers.append(observation["round_dealer"])
            bets = {seat: 10 for seat in state.to_act()}
            assert observation["round_dealer"] not in bets
            state.apply(bets)
            continue
        (seat,) = state.to_act()
        if observation["order"] and not events_of_round(state, "hit", "fold"):
            assert seat == (observation["round_dealer"] + 1) % 4
            assert observation["order"][-1] == (observation["round_dealer"] - 1) % 4
        state.apply({seat: "fold"})
    assert dealers == [0, 1, 2, 3, 0, 1, 2, 3]


def events_of_round(state, *kinds: str) -> list[dict]:
    history = state.observation(None)["history"]
    return [event for event in history if event["type"] in kinds]


def test_casino_button_starts_on_the_low_card_and_ties_go_left_of_the_last_button() -> None:
    # Round 1, dealer 0: seats 1-3 show 6, 2, 2. Seats 2 and 3 tie; seat 2 is nearest
    # the dealer's left (there is no earlier button). The dealer still acts last.
    state = new(4, 6, 2, 2, 9, 5, 4, 4, 8, button=True)
    state.apply({1: 10, 2: 10, 3: 10})
    observation = state.observation(None)
    assert observation["button"] == 2 and observation["order"] == [2, 3, 1]
    assert state.to_act() == (2,)
    play(state, "fold", "fold", "fold")
    # Round 2, dealer 1: seats 2, 3, 0 show 5, 4, 4. Seats 3 and 0 tie; seat 3 is
    # nearest the left of the last button (seat 2).
    state.apply({0: 10, 2: 10, 3: 10})
    observation = state.observation(None)
    assert observation["round_dealer"] == 1
    assert observation["stacks"] == [[4], [8], [5], [4]]
    assert observation["button"] == 3 and observation["order"] == [3, 0, 2]


def test_without_the_button_the_low_card_does_not_matter() -> None:
    state = new(4, 6, 2, 2, 9)
    state.apply({1: 10, 2: 10, 3: 10})
    assert state.observation(None)["order"] == [1, 2, 3] and state.to_act() == (1,)


def test_button_tie_is_measured_from_the_previous_button() -> None:
    rng = Rng(4)
    for _ in range(40):
        seed = rng.below(10**6)
        state = GAME.new_match(5, {"button": True, "rotations": 1}, seed=seed)
        previous = state.observation(None)["round_dealer"]
        while not state.is_over():
            observation = state.observation(None)
            if observation["phase"] == "bet":
                state.apply({seat: 10 for seat in state.to_act()})
                observation = state.observation(None)
                if observation["phase"] != "play":
                    continue
                dealer = observation["round_dealer"]
                first = {seat: stack[0] for seat, stack in enumerate(observation["stacks"])}
                players = [seat for seat in range(5) if seat != dealer]
                low = min(first[seat] for seat in players)
                walk = [(previous + step) % 5 for step in range(1, 6)]
                expected = next(s for s in walk if s != dealer and first[s] == low)
                assert observation["button"] == expected
                assert observation["order"][0] == expected and dealer not in observation["order"]
                previous = expected
                continue
            (seat,) = state.to_act()
            state.apply({seat: "fold"})


def test_the_shoe_is_reshuffled_before_a_round_once_a_fifth_or_less_is_left() -> None:
    for decks in (1, 3):
        total = 55 * decks
        state = GAME.new_match(6, {"decks": decks, "rotations": 6}, seed=decks)
        rng = Rng(decks)
        while not state.is_over():
            observation = state.observation(None)
            if observation["phase"] == "bet":
                # A round never starts on a shoe at or under 20%.
                assert observation["deck_size"] * 5 > total
            moves = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                moves[seat] = legal[rng.below(len(legal))]
            state.apply(moves)
        cuts = [e for e in state.events(None) if e["type"] == "shuffle" and e["why"] == "cut"]
        assert cuts, "long enough to reach the cut"
        for cut in cuts:
            assert cut["left"] * 5 <= total and cut["cards"] == total
        assert state.card_count() == total


def test_the_full_reshuffle_takes_back_every_card_out_of_play() -> None:
    state = GAME.new_match(2, {"rotations": 50}, seed=5)
    while not state.is_over():
        if state.observation(None)["phase"] == "bet":
            state.apply({seat: 10 for seat in state.to_act()})
            continue
        if events_of_round(state, "shuffle"):
            break
        (seat,) = state.to_act()
        state.apply({seat: "hit"})
    observation = state.observation(None)
    in_play = sum(len(stack) for stack in observation["stacks"])
    shuffle = events_of_round(state, "shuffle")[0]
    assert shuffle["cards"] == 55, "pile and discards go back together"
    assert observation["deck_size"] + observation["discards"] + in_play == 55
    assert sum(observation["unseen"]) == observation["deck_size"]


def test_running_dry_mid_round_reshuffles_only_the_discards() -> None:
    # One deck, seven seats: hit until the pile runs out within a round.
    state = GAME.new_match(7, {"rotations": 50}, seed=9)
    while not state.is_over():
        observation = state.observation(None)
        if observation["phase"] == "bet":
            state.apply({seat: 10 for seat in state.to_act()})
            continue
        if observation["deck_size"] == 0:
            discards = observation["discards"]
            in_play = sum(len(stack) for stack in observation["stacks"])
            play(state, "hit")
            shuffle = events_of_round(state, "shuffle")[-1]
            assert shuffle["cards"] == discards
            assert discards + in_play == 55
            return
        play(state, "hit")
    raise AssertionError("no round ran the pile dry")


def test_unseen_counts_are_the_draw_pile() -> None:
    state = new(3, 5, 6, 9, decks=2)
    state.apply({1: 10, 2: 10})
    counts = [0] * 10
    for card in state.shoe.cards():
        counts[card - 1] += 1
    assert state.observation(1)["unseen"] == counts
    assert sum(counts) == 110 - 3


def test_many_random_matches_conserve_chips_and_end() -> None:
    for index in range(2000):
        players = 2 + index % 6
        options = {"decks": 1 + index % 8, "button": index % 3 == 0, "max_bet": 100}
        seed = derive_seed(21, "match", index)
        state = GAME.new_match(players, options, seed=seed)
        rng = Rng(seed)
        actions = 0
        while not state.is_over():
            moves = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                moves[seat] = legal[rng.below(len(legal))]
            state.apply(moves)
            actions += 1
            assert actions <= GAME.max_actions
            assert sum(state.chips) == 0 and state.pot.chips == 0
        assert all(type(chips) is int for chips in state.chips)
        assert state.card_count() == 55 * options["decks"]
        assert len(state.session.hands) == players
        seats = state.result()["seats"]
        assert [seat["score"] for seat in seats] == state.chips
        for a in seats:
            assert a["rank"] == 1 + sum(1 for b in seats if b["score"] > a["score"])


def test_wrong_seat_and_bad_actions_change_nothing() -> None:
    state = new(3, 5, 6, 9)
    state.apply({1: 10, 2: 10})
    record = state.to_json()
    with pytest.raises(IllegalAction):
        state.apply({2: "hit"})
    for bad in ("stand", "HIT", 10, None, ["fold"]):
        with pytest.raises(IllegalAction):
            state.apply({1: bad})
    assert state.to_json() == record
    assert state.default_action(1) == "fold"


@pytest.mark.parametrize(
    "options",
    [
        {"decks": 0},
        {"decks": 9},
        {"decks": "2"},
        {"max_bet": 30},
        {"max_bet": 0},
        {"button": 1},
        {"rotations": 0},
        {"rotations": 51},
    ],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(3, options)


def test_players_two_to_seven() -> None:
    for players in (1, 8):
        with pytest.raises(InvalidOptions):
            GAME.new_match(players)


def test_heuristic_folds_cheaply_and_hits_when_safe() -> None:
    heuristic = GAME.policies["heuristic"]
    # A 1 showing: folding costs 1 tenth, a hit risks pairing a 10.
    state = new(2, 10, 1)
    state.apply({1: 10})
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == "fold"
    # A 1 against the dealer's 10: no 1 is left to pair, while the dealer may pair
    # her 10 or catch a 3: hitting costs nothing.
    state = new(2, 1, 10)
    state.apply({1: 10})
    assert heuristic(state.observation(1), state.legal_actions(1), Rng(1)) == "hit"
