"""The fixed action space of every game, per (players, options), derived from the rules.

``catalogue(slug, players, options)`` lists every JSON value the engine's
``legal_actions`` can ever return for that configuration, in a fixed order; an
action's index in that list is its integer in PettingZoo and OpenSpiel. Each
list is built from the game's cards and the shape of its moves (not from
watching play); the tests play random matches and assert that no legal action
ever falls outside it. The reasoning per game is in the comments below and in
docs/training.md.

Pure standard library (the zip bots ship ``games/adapters/codec.py``, which
holds the index; this module only builds the lists).
"""

from __future__ import annotations

from collections.abc import Callable

from games import registry

# Pairs cards: one 1, two 2s ... ten 10s.
PAIRS_RANKS = list(range(1, 11))
PAIRS_COPIES = {rank: rank for rank in PAIRS_RANKS}
RANKS = "A23456789TJQK"
SUITS = "CDHS"
STANDARD_CARDS = [rank + suit for rank in RANKS for suit in SUITS]


def multisets(
    values: list[int], low: int, high: int, caps: dict[int, int] | None = None
) -> list[list[int]]:
    """Every sorted multiset of ``values`` with ``low`` to ``high`` cards, ``caps[v]``
    copies of ``v`` at most; shortest first, then in sorted order."""
    out: list[list[int]] = []

    def extend(prefix: list[int], start: int, size: int) -> None:
        if len(prefix) == size:
            out.append(list(prefix))
            return
        for i in range(start, len(values)):
            value = values[i]
            if caps is not None and prefix.count(value) >= caps[value]:
                continue
            prefix.append(value)
            extend(prefix, i, size)
            prefix.pop()

    for size in range(low, high + 1):
        extend([], 0, size)
    return out


def sequences(values: list[int], length: int, caps: dict[int, int]) -> list[list[int]]:
    """Every ordered sequence of ``length`` values with at most ``caps[v]`` copies of ``v``."""
    out: list[list[int]] = []
    used = dict.fromkeys(values, 0)
    prefix: list[int] = []

    def extend() -> None:
        if len(prefix) == length:
            out.append(list(prefix))
            return
        for value in values:
            if used[value] < caps[value]:
                used[value] += 1
                prefix.append(value)
                extend()
                prefix.pop()
                used[value] -= 1

    extend()
    return out


# -- one function per game: (players, resolved options) -> every action ----------------


def _pairs(players: int, options: dict) -> list:
    # "hit"; "eights" with Pieces of Eight; a plain "fold" (lowest card in play), or in
    # Continuous Pairs "fold:<seat>:<card>" naming any seat's stack and any rank.
    out: list = ["hit"]
    if options["pieces_of_eight"]:
        out.append("eights")
    if options["continuous"]:
        out += [f"fold:{seat}:{card}" for seat in range(players) for card in PAIRS_RANKS]
    else:
        out.append("fold")
    return out


def _blackstone(players: int, options: dict) -> list:
    # Take 1 to (cards left in the 55-card shoe) cards, or fold.
    return [*range(1, 56), "fold"]


def _five_cards(players: int, options: dict) -> list:
    # Place the drawn card on a target column, named by the target card's rank.
    return list(PAIRS_RANKS)


def _cards_or_fold(players: int, options: dict) -> list:
    # Goblin Poker: pitch a card of your hand (a rank), or fold.
    return [*PAIRS_RANKS, "fold"]


def _hawthorn(players: int, options: dict) -> list:
    # Deck rounds: hit or fold; hand rounds and the start: play a rank of your hand, or fold.
    return ["hit", "fold", *PAIRS_RANKS]


def _kitty(players: int, options: dict) -> list:
    # Pass, bid and choose name a rank; a gift names a rank and a receiving seat.
    return [*PAIRS_RANKS, *({"card": c, "to": s} for c in PAIRS_RANKS for s in range(players))]


def _monster(players: int, options: dict) -> list:
    # Discard 0 to 3 cards (a sorted list; of each rank held c times, c - 1 or c), or fold.
    return [*multisets(PAIRS_RANKS, 0, 3, PAIRS_COPIES), "fold"]


def _hit_lock(players: int, options: dict) -> list:
    return ["hit", "lock"]


def _draw_lock(players: int, options: dict) -> list:
    return ["draw", "lock"]


