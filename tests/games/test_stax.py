"""Stax: the scoring conditions of the rule text replayed on forced decks, the
completed stack, chained plays, drawing back up, and both ways a game ends.

A forced deck reads: the five stack cards (stacks 0-4), then seat 0's five
cards, seat 1's five, ..., then the cards drawn in play. The first player is
drawn from the seed; ``seed_starting`` finds a seed where a given seat starts.
"""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.cards import standard_deck
from games.rng import Rng, derive_seed
from games.stax import GAME, chains, completion_points, match_points


def seed_starting(seat: int, players: int) -> int:
    return next(s for s in range(100) if Rng(derive_seed(s, "hand", 0)).below(players) == seat)


def new(stacks: list[str], hands: list[list[str]], draws: list[str] = (), **options):
    players = len(hands)
    deck = [*stacks, *(card for hand in hands for card in hand), *draws]
    return GAME.new_match(players, options, seed=seed_starting(0, players), deck=deck)


def act(state, action) -> None:
    (seat,) = state.to_act()
    state.apply({seat: action})


def last_play(state) -> dict:
    return next(e for e in reversed(state.events(None)) if e["type"] == "play")


STACKS = ["KS", "9H", "5D", "AC", "7C"]
HANDS = [["QS", "JS", "TS", "9S", "2H"], ["7H", "7D", "6H", "8C", "3D"]]


def test_setup_deals_five_stacks_and_five_secret_cards_each() -> None:
    state = new(STACKS, HANDS, ["4C"])
    assert state.to_act() == (0,)
    view = state.observation(0)
    assert view["stacks"] == [[card] for card in STACKS]
    assert sorted(view["hand"]) == sorted(HANDS[0])
    assert view["hand_sizes"] == [5, 5]
    assert view["deck"] == 52 - 5 - 10
    assert "hand" not in state.observation(None)
    # Seat 1 sees its own cards only, in the observation and in the log.
    assert sorted(state.observation(1)["hand"]) == sorted(HANDS[1])
    deals = [e for e in state.events(1) if e["type"] == "deal"]
    assert [sorted(e.get("cards", [])) for e in deals] == [[], sorted(HANDS[1])]
    # The first play of a turn is compulsory: no "end" yet.
    assert "end" not in state.legal_actions(0)
    assert len(state.legal_actions(0)) == 5 * 5


@pytest.mark.parametrize(
    ("card", "top", "points"),
    [
        ("7H", "7S", 3),  # same number: three, nothing else counts
        ("7C", "7S", 3),
        ("9H", "5D", 1),  # same colour, higher
        ("9H", "5H", 2),  # same colour and suit, higher
        ("3S", "9H", 1),  # lower only
        ("8S", "9H", 2),  # lower, exactly one lower
        ("7D", "9H", 2),  # same colour, lower by two
        ("8H", "9H", 4),  # colour, suit, lower, one lower: four beats a same number
        ("9C", "9H", 3),
        ("AH", "2S", 2),  # ace is 1: one lower than a two
        ("KD", "AS", 0),  # king is 13: higher than an ace, other colour
        ("AS", "KH", 1),  # the ace is lower than the king, but not one lower
        ("QS", "KS", 4),  # queen 12 under king 13
        ("JC", "QS", 3),  # jack 11 under queen 12, both black
        ("TD", "JH", 3),
    ],
)
def test_match_points(card: str, top: str, points: int) -> None:
    assert match_points(card, top) == points


def test_plays_score_against_the_top_card_of_the_chosen_stack() -> None:
    state = new(STACKS, HANDS, ["4C"])
    act(state, ["2H", 1])  # 2H on 9H: colour, suit, lower
    deal = next(e for e in state.events(0) if e["type"] == "deal" and e["seat"] == 0)
    assert sorted(deal["cards"]) == sorted(HANDS[0]), "the log keeps the hand as dealt"
    assert last_play(state) == {"type": "play", "seat": 0, "card": "2H", "stack": 1, "points": 3}
    assert state.observation(0)["stacks"][1] == ["9H", "2H"]
    act(state, "end")
    act(state, ["7D", 4])  # 7D on 7C: same number
    assert state.observation(None)["points"] == [3, 3]


def test_chained_plays_and_a_completed_stack() -> None:
    state = new(STACKS, HANDS, ["4C", "5H", "6S", "8D", "9D"])
    act(state, ["QS", 0])  # on KS: colour, suit, lower, one lower
    # Next: the same number, or the same suit one lower; and ending is allowed.
    legal = state.legal_actions(0)
    assert "end" in legal
    assert {card for card, _ in (a for a in legal if a != "end")} == {"JS"}
    act(state, ["JS", 0])
    act(state, ["TS", 0])
    assert state.observation(0)["stacks"][0] == ["KS", "QS", "JS", "TS"]
    assert state.observation(0)["points"] == [12, 0]
    act(state, ["9S", 0])  # the fifth card: 4 for the match, 3 for the suit match
    event = last_play(state)
    assert event["points"] == 4 and event["completed"] == 3
    view = state.observation(0)
    assert view["points"] == [19, 0]
    assert view["discards"] == ["KS", "QS", "JS", "TS", "9S"]
    # A new stack from the top of the deck, in the same place.
    assert view["stacks"][0] == ["4C"] and event["new_stack"] == "4C"
    # 2H does not follow 9S: only ending the turn is left.
    assert state.legal_actions(0) == ["end"]
    act(state, "end")
    assert sorted(state.observation(0)["hand"]) == sorted(["2H", "5H", "6S", "8D", "9D"])
    assert state.observation(0)["deck"] == 52 - 5 - 10 - 5
    drew = next(e for e in reversed(state.events(None)) if e["type"] == "end")
    assert drew == {"type": "end", "seat": 0, "drew": 4}
    assert "cards" not in drew  # the cards drawn stay secret from others


