"""Venture: the rule text's example game and scoring example through forced deals, and
the tricky rules (docs/rules/pairs-venture.md)."""

from __future__ import annotations

import pytest

from games import IllegalAction, InvalidOptions
from games.cards import pairs_deck
from games.pairs import venture
from games.pairs.venture import GAME, deal_points, fire, python_fire
from games.pairs.venture_policy import _counts, _fire, _points
from games.policies import hero_among_random, play_out, random_policy
from games.rng import Rng, derive_seed


def forced(slug: list[int], hands: dict[int, list[int]]) -> list[int]:
    """The deck with ``slug`` on top, then ``hands`` dealt one card at a time from
    seat 1 (seat 0 deals the first deal). Hands may be partial, all the same length."""
    players = len(hands)
    order = [(1 + i) % players for i in range(players)]
    size = len(hands[0])
    return list(slug) + [hands[seat][i] for i in range(size) for seat in order]


def steps(state) -> list[list[dict]]:
    return [e["steps"] for e in state.events(None) if e["type"] == "reveal"]


# The text's 5-player game: each seat's first two cards are its bids of rounds 1 and 2.
EXAMPLE_HANDS = {0: [2, 5], 1: [3, 5], 2: [4, 7], 3: [5, 9], 4: [6, 9]}


def test_the_five_player_example_game() -> None:
    state = GAME.new_match(5, seed=1, deck=forced([4, 5, 6, 8, 10], EXAMPLE_HANDS))
    assert state.pool == [4, 5, 6, 8, 10]
    assert state.to_act() == (0, 1, 2, 3, 4)
    state.apply({0: 2, 1: 3, 2: 4, 3: 5, 4: 6})
    # The 2 takes the 10; the 3 the 2; the 4 the 3; the 5 both 4s; the 6 both 5s.
    assert state.captured == [[10], [2], [3], [4, 4], [5, 5]]
    assert state.pool == [6, 6, 8]
    state.apply({0: 5, 1: 5, 2: 7, 3: 9, 4: 9})
    # The matched 5s misfire; the 7 takes the 5s and the 6s; the matched 9s misfire.
    assert state.captured == [[10], [2], [3, 5, 5, 6, 6], [4, 4], [5, 5]]
    assert state.pool == [7, 8, 9, 9]
    second = steps(state)[1]
    assert [(s["rank"], s["seats"], s["result"]) for s in second] == [
        (5, [0, 1], "misfire"),
        (7, [2], "fire"),
        (9, [3, 4], "misfire"),
    ]


def test_the_scoring_example() -> None:
    # Eleven cards, every 5 among them: six odd cards cost 6, the five 5s score 5.
    captured = [5, 5, 5, 5, 5, 2, 3, 7, 8, 9, 10]
    assert deal_points([captured, []], [1, 4]) == [-1, 0]


def test_pool_cards_complete_the_set_of_whoever_holds_the_rest() -> None:
    # Eight 9s captured and the last 9 left in the pool: 9 points.
    assert deal_points([[9] * 8], [9]) == [9]
    # The last 9 captured by someone else: both pay for their 9s.
    assert deal_points([[9] * 8, [9]], []) == [-8, -1]
    # The lone 1 is a full set by itself.
    assert deal_points([[1, 2]], []) == [1 - 1]


# An 8-player deal built so that seat 0 ends with the text's scoring example: eleven
# cards, every 5 among them. Each seat's hand lists its bids round by round.
SCORING_SLUG = [5, 5, 5, 4, 3, 3, 9]
SCORING_HANDS = {
    0: [6, 10, 6, 7, 8, 9],
    1: [2, 1, 6, 7, 8, 9],
    2: [10, 2, 6, 7, 8, 9],
    3: [10, 3, 6, 8, 9, 10],
    4: [5, 4, 6, 8, 9, 10],
    5: [5, 7, 7, 8, 9, 10],
    6: [4, 10, 7, 8, 9, 10],
    7: [4, 10, 7, 8, 9, 10],
}


