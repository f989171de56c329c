"""Reads of games people play against bots: the person's view of the table, nothing more.

Everything here is the person's seat's: the engine's observation and events for that seat
(the engine decides what a seat may know), the legal actions on their turn, the public
result once finished. Nothing reads another seat's view.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from games import registry
from tournaments.models import HumanGame, Match, MatchSeat
from tournaments.models.matches import player_kind

LIVE = (Match.Status.SCHEDULED, Match.Status.QUEUED, Match.Status.RUNNING)
ENDED = (Match.Status.FAILED, Match.Status.CANCELLED)


def games_of_user(*, user, limit: int = 50) -> list[HumanGame]:
    """The person's games, newest first, with their matches."""
    rows = HumanGame.objects.filter(user=user).select_related("match").defer("match__moves")
    return list(rows.order_by("-id")[:limit])


def game_of_user(*, user, pk: int) -> HumanGame | None:
    """The person's game ``pk`` (None for none, or another person's)."""
    if user is None or not user.is_authenticated:
        return None
    rows = HumanGame.objects.filter(pk=pk, user=user).select_related("match")
    return rows.defer("match__moves").first()


def bot_has_games_against_people() -> Exists:
    """Whether the outer query's bot has a game ``games_against_people`` lists."""
    seats = MatchSeat.objects.filter(version__bot_id=OuterRef("pk"))
    return Exists(seats.filter(match__human_game__isnull=False))


def games_against_people(*, bot_id: int, limit: int = 20) -> list[Match]:
    """A bot's latest games against people (any version), newest first; each with
    ``bot_rank``, the best rank a seat of the bot reached (None until finished)."""
    rank = MatchSeat.objects.filter(match_id=OuterRef("pk"), version__bot_id=bot_id)
    rows = (
        Match.objects.filter(human_game__isnull=False, seats__version__bot_id=bot_id)
        .select_related("human_game__user")
        .only("pk", "status", "game", "human_game__user__username", "human_game__seat")
        .annotate(bot_rank=Subquery(rank.order_by("rank").values("rank")[:1]))
        .distinct()
        .order_by("-id")
    )
    return list(rows[:limit])


def seat_names(match: Match) -> list[dict]:
    """Each seat's player: ``{"seat", "name", "kind", "bot_id"}`` (kind: bot, builtin,
    human). Plain columns, not seats with their versions, bots and users: the person's page
    asks for this with every poll."""
    rows = (
        MatchSeat.objects.filter(match_id=match.pk)
        .order_by("seat")
        .values_list(
            "seat", "policy", "user_id", "user__username", "version_id", "version__number",
            "version__bot_id", "version__bot__name",
        )
    )  # fmt: skip
    names = []
    for seat, policy, user_id, username, version_id, number, bot_id, bot_name in rows:
        kind = player_kind(version_id=version_id, user_id=user_id)
        if kind == "bot":
            name = f"{bot_name} v{number}"
        else:
            name, bot_id = (username if kind == "human" else f"{policy} (built-in)"), None
        names.append({"seat": seat, "name": name, "kind": kind, "bot_id": bot_id})
    return names


def status_of(human_game: HumanGame, match: Match) -> str:
    """``starting`` (waiting for a worker), ``your_turn``, ``waiting`` (the bots move),
    ``finished`` or ``ended`` (stopped by the server, with a message)."""
    if match.status == Match.Status.FINISHED:
        return "finished"
    if match.status in ENDED:
        return "ended"
    if match.status != Match.Status.RUNNING:
        return "starting"
    if human_game.turn is not None and not human_game.answered and not worker_lost(match):
        return "your_turn"
    return "waiting"


# A worker beats at least every 2 s while it plays a game (the position's writes, the
# person's turn): one silent for longer than this is taken to be gone until the reaper
# gives the game to another.
LOST_AFTER_SECONDS = 8


def worker_lost(match: Match) -> bool:
    """Whether the running game's worker has stopped beating."""
    lost_before = timezone.now() - timedelta(seconds=LOST_AFTER_SECONDS)
    return match.heartbeat_at is not None and match.heartbeat_at < lost_before