def test_completing_without_a_number_or_suit_match_scores_one() -> None:
    assert completion_points("2H", "TS") == 1
    assert completion_points("2S", "TS") == 3
    assert completion_points("TH", "TS") == 3
    # The text: three points for matching the number or suit of the covered
    # card, even when the match scored by colour only.
    assert completion_points("3C", "9S") == 1


def test_a_fifth_card_matching_neither_number_nor_suit_scores_the_one_point_bonus() -> None:
    hands = [["4H", "4D", "2D", "KC", "QC"], ["4C", "8S", "8C", "TD", "JD"]]
    state = new(STACKS, hands, ["5S", "6S", "3H", "JH"])
    act(state, ["4H", 1])  # on 9H: colour, suit, lower
    act(state, ["4D", 1])  # same number
    act(state, "end")  # seat 0 draws 5S and 6S
    act(state, ["4C", 1])  # same number
    act(state, "end")  # seat 1 draws 3H
    assert state.observation(None)["points"] == [6, 3]
    act(state, ["2D", 1])  # on 4C: lower only (other colour, other suit, two lower)
    event = last_play(state)
    assert event["points"] == 1 and event["completed"] == 1
    assert event["new_stack"] == "JH"
    view = state.observation(None)
    assert view["points"] == [8, 3]
    assert view["discards"] == ["9H", "4H", "4D", "4C", "2D"]
    assert view["stacks"][1] == ["JH"]


@pytest.mark.parametrize(
    ("card", "last", "ok"),
    [
        ("7D", "7H", True),  # same number, any suit
        ("6H", "7H", True),  # same suit, one lower
        ("6D", "7H", False),  # one lower, other suit
        ("8H", "7H", False),  # one higher
        ("5H", "7H", False),  # two lower
        ("KH", "AH", False),  # no wrap from ace to king
        ("AC", "2C", True),
    ],
)
def test_chain_rule(card: str, last: str, ok: bool) -> None:
    assert chains(card, last) is ok


def test_a_chain_may_go_on_any_stack_and_follows_the_last_card_played() -> None:
    state = new(STACKS, [["7H", "7D", "6H", "6D", "2C"], HANDS[0]], ["4C"])
    act(state, ["7H", 0])
    plays = [a for a in state.legal_actions(0) if a != "end"]
    assert sorted(map(tuple, plays)) == sorted((c, i) for c in ("6H", "7D") for i in range(5))
    with pytest.raises(IllegalAction):
        act(state, ["2C", 0])
    act(state, ["7D", 3])  # 7D on AC: higher, other colour
    assert last_play(state)["points"] == 0
    # The 7D is now the card to follow: the 6D, no longer the 6H.
    plays = [a for a in state.legal_actions(0) if a != "end"]
    assert {card for card, _ in plays} == {"6D"}


def test_playing_the_last_card_with_cards_left_in_the_deck_does_not_end_the_game() -> None:
    hands = [["4H", "4D", "4S", "4C", "3C"], ["2H", "3H", "5H", "8H", "6S"]]
    state = new(STACKS, hands, ["5C", "6D", "8D", "9C", "TC", "JC"])
    # The fourth 4 completes the 9H stack; the 3C follows the 4C onto another.
    for action in (["4H", 1], ["4D", 1], ["4S", 1], ["4C", 1], ["3C", 2]):
        act(state, action)
    assert state.observation(0)["hand"] == []
    assert not state.is_over()
    assert state.legal_actions(0) == ["end"]
    act(state, "end")
    assert len(state.observation(0)["hand"]) == 5


def _play_until(seed: int, players: int, stop) -> object:
    """A random match with seed ``seed``, stopped before the first state where ``stop`` holds."""
    state = GAME.new_match(players, seed=seed)
    rng = Rng(seed)
    while not state.is_over():
        if stop(state):
            return state
        (seat,) = state.to_act()
        legal = state.legal_actions(seat)
        state.apply({seat: legal[rng.below(len(legal))]})
    return None