def test_the_scoring_example_played_out() -> None:
    deck = forced(SCORING_SLUG, SCORING_HANDS)
    assert sorted(deck) == pairs_deck()  # the whole deck, forced
    state = GAME.new_match(8, {"deals": 1}, seed=2, deck=deck)
    bids = [{seat: SCORING_HANDS[seat][r] for seat in range(8)} for r in range(6)]
    state.apply(bids[0])
    # The 2 is alone and lowest: it takes the highest rank, the two 10s bid, which never
    # fire. The 4s and 5s misfire. Seat 0's 6 takes everything below it.
    assert [(s["rank"], s["result"]) for s in steps(state)[0]] == [
        (2, "fire"),
        (4, "misfire"),
        (5, "misfire"),
        (6, "fire"),
        (10, "captured"),
    ]
    assert state.captured[1] == [10, 10]
    assert state.captured[0] == [2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 5]
    assert state.pool == [6, 9]
    state.apply(bids[1])
    # The last 2, 3 and 4 go to other players; seat 0's 10 goes to the 1.
    assert state.captured[1] == [10, 10, 10, 10, 10]
    assert state.captured[2:6] == [[1], [2], [3], [4, 6]]
    for move in bids[2:]:
        state.apply(move)  # seat 0 is matched every round and takes nothing more
    assert state.is_over()
    assert len(state.captured[0]) == 11
    # Six odd cards at -1, the five 5s at +1: -1.
    assert state.result()["seats"][0]["score"] == -1
    assert deal_points(state.captured, state.pool) == [
        seat["score"] for seat in state.result()["seats"]
    ]


def test_the_lowest_bid_takes_the_highest_bids_which_never_fire() -> None:
    captured, pool, done = fire([1, 2], [3, 6, 9])
    assert captured == [[9], [1, 2, 3], []]
    assert pool == [6]
    assert [s["result"] for s in done] == ["fire", "fire", "captured"]


def test_a_matched_lowest_rank_misfires_and_the_next_bid_captures_down() -> None:
    captured, pool, _ = fire([10], [2, 2, 5])
    assert captured == [[], [], [2, 2]]
    assert pool == [5, 10]


# The book's table: players -> (slug, hand); the rest of the deck divides evenly.
BOOK_SLUGS = {3: (4, 17), 4: (3, 13), 5: (5, 10), 6: (7, 8), 7: (6, 7), 8: (7, 6)}


@pytest.mark.parametrize("players", range(3, 9))
def test_slug_sizes_and_even_hands(players: int) -> None:
    slug, hand = BOOK_SLUGS[players]
    assert slug + players * hand == 55
    state = GAME.new_match(players, seed=players)
    assert len(state.pool) == slug and state.rounds == hand
    assert [len(cards) for cards in state.hands] == [hand] * players


def test_bids_are_secret_until_everyone_has_bid() -> None:
    state = GAME.new_match(4, seed=3)
    before = state.observation(1)
    bids = {s: state.legal_actions(s)[-1] for s in range(4)}
    hands = [list(hand) for hand in state.hands]
    with pytest.raises(IllegalAction):
        state.apply({0: bids[0], 1: bids[1], 2: bids[2]})
    # Three bids in, one missing: nothing moved and nothing was shown.
    assert state.observation(1) == before and state.hands == hands
    state.apply(bids)
    reveal = [e for e in state.events(1) if e["type"] == "reveal"]
    assert reveal[0]["bids"] == [bids[s] for s in range(4)]


