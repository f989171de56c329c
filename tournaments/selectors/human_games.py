"""Reads of games people play against bots: the person's view of the table, nothing more.

Everything here is the person's seat's: the engine's observation and events for that seat
(the engine decides what a seat may know), the legal actions on their turn, the public
result once finished. Nothing reads another seat's view.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from games import registry
from tournaments.models import HumanGame, Match, MatchSeat

LIVE = (Match.Status.SCHEDULED, Match.Status.QUEUED, Match.Status.RUNNING)
ENDED = (Match.Status.FAILED, Match.Status.CANCELLED)


def games_of_user(*, user, limit: int = 50) -> list[HumanGame]:
    """The person's games, newest first, with their matches."""
    rows = HumanGame.objects.filter(user=user).select_related("match").order_by("-id")
    return list(rows[:limit])


def game_of_user(*, user, pk: int) -> HumanGame | None:
    """The person's game ``pk`` (None for none, or another person's)."""
    if user is None or not user.is_authenticated:
        return None
    return HumanGame.objects.filter(pk=pk, user=user).select_related("match").first()


def games_against_people(*, bot_id: int, limit: int = 20) -> list[Match]:
    """A bot's latest games against people (any version), newest first."""
    rows = (
        Match.objects.filter(human_game__isnull=False, seats__version__bot_id=bot_id)
        .select_related("human_game__user")
        .defer("moves", "record")
        .distinct()
        .order_by("-id")
    )
    return list(rows[:limit])


def seat_names(match: Match) -> list[dict]:
    """Each seat's player: ``{"seat", "name", "kind", "bot_id"}`` (kind: bot, builtin,
    human)."""
    seats = MatchSeat.objects.filter(match=match).select_related("version__bot", "user")
    names = []
    for seat in seats.order_by("seat"):
        kind = seat.player_kind
        if kind == "bot":
            name, bot_id = f"{seat.version.bot.name} v{seat.version.number}", seat.version.bot_id
        elif kind == "human":
            name, bot_id = seat.user.username, None
        else:
            name, bot_id = f"{seat.policy} (built-in)", None
        names.append({"seat": seat.seat, "name": name, "kind": kind, "bot_id": bot_id})
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
    if human_game.turn is not None and not human_game.answered:
        return "your_turn"
    return "waiting"


def human_game_answer(*, human_game: HumanGame) -> dict:
    """The person's view of their game (``GET /api/human-games/<id>/``)."""
    match = Match.objects.get(human_game=human_game)
    seat = human_game.seat
    status = status_of(human_game, match)
    observation, events, since, to_act = None, [], 0, []
    if match.record:
        observation, events, since, to_act = _seat_view(match.record, seat)
    your_turn = status == "your_turn"
    seconds_left = None
    if your_turn and human_game.turn_deadline is not None:
        left = (human_game.turn_deadline - timezone.now()).total_seconds()
        seconds_left = max(0, int(left))
    return {
        "id": human_game.pk,
        "match": match.pk,
        "game": match.game,
        "players": len(seat_names(match)),
        "options": match.options,
        "seat": seat,
        "seats": seat_names(match),
        "status": status,
        "message": _message(status, match),
        "move": len(match.moves or []) + 1 if status in ("your_turn", "waiting") else None,
        "turn": human_game.turn if your_turn else None,
        "to_act": to_act,
        "observation": observation,
        "legal": human_game.legal if your_turn else [],
        "deadline": human_game.turn_deadline if your_turn else None,
        "seconds_left": seconds_left,
        "move_seconds": human_game.move_seconds,
        "events": events,
        "events_since_your_move": since,
        "resigned": human_game.resigned,
        "result": match.result if status == "finished" else None,
        "rematch_of": human_game.rematch_of_id,
        "created_at": human_game.created_at,
    }


def _seat_view(record: dict, seat: int) -> tuple[dict, list[dict], int, list[int]]:
    """The seat's observation and events now, where its events stood after its own last
    move (what happened since is the bots'), and who is to act."""
    game = registry.get(record["game"])
    state = game.new_match(
        players=record["players"],
        options=record.get("options"),
        seed=record.get("seed", 0),
        deck=record.get("deck"),
    )
    since = 0
    key = str(seat)
    for move in record.get("moves", []):
        state.apply({int(s): action for s, action in move.items()})
        if key in move:
            since = len(state.events(seat))
    events = state.events(seat)
    return state.observation(seat), events, since, list(state.to_act())


def _message(status: str, match: Match) -> str:
    if status == "ended":
        return f"The game was stopped by the server: {match.error or 'no reason given'}"
    if status == "starting":
        return "Waiting for a table: the game starts in a moment."
    if status == "waiting":
        stale = timezone.now() - timedelta(seconds=settings.ARENA_STALE_MATCH_SECONDS / 4)
        if match.heartbeat_at is not None and match.heartbeat_at < stale:
            return "The server playing the bots stopped answering; the game resumes shortly."
        return "The bots are moving."
    if status == "your_turn":
        return "Your turn."
    return "The game is over."
