"""How the replay viewer lays out each game's observation on a table.

One generic renderer (static/arena/table.js, for replay.js and play.js) draws every game; this file only says,
per game, which observation keys are what. The engines stay free of any notion of a
page: these descriptions live here, beside the dashboard, and name the keys the
engines already publish in ``State.observation``.

A layout:
- ``deck``: how a card value looks: ``french`` ("TS"), ``pairs`` (1-10) or ``punk``
  (1 = ace .. n+3; dice faces when the observation's ``dice`` is more than 0).
- ``info``: keys shown in the line above the table.
- ``centre``: keys drawn in the middle of the table, for every viewer alike.
- ``seats``: keys holding one value per seat (a list indexed by seat), drawn in each
  seat's place.
- ``hand``: the viewer's own cards (``key``) and every seat's card count (``count``),
  drawn face down where the viewer may not look.

Each entry is ``(key, label, kind)``. Kinds: ``cards`` (a card or a list of cards),
``groups`` (a list of lists of cards), ``last-groups`` (the last item of a list of
groups: the current round's tricks), ``plays`` (``[seat, card]`` pairs), ``count``
(cards in a face-down pile), ``chips``, ``flag`` (a yes/no shown only when set) and
``value`` (anything else, shown as short text).
"""

from __future__ import annotations

Entry = tuple[str, str, str]

# Bump when a layout changes: it is part of the frames' cache key.
LAYOUT_VERSION = 1

# Always sent when present: the renderer marks who acts next, the dealer, and Punk's dice.
COMMON_KEYS = ("to_act", "turn", "dealer", "players", "dice", "teams")

# Entries several games share.
GAME: Entry = ("game", "Game", "value")
PHASE: Entry = ("phase", "Phase", "value")
ROUND: Entry = ("round", "Round", "value")
ROUNDS_OF: Entry = ("rounds", "of", "value")
HAND_NUMBER: Entry = ("hand_index", "Hand", "value")
DECK: Entry = ("deck_size", "Deck", "count")
DISCARDS: Entry = ("discards", "Discards", "count")
DRAW_PILES: list[Entry] = [
    ("draw_pile", "Draw pile", "count"),
    ("discard_pile", "Discards", "count"),
    ("burned", "Burned", "count"),
]
FOLD_PRICE: Entry = ("fold_price", "Fold price", "value")
POT: Entry = ("pot", "Pot", "chips")
CHIPS: Entry = ("chips", "Chips", "chips")
STATUS: Entry = ("status", "Status", "value")
SCORE: Entry = ("scores", "Score", "value")
TOTAL: Entry = ("totals", "Total", "value")
IN_THE_HAND: Entry = ("alive", "In the hand", "flag")
HOLD_EM_LIKE_SEATS: list[Entry] = [("stacks", "Up cards", "cards"), CHIPS, IN_THE_HAND]
HAND = {"key": "hand", "count": "hand_sizes"}
CARDS_HAND = {"key": "cards", "count": "hand_sizes"}

