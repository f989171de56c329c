"""Paks: what a hand may capture, steal and lay (rules in docs/rules/paks.md).

Pure functions of the cards on the table; ``games/paks/engine.py`` runs the turns.
A pak is a list of cards whose first card gives its suit; ``paks[seat]`` is
the list of a seat's paks. ``pending`` is the capture or steal being built:
``{"target": card, "cards": [...]}`` or
``{"victim": seat, "suit": suit, "paks": [index, ...], "cards": [...]}``.
"""

from __future__ import annotations

from games.paks.values import SINGLE, capture_value, card_key, pak_value, suit_powers

DONE = "done"  # the cards laid so far make the capture or steal


def suit_cards(hand: list[str], suit: str) -> list[str]:
    return [card for card in hand if card[1] == suit]


def distinct_of_suit(hand: list[str], suit: str) -> list[str]:
    """Each card of ``suit`` once, in the (sorted) hand's order."""
    out: list[str] = []
    for card in hand:
        if card[1] == suit and (not out or out[-1] != card):
            out.append(card)
    return out


def captures(hand: list[str], board: list[str]) -> list[str]:
    """Board cards that ``hand`` can capture (each once, sorted)."""
    power = suit_powers(hand)
    found = {card for card in board if power.get(card[1], 0) > SINGLE[card]}
    return sorted(found, key=card_key) if len(found) > 1 else list(found)


def steals(
    hand: list[str], paks: list[list[list[str]]], seat: int, barred: list[str]
) -> list[list[int]]:
    """[victim, pak index] of every pak ``seat`` could start stealing with ``hand``.

    ``barred`` holds the suits this turn may not steal: the one just formed
    and those already stolen.
    """
    power = suit_powers(hand)
    for suit in barred:
        power.pop(suit, None)
    out: list[list[int]] = []
    if not power:
        return out
    for victim, owned in enumerate(paks):
        if victim == seat:
            continue
        for index, pak in enumerate(owned):
            suit = pak[0][1]
            if suit in power and pak_value(pak) < power[suit]:
                out.append([victim, index])
    return out


def needed(pending: dict, paks: list[list[list[str]]]) -> int:
    """The value the cards laid must beat: the board card's, or the paks' total."""
    if "target" in pending:
        return SINGLE[pending["target"]]
    owner = paks[pending["victim"]]
    return sum(pak_value(owner[i]) for i in pending["paks"])


def pending_suit(pending: dict) -> str:
    return pending["target"][1] if "target" in pending else pending["suit"]


def laying(hand: list[str], pending: dict, paks: list[list[list[str]]]) -> list:
    """Legal actions while laying cards: ``"done"`` once the cards laid win,
    then (for a steal) more paks of the same victim and suit by index, as long
    as every card of the suit would still beat the new total, then the hand's
    cards of the suit.
    """
    laid, suit = pending["cards"], pending_suit(pending)
    total = needed(pending, paks)
    legal: list = [DONE] if capture_value(laid) > total else []
    if "victim" in pending:
        taken = pending["paks"]
        power = capture_value(laid + suit_cards(hand, suit))
        for index, pak in enumerate(paks[pending["victim"]]):
            if pak[0][1] == suit and index not in taken and total + pak_value(pak) < power:
                legal.append(index)
    return legal + distinct_of_suit(hand, suit)


def can_finish(hand: list[str], pending: dict, paks: list[list[list[str]]]) -> bool:
    """Whether laying every card of the suit left in ``hand`` would win."""
    cards = pending["cards"] + suit_cards(hand, pending_suit(pending))
    return capture_value(cards) > needed(pending, paks)