def _regent(players: int, options: dict) -> list:
    # ["draw"], ["attack", seat], ["gift", seat, rank], ["see", seat], ["fold"].
    seats = range(players)
    return [
        ["draw"],
        *(["attack", t] for t in seats),
        *(["gift", t, c] for t in seats for c in PAIRS_RANKS),
        *(["see", t] for t in seats),
        ["fold"],
    ]


def _rocket(players: int, options: dict) -> list:
    # Bets of 10 up to max_bet in tens, then hit or fold.
    return [*range(10, options["max_bet"] + 1, 10), "hit", "fold"]


def _sweep(players: int, options: dict) -> list:
    # Play a rank of your hand; pick a rank among tied targets.
    return list(PAIRS_RANKS)


def _troll_guts(players: int, options: dict) -> list:
    # Arrange: an order (top first) of the five face-down cards, any five Pairs cards;
    # then ["draw"], ["steal", seat], ["buy"].
    return [
        *sequences(PAIRS_RANKS, 5, PAIRS_COPIES),
        ["draw"],
        *(["steal", t] for t in range(players)),
        ["buy"],
    ]


def _venture(players: int, options: dict) -> list:
    # Talk (with the talk option): "quiet" or claim a rank; bids and draft picks: a rank.
    return (["quiet"] if options["talk"] else []) + list(PAIRS_RANKS)


def _paiute(players: int, options: dict) -> list:
    # Draw from "stock" or "pile"; ["discard", card]; ["call", card] (discard and go out
    # with five); ["call"] (go out with six). One 52-card deck.
    return [
        "stock",
        "pile",
        *(["discard", c] for c in STANDARD_CARDS),
        *(["call", c] for c in STANDARD_CARDS),
        ["call"],
    ]


def _paks(players: int, options: dict) -> list:
    # A board card or a hand card to lay (one string each: the same card strings), "pass",
    # "end", "done"; [victim, pak index] to steal and [owner, pak index] to discard; a pak
    # index alone to add a pak to a steal. A pak holds at least two cards, so a seat owns
    # at most (cards in play) / 2 paks: 52 / 2 with one deck (2 players), 104 / 2 with two.
    most_paks = (52 if players == 2 else 104) // 2
    indexes = range(most_paks)
    return [
        *STANDARD_CARDS,
        "pass",
        "end",
        "done",
        *indexes,
        *([seat, i] for seat in range(players) for i in indexes),
    ]


def _punk(players: int, options: dict) -> list:
    # Tricks: a card (rank 1..R) or a die (1..sides). Keeping: a sorted multiset of what is
    # left after the round's tricks; at most hand - tricks cards (round_plan), each rank
    # at most ``table`` copies with cards (dice are unlimited).
    from games.punk.rules import rank_count, round_plan, table_size

    table = table_size(players)
    sides = options["dice"]
    values = list(range(1, (sides or rank_count(table)) + 1))
    caps = None if sides else dict.fromkeys(values, table)
    most_kept = max(step["hand_size"] - step["tricks"] for step in round_plan(table))
    return [*values, *multisets(values, 0, most_kept, caps)]


def _stax(players: int, options: dict) -> list:
    # [card, stack index] for five stacks (stacks only go away), or "end".
    from games.stax import STACKS

    return [*([card, i] for card in STANDARD_CARDS for i in range(STACKS)), "end"]


CATALOGUES: dict[str, Callable[[int, dict], list]] = {
    "pairs": _pairs,
    "pairs-blackstone": _blackstone,
    "pairs-five-cards": _five_cards,
    "pairs-goblin-poker": _cards_or_fold,
    "pairs-hawthorn": _hawthorn,
    "pairs-kitty": _kitty,
    "pairs-monster": _monster,
    "pairs-port": _hit_lock,
    "pairs-regent": _regent,
    "pairs-rocket": _rocket,
    "pairs-starboard": _draw_lock,
    "pairs-sweep": _sweep,
    "pairs-troll-guts": _troll_guts,
    "pairs-venture": _venture,
    "paiute": _paiute,
    "paks": _paks,
    "punk": _punk,
    "stax": _stax,
}


def catalogue(slug: str, players: int, options: dict | None = None) -> list:
    """Every action the engine can offer in this configuration, in the adapter's order."""
    game = registry.get(slug)
    game.check_players(players)
    resolved = game.resolve_options(options)
    game.state_class.check_players_with_options(players, resolved)
    try:
        build = CATALOGUES[slug]
    except KeyError:
        raise NotImplementedError(
            f"no action catalogue for {slug!r}: add one to games/adapters/actions.py"
        ) from None
    return build(players, resolved)