def test_going_out_with_the_deck_empty_scores_five_and_ends_the_game() -> None:
    def last_card(state) -> bool:
        seat = state.to_act()[0]
        can_play = state.legal_actions(seat)[0] != "end"
        return state.observation(seat)["deck"] == 0 and len(state.hands[seat]) == 1 and can_play

    state = next(s for s in (_play_until(seed, 2, last_card) for seed in range(200)) if s)
    (seat,) = state.to_act()
    before = state.observation(None)["points"][seat]
    action = state.legal_actions(seat)[0]
    gained = match_points(action[0], state.stacks[action[1]][-1])
    if len(state.stacks[action[1]]) == 4:
        gained += completion_points(action[0], state.stacks[action[1]][-1])
    state.apply({seat: action})
    assert state.is_over()
    assert state.result()["seats"][seat]["score"] == before + gained + 5
    assert state.events(None)[-2] == {"type": "out", "seat": seat, "points": 5}


def test_a_stack_completed_with_the_deck_empty_is_not_replaced() -> None:
    def closing(state) -> bool:
        seat = state.to_act()[0]
        view = state.observation(seat)
        full = [i for i, stack in enumerate(view["stacks"]) if len(stack) == 4]
        return view["deck"] == 0 and len(view["stacks"]) > 1 and bool(full) and not view["played"]

    state = next(s for s in (_play_until(seed, 3, closing) for seed in range(200)) if s)
    (seat,) = state.to_act()
    stacks = state.observation(seat)["stacks"]
    index = next(i for i, stack in enumerate(stacks) if len(stack) == 4)
    card = state.hands[seat][0]
    state.apply({seat: [card, index]})
    event = last_play(state)
    assert event["removed"] is True and "new_stack" not in event
    rest = [stack for i, stack in enumerate(stacks) if i != index]
    if not state.is_over():
        assert state.observation(None)["stacks"] == rest


def test_the_game_ends_when_no_stack_is_left() -> None:
    # Find a finished match that ran out of stacks rather than a player's cards.
    for seed in range(200):
        state = GAME.new_match(4, seed=seed)
        rng = Rng(seed)
        while not state.is_over():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            state.apply({seat: legal[rng.below(len(legal))]})
        events = state.events(None)
        if events[-2]["type"] == "no_stacks":
            break
    else:
        pytest.fail("no match ran out of stacks")
    assert events[-3]["type"] == "play" and events[-3]["removed"] is True
    assert state.observation(None)["stacks"] == []
    assert state.observation(None)["deck"] == 0
    assert all(e["type"] != "out" for e in events)
    assert any(state.hands), "someone still held cards but could not play them"


def test_match_of_several_games_adds_the_points() -> None:
    state = GAME.new_match(3, {"games": 3}, seed=9)
    rng = Rng(1)
    while not state.is_over():
        (seat,) = state.to_act()
        legal = state.legal_actions(seat)
        state.apply({seat: legal[rng.below(len(legal))]})
    games = [e for e in state.events(None) if e["type"] == "game_over"]
    assert len(games) == 3
    totals = [sum(game["points"][seat] for game in games) for seat in range(3)]
    assert [seat["score"] for seat in state.result()["seats"]] == totals
    firsts = [e["first"] for e in state.events(None) if e["type"] == "game"]
    expected = [Rng(derive_seed(9, "hand", i)).below(3) for i in range(3)]
    assert firsts == expected


@pytest.mark.parametrize("options", [{"games": 0}, {"games": 21}, {"games": "2"}, {"rounds": 2}])
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(2, options)


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players: int) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(players)


def test_a_forced_deck_with_foreign_cards_is_refused() -> None:
    with pytest.raises(ValueError):
        GAME.new_match(2, deck=["1S"])


def test_many_random_matches_conserve_cards_and_end() -> None:
    deck = sorted(standard_deck())
    for seed in range(2000):
        players = 2 + seed % 3
        state = GAME.new_match(players, seed=seed)
        rng = Rng(derive_seed(seed, "test"))
        actions = 0
        while not state.is_over():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            state.apply({seat: legal[rng.below(len(legal))]})
            actions += 1
            assert actions <= 200
        cards = [*state.deck.cards(), *state.discards]
        cards += [c for hand in state.hands for c in hand]
        cards += [c for stack in state.stacks for c in stack]
        assert sorted(cards) == deck
        assert state.conserved() == {"cards": 52}


def test_heuristic_beats_random() -> None:
    heuristic, random = GAME.policies["heuristic"], GAME.policies["random"]
    wins = 0
    matches = 300
    for seed in range(matches):
        state = GAME.new_match(2, seed=seed)
        rng = Rng(seed)
        hero = seed % 2
        while not state.is_over():
            (seat,) = state.to_act()
            policy = heuristic if seat == hero else random
            state.apply({seat: policy(state.observation(seat), state.legal_actions(seat), rng)})
        wins += state.result()["seats"][hero]["rank"] == 1
    assert wins / matches > 0.7


def test_perturbation_moves_hidden_cards_only() -> None:
    state = new(STACKS, HANDS, ["4C"])
    act(state, ["QS", 0])
    moved = False
    for i in range(20):
        other = state.perturb_hidden(1, Rng(i))
        assert other.observation(1) == state.observation(1)
        assert other.stacks == state.stacks and other.hands[1] == state.hands[1]
        assert sorted(other.hands[0] + other.deck.cards()) == sorted(
            state.hands[0] + state.deck.cards()
        )
        moved = moved or other.hands[0] != state.hands[0]
    assert moved