LAYOUTS: dict[str, dict] = {
    "pairs": {
        "deck": "pairs",
        "info": [ROUND, ("target", "Losing score", "value")],
        "centre": [*DRAW_PILES, POT],
        "seats": [
            ("stacks", "Stack", "cards"),
            ("score_cards", "Points taken", "cards"),
            SCORE,
            CHIPS,
        ],
    },
    "pairs-blackstone": {
        "deck": "pairs",
        "info": [GAME, ("ante", "Ante", "value")],
        "centre": [
            DECK,
            ("whites", "Whites", "value"),
            ("tens_in_deck", "Tens left", "value"),
            ("fold_cost", "Fold cost", "value"),
            POT,
        ],
        "seats": [STATUS, ("blacks", "Blacks", "value"), CHIPS],
    },
    "pairs-five-cards": {
        "deck": "pairs",
        "info": [ROUND, ("target_score", "Target", "value")],
        "centre": [("targets", "Targets", "cards"), ("drawn", "Drawn card", "cards"), DECK],
        "seats": [("sides", "Under each target", "groups"), ("sums", "Sums", "value"), TOTAL],
    },
    "pairs-goblin-poker": {
        "deck": "pairs",
        "info": [GAME, PHASE, ROUND],
        "centre": [DECK, DISCARDS, FOLD_PRICE, ("my_pitch", "Your pitch", "cards"), POT],
        "seats": [*HOLD_EM_LIKE_SEATS, ("pitched", "Pitched", "flag")],
        "hand": HAND,
    },
    "pairs-hawthorn": {
        "deck": "pairs",
        "info": [GAME, PHASE, ROUND],
        "centre": [DECK, DISCARDS, FOLD_PRICE, ("button", "Button", "value"), POT],
        "seats": HOLD_EM_LIKE_SEATS,
        "hand": HAND,
    },
    "pairs-kitty": {
        "deck": "pairs",
        "info": [HAND_NUMBER, PHASE, ROUND, ROUNDS_OF],
        "centre": [
            ("targets", "Targets", "cards"),
            ("bids", "Bids", "cards"),
            ("kitty_left", "Kitty", "count"),
            ("discards", "Discards", "cards"),
            POT,
        ],
        "seats": [TOTAL, CHIPS],
        "hand": HAND,
    },
    "pairs-monster": {
        "deck": "pairs",
        "info": [GAME, PHASE, ROUND, ("monster_size", "Monster size", "value")],
        "centre": [
            ("my_discards", "Your discards", "cards"),
            ("last_showdown", "Last showdown", "value"),
            POT,
        ],
        "seats": [
            CHIPS,
            IN_THE_HAND,
            ("acted", "Acted", "flag"),
            ("discarded", "Discarded", "value"),
        ],
        "hand": HAND,
    },
    "pairs-port": {
        "deck": "pairs",
        "info": [ROUND, ("target", "Target", "value")],
        "centre": DRAW_PILES,
        "seats": [("stacks", "Stack", "cards"), STATUS, TOTAL, SCORE],
    },
    "pairs-regent": {
        "deck": "pairs",
        "info": [GAME, PHASE],
        "centre": [DECK, DISCARDS, FOLD_PRICE, POT],
        "seats": HOLD_EM_LIKE_SEATS,
        "hand": HAND,
    },
    "pairs-rocket": {
        "deck": "pairs",
        "info": [GAME, PHASE, ("max_bet", "Top bet", "value")],
        "centre": [("deck_size", "Shoe", "count"), DISCARDS, POT],
        "seats": [
            ("stacks", "Cards", "cards"),
            STATUS,
            ("bets", "Bet", "chips"),
            ("fold_costs", "Fold cost", "value"),
            ("round_chips", "This round", "value"),
            CHIPS,
        ],
    },
    "pairs-starboard": {
        "deck": "pairs",
        "info": [GAME, ("ante", "Ante", "value"), ("draw_price", "Draw price", "value")],
        "centre": [
            ("hand", "Shared hand", "cards"),
            DECK,
            ("discards", "Discards", "cards"),
            POT,
        ],
        "seats": [STATUS, ("locked_with", "Locked with", "value"), CHIPS],
    },
    "pairs-sweep": {
        "deck": "pairs",
        "info": [HAND_NUMBER, PHASE, ROUND, ROUNDS_OF],
        "centre": [
            ("centre", "Centre", "cards"),
            ("plays", "Played", "plays"),
            ("tie", "Tie", "value"),
            DECK,
            ("discarded", "Discarded", "cards"),
        ],
        "seats": [TOTAL],
        "hand": CARDS_HAND,
    },
    "pairs-troll-guts": {
        "deck": "pairs",
        "info": [GAME, PHASE],
        "centre": [DECK, DISCARDS, POT],
        "seats": HOLD_EM_LIKE_SEATS,
        "hand": {"key": "down", "count": "down_sizes"},
    },
    "pairs-venture": {
        "deck": "pairs",
        "info": [("deal", "Deal", "value"), PHASE, ROUND, ROUNDS_OF],
        "centre": [("pool", "Pool", "cards"), ("slug_size", "Slug", "count")],
        "seats": [
            ("captured", "Captured", "cards"),
            ("last_bids", "Last bid", "cards"),
            ("claims", "Claim", "value"),
            ("points_now", "Points now", "value"),
            TOTAL,
        ],
        "hand": CARDS_HAND,
    },
    "paiute": {
        "deck": "french",
        "info": [GAME, PHASE, ("rounds", "Round", "value"), ("wild_card", "Wild", "cards")],
        "centre": [
            ("pile", "Discard pile", "cards"),
            ("stock", "Stock", "count"),
            ("from_pile", "Taken from the pile", "cards"),
            ("calls", "Calls", "value"),
            POT,
        ],
        "seats": [("known", "Known to all", "cards"), CHIPS, ("wins", "Wins", "value")],
        "hand": HAND,
    },
    "paks": {
        "deck": "french",
        "info": [
            HAND_NUMBER,
            PHASE,
            ("target", "Target", "value"),
            ("formed_suit", "Formed suit", "value"),
        ],
        "centre": [
            ("board", "Board", "cards"),
            ("drawn", "Drawn", "cards"),
            ("stock", "Stock", "count"),
            ("pending", "Pending", "value"),
        ],
        "seats": [("paks", "Paks", "groups"), ("pak_values", "Pak values", "value"), TOTAL],
        "hand": HAND,
    },
    "punk": {
        "deck": "punk",
        "info": [GAME, PHASE, ROUND, ("trick", "Trick", "value"), ("target", "Target", "value")],
        "centre": [
            ("tricks", "Tricks this round", "last-groups"),
            ("pot", "Pot", "cards"),
            ("neutral", "Neutral", "cards"),
        ],
        "seats": [
            ("caches", "Cache", "cards"),
            ("carried", "Carried", "cards"),
            SCORE,
            ("kept", "Kept", "value"),
        ],
        "hand": HAND,
    },
    "stax": {
        "deck": "french",
        "info": [GAME, ("turn", "Turn of seat", "value")],
        "centre": [
            ("stacks", "Stacks", "groups"),
            ("played", "Played this turn", "cards"),
            ("deck", "Deck", "count"),
            ("discards", "Discards", "cards"),
        ],
        "seats": [("points", "Points", "value"), TOTAL],
        "hand": HAND,
    },
}


def layout_for(slug: str) -> dict:
    """The layout of ``slug``; a game added without one is still shown, as plain values."""
    return LAYOUTS.get(slug, {"deck": "pairs", "info": [], "centre": [], "seats": []})


def layout_keys(layout: dict) -> list[str]:
    """Every observation key the renderer reads for this layout."""
    keys = [key for part in ("info", "centre", "seats") for key, _, _ in layout.get(part, [])]
    hand = layout.get("hand")
    if hand:
        keys += [hand["key"], hand["count"]]
    return list(dict.fromkeys([*keys, *COMMON_KEYS]))


def layout_json(layout: dict) -> dict:
    """The layout as the renderer reads it (JSON: entries become objects)."""
    return {
        "deck": layout.get("deck", "pairs"),
        "hand": layout.get("hand"),
        **{
            part: [
                {"key": k, "label": label, "kind": kind} for k, label, kind in layout.get(part, [])
            ]
            for part in ("info", "centre", "seats")
        },
    }