def test_drafting_keeps_three_and_passes_left_until_none_are_left() -> None:
    # 5 players hold 10 cards: keep 3 of 10, 3 of 7, 3 of 4, then the last card.
    hands = {
        0: [1, 2, 2, 3, 3, 3, 4, 4, 4, 4],
        1: [5, 5, 5, 5, 5, 6, 6, 6, 6, 6],
        2: [6, 7, 7, 7, 7, 7, 7, 7, 8, 8],
        3: [8, 8, 8, 8, 8, 8, 9, 9, 9, 9],
        4: [9, 9, 9, 9, 9, 10, 10, 10, 10, 10],
    }
    slug = [10, 10, 10, 10, 10]
    state = GAME.new_match(5, {"drafting": True}, seed=4, deck=forced(slug, hands))
    assert state.phase == "draft" and state.pool == []
    assert state.observation(0)["slug_size"] == 5
    assert state.observation(0)["packet"] == hands[0]
    for keep in range(3):
        assert state.observation(0)["keeps_left"] == 3 - keep
        state.apply({s: state.legal_actions(s)[0] for s in range(5)})
    assert state.observation(0)["cards"] == [1, 2, 2]
    # Seat 0's packet went to seat 1; seat 0 now holds seat 4's remainder.
    assert state.observation(1)["packet"] == [3, 3, 3, 4, 4, 4, 4]
    assert state.observation(0)["packet"] == [9, 9, 10, 10, 10, 10, 10]
    for _ in range(6):
        state.apply({s: state.legal_actions(s)[-1] for s in range(5)})
    # Each packet is down to one card: kept without a choice, and the slug turns up.
    assert state.phase == "bid" and state.pool == slug
    assert all(len(hand) == 10 for hand in state.hands)
    assert state.conserved() == {"cards": 55}


def test_drafting_with_eight_players_keeps_the_last_three_whole() -> None:
    state = GAME.new_match(8, {"drafting": True}, seed=5)
    for _ in range(3):
        state.apply({s: state.legal_actions(s)[0] for s in range(8)})
    assert state.phase == "bid"
    assert all(len(hand) == 6 for hand in state.hands)


def test_talk_is_public_and_binds_nobody() -> None:
    state = GAME.new_match(3, {"talk": True}, seed=6)
    assert state.phase == "talk" and state.legal_actions(0) == ["quiet", *range(1, 11)]
    state.apply({0: 10, 1: "quiet", 2: 1})
    assert state.observation(1)["claims"] == [10, "quiet", 1]
    assert state.phase == "bid"
    # Seat 0 claimed a 10 and bids whatever it likes.
    state.apply({s: state.legal_actions(s)[0] for s in range(3)})
    assert state.phase == "talk" and state.round == 2


def test_several_deals_add_up_and_the_deal_moves_left() -> None:
    state = GAME.new_match(4, {"deals": 3}, seed=8)
    rng = Rng(8)
    dealers = []
    while not state.is_over():
        if not dealers or dealers[-1][0] != state.session.hand:
            dealers.append((state.session.hand, state.session.dealer))
        state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
    assert [d for _, d in dealers] == [0, 1, 2]
    deltas = [h["deltas"] for h in state.session.hands]
    totals = [sum(d[s] for d in deltas) for s in range(4)]
    assert [seat["score"] for seat in state.result()["seats"]] == totals


@pytest.mark.parametrize("players", range(3, 9))
def test_a_default_match_is_one_deal_per_player_each_seat_dealing_once(players: int) -> None:
    state = GAME.new_match(players, seed=players)
    assert state.observation(0)["deals"] == players
    rng = Rng(players)
    dealers = []
    while not state.is_over():
        if state.round == 1 and state.session.dealer not in dealers:
            dealers.append(state.session.dealer)
        state.apply({s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()})
    assert dealers == list(range(players))
    assert len(state.session.hands) == players


def test_deals_zero_is_the_default_and_an_explicit_count_overrides_it() -> None:
    assert GAME.options["deals"].default == 0
    assert GAME.new_match(6, {"deals": 0}, seed=1).total_deals == 6
    assert GAME.new_match(6, {"deals": 2}, seed=1).total_deals == 2


def test_cards_are_conserved_and_every_match_ends() -> None:
    for i in range(2000):
        players = 3 + i % 6
        options = {"drafting": i % 3 == 1, "talk": i % 5 == 2}
        state = GAME.new_match(players, options, seed=i)
        rng = Rng(derive_seed(i, "venture-test"))
        actions = 0
        while not state.is_over():
            moves = {s: random_policy({}, state.legal_actions(s), rng) for s in state.to_act()}
            state.apply(moves)
            actions += 1
            assert actions <= GAME.max_actions
            assert state.conserved() == {"cards": 55}
        assert sum(len(c) for c in state.captured) + len(state.pool) == 55