def human_game_answer(*, human_game: HumanGame, match: Match | None = None) -> dict:
    """The person's view of their game (``GET /api/human-games/<id>/``); ``match``: its
    match as just read with it (``game_of_user``), else read here."""
    if match is None:
        match = Match.objects.defer("moves").get(human_game=human_game)
    seat = human_game.seat
    seats = seat_names(match)
    status = status_of(human_game, match)
    observation, events, since, to_act = None, [], 0, []
    if match.record:
        observation, events, since, to_act = _seat_view(match.pk, match.record, seat)
    your_turn = status == "your_turn"
    seconds_left = None
    if your_turn and human_game.turn_deadline is not None:
        left = (human_game.turn_deadline - timezone.now()).total_seconds()
        seconds_left = max(0, int(left))
    return {
        "id": human_game.pk,
        "match": match.pk,
        "game": match.game,
        "players": len(seats),
        "options": match.options,
        "seat": seat,
        "seats": seats,
        "status": status,
        "message": _message(status, match),
        "move": len((match.record or {}).get("moves", [])) + 1
        if status in ("your_turn", "waiting")
        else None,
        "turn": human_game.turn if your_turn else None,
        "to_act": to_act,
        "observation": observation,
        "legal": human_game.legal if your_turn else [],
        "deadline": human_game.turn_deadline if your_turn else None,
        "seconds_left": seconds_left,
        "move_seconds": human_game.move_seconds,
        # What happened since the person's last move, as their seat saw it (the whole log
        # would grow with every poll of a long game: the replay has it).
        "events": events,
        "events_from": since,
        "resigned": human_game.resigned,
        "result": match.result if status == "finished" else None,
        "rematch_of": human_game.rematch_of_id,
        "created_at": human_game.created_at,
    }


@dataclass
class _Position:
    """A state rebuilt from a game's record, kept to go on from (``_seat_view``)."""

    inputs: tuple
    moves: list
    state: object
    since: int = 0


# The latest position of the games read lately, per process: a page asks every second and
# a game can reach a thousand moves, so each read applies only the moves made since the
# last one instead of replaying the whole game.
_POSITIONS: OrderedDict[int, _Position] = OrderedDict()
_POSITIONS_KEPT = 64
_POSITIONS_LOCK = threading.Lock()


def _seat_view(match_id: int, record: dict, seat: int) -> tuple[dict, list[dict], int, list[int]]:
    """The seat's observation now, its events since its own last move (what the others did
    since) with the index of the first of them in its log, and who is to act."""
    inputs = (
        record["game"], record.get("version"), record["players"],
        json.dumps(record.get("options"), sort_keys=True), record.get("seed", 0),
        json.dumps(record.get("deck")), seat,
    )  # fmt: skip
    moves = record.get("moves", [])
    with _POSITIONS_LOCK:
        kept = _POSITIONS.pop(match_id, None)
    done = len(kept.moves) if kept is not None else 0
    if kept is None or kept.inputs != inputs or moves[:done] != kept.moves:
        game = registry.get(record["game"])
        state = game.new_match(
            players=record["players"],
            options=record.get("options"),
            seed=record.get("seed", 0),
            deck=record.get("deck"),
        )
        kept, done = _Position(inputs=inputs, moves=[], state=state), 0
    key = str(seat)
    for move in moves[done:]:
        kept.state.apply({int(s): action for s, action in move.items()})
        kept.moves.append(move)
        if key in move:
            kept.since = len(kept.state.events(seat))
    state = kept.state
    view = (
        state.observation(seat),
        state.events(seat, since=kept.since),
        kept.since,
        list(state.to_act()),
    )
    with _POSITIONS_LOCK:
        _POSITIONS[match_id] = kept
        while len(_POSITIONS) > _POSITIONS_KEPT:
            _POSITIONS.popitem(last=False)
    return view


def _message(status: str, match: Match) -> str:
    if status == "ended":
        return f"The game was stopped by the server: {match.error or 'no reason given'}"
    if status == "starting":
        return "Waiting for a table: the game starts in a moment."
    if status == "waiting":
        if worker_lost(match):
            return (
                "The server playing the bots stopped answering; the game goes on from the"
                " moves made so far once another takes it over (within a few minutes)."
            )
        return "The bots are moving."
    if status == "your_turn":
        return "Your turn."
    return "The game is over."
