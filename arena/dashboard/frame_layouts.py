"""How the replay viewer lays out each game's observation on a table.

One generic renderer (static/arena/replay.js) draws every game; this file only says,
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

_CHIPS_POT: list[Entry] = [("pot", "Pot", "chips")]
_HOLD_EM_LIKE_SEATS: list[Entry] = [
    ("stacks", "Up cards", "cards"),
    ("chips", "Chips", "chips"),
    ("alive", "In the hand", "flag"),
]

LAYOUTS: dict[str, dict] = {
    "pairs": {
        "deck": "pairs",
        "info": [("round", "Round", "value"), ("target", "Losing score", "value")],
        "centre": [
            ("draw_pile", "Draw pile", "count"),
            ("discard_pile", "Discards", "count"),
            ("burned", "Burned", "count"),
            *_CHIPS_POT,
        ],
        "seats": [
            ("stacks", "Stack", "cards"),
            ("score_cards", "Points taken", "cards"),
            ("scores", "Score", "value"),
            ("chips", "Chips", "chips"),
        ],
    },
    "pairs-blackstone": {
        "deck": "pairs",
        "info": [("game", "Game", "value"), ("ante", "Ante", "value")],
        "centre": [
            ("deck_size", "Deck", "count"),
            ("whites", "Whites", "value"),
            ("tens_in_deck", "Tens left", "value"),
            ("fold_cost", "Fold cost", "value"),
            *_CHIPS_POT,
        ],
        "seats": [
            ("status", "Status", "value"),
            ("blacks", "Blacks", "value"),
            ("chips", "Chips", "chips"),
        ],
    },
    "pairs-five-cards": {
        "deck": "pairs",
        "info": [("round", "Round", "value"), ("target_score", "Target", "value")],
        "centre": [
            ("targets", "Targets", "cards"),
            ("drawn", "Drawn card", "cards"),
            ("deck_size", "Deck", "count"),
        ],
        "seats": [
            ("sides", "Under each target", "groups"),
            ("sums", "Sums", "value"),
            ("totals", "Total", "value"),
        ],
    },
    "pairs-goblin-poker": {
        "deck": "pairs",
        "info": [
            ("game", "Game", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
        ],
        "centre": [
            ("deck_size", "Deck", "count"),
            ("discards", "Discards", "count"),
            ("fold_price", "Fold price", "value"),
            ("my_pitch", "Your pitch", "cards"),
            *_CHIPS_POT,
        ],
        "seats": [*_HOLD_EM_LIKE_SEATS, ("pitched", "Pitched", "flag")],
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "pairs-hawthorn": {
        "deck": "pairs",
        "info": [
            ("game", "Game", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
        ],
        "centre": [
            ("deck_size", "Deck", "count"),
            ("discards", "Discards", "count"),
            ("fold_price", "Fold price", "value"),
            ("button", "Button", "value"),
            *_CHIPS_POT,
        ],
        "seats": _HOLD_EM_LIKE_SEATS,
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "pairs-kitty": {
        "deck": "pairs",
        "info": [
            ("hand_index", "Hand", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
            ("rounds", "of", "value"),
        ],
        "centre": [
            ("targets", "Targets", "cards"),
            ("bids", "Bids", "cards"),
            ("kitty_left", "Kitty", "count"),
            ("discards", "Discards", "cards"),
            *_CHIPS_POT,
        ],
        "seats": [("totals", "Total", "value"), ("chips", "Chips", "chips")],
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "pairs-monster": {
        "deck": "pairs",
        "info": [
            ("game", "Game", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
            ("monster_size", "Monster size", "value"),
        ],
        "centre": [
            ("my_discards", "Your discards", "cards"),
            ("last_showdown", "Last showdown", "value"),
            *_CHIPS_POT,
        ],
        "seats": [
            ("chips", "Chips", "chips"),
            ("alive", "In the hand", "flag"),
            ("acted", "Acted", "flag"),
            ("discarded", "Discarded", "value"),
        ],
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "pairs-port": {
        "deck": "pairs",
        "info": [("round", "Round", "value"), ("target", "Target", "value")],
        "centre": [
            ("draw_pile", "Draw pile", "count"),
            ("discard_pile", "Discards", "count"),
            ("burned", "Burned", "count"),
        ],
        "seats": [
            ("stacks", "Stack", "cards"),
            ("status", "Status", "value"),
            ("totals", "Total", "value"),
            ("scores", "Score", "value"),
        ],
    },
    "pairs-regent": {
        "deck": "pairs",
        "info": [("game", "Game", "value"), ("phase", "Phase", "value")],
        "centre": [
            ("deck_size", "Deck", "count"),
            ("discards", "Discards", "count"),
            ("fold_price", "Fold price", "value"),
            *_CHIPS_POT,
        ],
        "seats": _HOLD_EM_LIKE_SEATS,
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "pairs-rocket": {
        "deck": "pairs",
        "info": [
            ("game", "Game", "value"),
            ("phase", "Phase", "value"),
            ("max_bet", "Top bet", "value"),
        ],
        "centre": [
            ("deck_size", "Shoe", "count"),
            ("discards", "Discards", "count"),
            *_CHIPS_POT,
        ],
        "seats": [
            ("stacks", "Cards", "cards"),
            ("status", "Status", "value"),
            ("bets", "Bet", "chips"),
            ("fold_costs", "Fold cost", "value"),
            ("round_chips", "This round", "value"),
            ("chips", "Chips", "chips"),
        ],
    },
    "pairs-starboard": {
        "deck": "pairs",
        "info": [
            ("game", "Game", "value"),
            ("ante", "Ante", "value"),
            ("draw_price", "Draw price", "value"),
        ],
        "centre": [
            ("hand", "Shared hand", "cards"),
            ("deck_size", "Deck", "count"),
            ("discards", "Discards", "cards"),
            *_CHIPS_POT,
        ],
        "seats": [
            ("status", "Status", "value"),
            ("locked_with", "Locked with", "value"),
            ("chips", "Chips", "chips"),
        ],
    },
    "pairs-sweep": {
        "deck": "pairs",
        "info": [
            ("hand_index", "Hand", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
            ("rounds", "of", "value"),
        ],
        "centre": [
            ("centre", "Centre", "cards"),
            ("plays", "Played", "plays"),
            ("tie", "Tie", "value"),
            ("deck_size", "Deck", "count"),
            ("discarded", "Discarded", "cards"),
        ],
        "seats": [("totals", "Total", "value")],
        "hand": {"key": "cards", "count": "hand_sizes"},
    },
    "pairs-troll-guts": {
        "deck": "pairs",
        "info": [("game", "Game", "value"), ("phase", "Phase", "value")],
        "centre": [
            ("deck_size", "Deck", "count"),
            ("discards", "Discards", "count"),
            *_CHIPS_POT,
        ],
        "seats": _HOLD_EM_LIKE_SEATS,
        "hand": {"key": "down", "count": "down_sizes"},
    },
    "pairs-venture": {
        "deck": "pairs",
        "info": [
            ("deal", "Deal", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
            ("rounds", "of", "value"),
        ],
        "centre": [("pool", "Pool", "cards"), ("slug_size", "Slug", "count")],
        "seats": [
            ("captured", "Captured", "cards"),
            ("last_bids", "Last bid", "cards"),
            ("claims", "Claim", "value"),
            ("points_now", "Points now", "value"),
            ("totals", "Total", "value"),
        ],
        "hand": {"key": "cards", "count": "hand_sizes"},
    },
    "paiute": {
        "deck": "french",
        "info": [
            ("game", "Game", "value"),
            ("phase", "Phase", "value"),
            ("rounds", "Round", "value"),
            ("wild_card", "Wild", "cards"),
        ],
        "centre": [
            ("pile", "Discard pile", "cards"),
            ("stock", "Stock", "count"),
            ("from_pile", "Taken from the pile", "cards"),
            ("calls", "Calls", "value"),
            *_CHIPS_POT,
        ],
        "seats": [
            ("known", "Known to all", "cards"),
            ("chips", "Chips", "chips"),
            ("wins", "Wins", "value"),
        ],
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "paks": {
        "deck": "french",
        "info": [
            ("hand_index", "Hand", "value"),
            ("phase", "Phase", "value"),
            ("target", "Target", "value"),
            ("formed_suit", "Formed suit", "value"),
        ],
        "centre": [
            ("board", "Board", "cards"),
            ("drawn", "Drawn", "cards"),
            ("stock", "Stock", "count"),
            ("pending", "Pending", "value"),
        ],
        "seats": [
            ("paks", "Paks", "groups"),
            ("pak_values", "Pak values", "value"),
            ("totals", "Total", "value"),
        ],
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "punk": {
        "deck": "punk",
        "info": [
            ("game", "Game", "value"),
            ("phase", "Phase", "value"),
            ("round", "Round", "value"),
            ("trick", "Trick", "value"),
            ("target", "Target", "value"),
        ],
        "centre": [
            ("tricks", "Tricks this round", "last-groups"),
            ("pot", "Pot", "cards"),
            ("neutral", "Neutral", "cards"),
        ],
        "seats": [
            ("caches", "Cache", "cards"),
            ("carried", "Carried", "cards"),
            ("scores", "Score", "value"),
            ("kept", "Kept", "value"),
        ],
        "hand": {"key": "hand", "count": "hand_sizes"},
    },
    "stax": {
        "deck": "french",
        "info": [("game", "Game", "value"), ("turn", "Turn of seat", "value")],
        "centre": [
            ("stacks", "Stacks", "groups"),
            ("played", "Played this turn", "cards"),
            ("deck", "Deck", "count"),
            ("discards", "Discards", "cards"),
        ],
        "seats": [("points", "Points", "value"), ("totals", "Total", "value")],
        "hand": {"key": "hand", "count": "hand_sizes"},
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