@pytest.mark.parametrize(
    "options",
    [{"drafting": 1}, {"talk": "yes"}, {"deals": -1}, {"deals": 21}, {"long_game": True}],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_match(5, options)


def test_heuristic_leads_the_top_card_where_the_lowest_bid_will_take_it() -> None:
    # Pool 2-3-4-5 and a full 17-card hand. A lone 10 would sweep the pool, but it only
    # fires when the lowest bid is matched: mostly the lowest bid takes it first, and it
    # is the cheapest card here (about half a card against random bids, others cost more).
    hands = {0: [1, 10], 1: [8, 8], 2: [8, 8]}
    state = GAME.new_match(3, seed=9, deck=forced([2, 3, 4, 5], hands))
    heuristic = GAME.policies["heuristic"]
    assert heuristic(state.observation(0), state.legal_actions(0), Rng(1)) == 10


def test_the_heuristic_playouts_fire_as_the_engine_does() -> None:
    rng = Rng(11)
    for _ in range(3000):
        players = 3 + rng.below(6)
        pool = [1 + rng.below(10) for _ in range(rng.below(8))]
        bids = [1 + rng.below(10) for _ in range(players)]
        captured, after, _ = fire(pool, bids)
        table = _counts(pool)
        caps = [[0] * 11 for _ in bids]
        _fire(table, bids, caps)
        assert table == _counts(after)
        assert caps == [_counts(cards) for cards in captured]
        assert [_points(row, table) for row in caps] == deal_points(captured, after)


@pytest.mark.skipif(venture._compiled_fire is None, reason="no compiled fire here")
def test_the_compiled_fire_resolves_every_round_as_the_python_one() -> None:
    compiled = venture._compiled_fire
    rng = Rng(12)
    for _ in range(5000):
        players = 1 + rng.below(9)
        pool = sorted(1 + rng.below(10) for _ in range(rng.below(12)))
        bids = [1 + rng.below(10) for _ in range(players)]
        if rng.below(4) == 0:
            bids = [bids[0]] * players  # everyone matched
        captured, after, steps = compiled(pool, bids)
        assert (captured, after, steps) == python_fire(pool, bids)
        assert [list(step) for step in steps] == [list(step) for step in python_fire(pool, bids)[2]]
        # The seats that capture nothing share one empty list; a fired step's cards are
        # that seat's captures.
        assert len({id(cards) for cards in captured if not cards}) <= 1
        for step in steps:
            if step["result"] == "fire":
                assert step["cards"] is captured[step["seats"][0]]
    # Other cards (none a game deals) are left to the Python fire.
    for pool, bids in (([0], [3]), ([3], [11]), ([3], [2.0]), ([3], [True]), ([], [])):
        assert compiled(pool, bids) is None
    assert compiled((3,), [4]) is None
    assert fire([2.0, 5], [3, 5]) == python_fire([2.0, 5], [3, 5])


def test_the_python_fire_when_told() -> None:
    import os
    import subprocess
    import sys

    code = "import games.pairs.venture as v; print(v._compiled_fire is None)"
    env = dict(os.environ, ARENA_PYTHON_VENTURE="1")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.stdout.strip() == "True"


@pytest.mark.parametrize("options", [{"deals": 1}, {"deals": 1, "drafting": True}])
def test_heuristic_finishes_first_more_often_than_chance(options: dict) -> None:
    # One heuristic seat among five random ones, 60 seeded one-deal matches (chance: 1 in 6).
    heuristic = GAME.policies["heuristic"]
    wins = 0
    for i in range(60):
        hero = i % 6
        state = GAME.new_match(6, options, seed=i)
        rng = Rng(derive_seed(i, "venture-heuristic-test"))
        play_out(state, hero_among_random(heuristic, hero, 6), rng)
        wins += state.result()["seats"][hero]["rank"] == 1
    assert wins >= 15, wins
