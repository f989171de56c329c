"""Games a person plays in the browser against bots (docs/human-games.md).

A game is one match (``Match.human_game``), unrated and outside every event, played by the
ordinary lifecycle on its own queue ("human_games"): claimed with the conditional UPDATE,
played by ``bots.runner.play_match``, recorded by ``record_result``, given back when the
host fails. The person's seat is a :class:`HumanPlayer`: the same seat interface as a
program's, fed by the web request instead of a pipe. When it is the person's turn the
worker writes the turn (its number, the engine's legal actions, the deadline) on the
``HumanGame`` row and waits for ``submit_action`` to write the answer there; the engine
still checks it. The position is written after every move (the match's ``moves`` and
``record``), so the page draws the table as it stands and a game whose worker died goes on
from those moves on another worker (``bots.runner``: ``resume``).

The person's clock: ``move_seconds`` for each move; a person who lets it run out forfeits
(a ``timeout`` fault: the seat is played by default to the end and ranks last), as does
one who resigns (``resigned``), at their next turn or at once when it is theirs.

Limits: ``ARENA_HUMAN_GAMES_AT_ONCE`` live games on the server and
``ARENA_HUMAN_GAMES_PER_PERSON`` per person; a refusal says when to try again.
Bots: a bot's current version, if its owner lets others play it on demand
(``accepts_challenges`` is not ``nobody``; an owner may always play their own), or a
built-in policy of the game by name.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from bots import access
from bots import services as bot_services
from bots.models import Bot
from bots.players import ActResult, BuiltinPlayer, Fault, Player, ProgramPlayer
from bots.runner import Clock
from bots.runner import play_match as run_match
from bots.sandbox import Limits
from bots.selectors import current_version
from games import registry
from games.protocol import InvalidOptions, is_legal
from games.registry import UnknownGame
from games.rng import derive_seed
from tournaments.models import HumanGame, Match, MatchSeat
from tournaments.services.playing import claim_match, release_attempt
from tournaments.services.queueing import queue_match_after_commit
from tournaments.services.recording import record_result

log = logging.getLogger(__name__)
LIVE = (Match.Status.SCHEDULED, Match.Status.QUEUED, Match.Status.RUNNING)
HEARTBEAT_EVERY_SECONDS = 2.0
# A person's seat may take this much longer than its deadline before the runner calls it
# a timeout itself: the worker notices the deadline between two looks at the row.
CLOCK_SLACK_MS = 5000
# How often the position is stored while only bots move (see play_human_game).
POSITION_EVERY_SECONDS = 0.5


class HumanGameRefused(Exception):
    """A request about a game that cannot be done; nothing was changed.

    ``status``: 400 (a bad field), 403, 404, 409 (not now: not your turn, a stale move, the
    game over) or 429 (a limit; ``retry_after`` seconds)."""

    def __init__(self, detail: str, *, status: int = 400, field: str = "", retry_after: int = 0):
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.field = field
        self.retry_after = retry_after


@dataclass
class Seating:
    """What a person asks for: the game, its options, their seat (None: any) and who sits
    in the other seats, in seat order (a bot's id or a built-in policy's name)."""

    game: str
    players: int | None
    options: dict
    seat: int | None
    bots: list


# -- making a game ------------------------------------------------------------------------


def create_human_game(*, user, seating: Seating, rematch_of: HumanGame | None = None) -> HumanGame:
    """Check the request, then store the game and its match, queued for a worker."""
    game, players, options = _checked_game(seating)
    seat = _checked_seat(seating.seat, players)
    others = _checked_bots(seating.bots, game=game, players=players, user=user)
    with transaction.atomic():
        _check_limits(user)
        human_game = HumanGame.objects.create(
            user=user, seat=seat, move_seconds=settings.ARENA_HUMAN_MOVE_SECONDS,
            rematch_of=rematch_of,
        )  # fmt: skip
        match = Match.objects.create(
            game=game.slug,
            engine_version=game.version,
            options=options,
            seed=secrets.randbits(62),
            status=Match.Status.QUEUED,
            queued_at=timezone.now(),
            human_game=human_game,
        )
        rows = []
        who = iter(others)
        for number in range(players):
            if number == seat:
                rows.append(MatchSeat(match=match, seat=number, user=user))
                continue
            other = next(who)
            if isinstance(other, str):
                rows.append(MatchSeat(match=match, seat=number, policy=other))
            else:
                rows.append(MatchSeat(match=match, seat=number, version=other))
        MatchSeat.objects.bulk_create(rows)
        queue_match_after_commit(match.pk, human=True)
    return human_game


def rematch(*, user, human_game: HumanGame) -> HumanGame:
    """The same game again with the same seats (each bot's current version), a new deal."""
    _check_owner(user, human_game)
    match = human_game.match
    if match.status in LIVE:
        raise HumanGameRefused(
            "this game is still being played: finish or resign it first", status=409
        )
    seats = list(match.seats.select_related("version").order_by("seat"))
    bots = [s.policy or s.version.bot_id for s in seats if s.user_id is None]
    seating = Seating(
        game=match.game, players=len(seats), options=match.options,
        seat=human_game.seat, bots=bots,
    )  # fmt: skip
    return create_human_game(user=user, seating=seating, rematch_of=human_game)


def _checked_game(seating: Seating):
    try:
        game = registry.get(seating.game)
    except UnknownGame:
        known = ", ".join(registry.slugs())
        raise HumanGameRefused(f"no game {seating.game!r}; games: {known}", field="game") from None
    if not isinstance(seating.options, dict):
        raise HumanGameRefused(
            "options must be an object of option names and values", field="options"
        )
    try:
        options = game.resolve_options(seating.options)
    except InvalidOptions as exc:
        raise HumanGameRefused(str(exc), field="options") from None
    players = seating.players
    if players is None:
        players = len(seating.bots) + 1 if isinstance(seating.bots, list) else game.min_players
    counts = game.player_counts(options)
    if players not in counts:
        shown = f"{counts[0]} to {counts[-1]}" if counts else "no number of"
        raise HumanGameRefused(
            f"{game.title} takes {shown} players with these options, not {players}", field="players"
        )
    return game, players, options


def _checked_seat(seat, players: int) -> int:
    if seat is None or seat == "random":
        return secrets.randbelow(players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise HumanGameRefused(
            f'seat must be a number from 0 to {players - 1}, or "random"', field="seat"
        )
    return seat


def _checked_bots(bots, *, game, players: int, user) -> list:
    """Each other seat's player: a policy name or the bot's current version."""
    if not isinstance(bots, list) or len(bots) != players - 1:
        raise HumanGameRefused(
            f"bots must list who takes the other {players - 1} seat(s), in seat order: "
            "a bot's id or a built-in bot's name such as \"random\"",
            field="bots",
        )
    for bot in bots:
        if isinstance(bot, bool) or not isinstance(bot, (int, str)):
            raise HumanGameRefused(
                f"each entry of bots is a bot's id (a number) or a built-in bot's name, not {bot!r}",
                field="bots",
            )
    # Ids past the database's integer range name no bot (and must not reach a query).
    ids = {b for b in bots if isinstance(b, int) and 0 < b < 2**63}
    found = {bot.pk: bot for bot in Bot.objects.filter(pk__in=ids)}
    chosen = []
    for bot in bots:
        if isinstance(bot, str):
            if bot not in game.policies:
                known = ", ".join(sorted(game.policies))
                raise HumanGameRefused(
                    f"{game.title} has no built-in bot {bot!r}; built-in bots: {known}",
                    field="bots",
                )
            chosen.append(bot)
            continue
        if bot not in ids or bot not in found:
            raise HumanGameRefused(f"no bot {bot!r}", field="bots")
        entry = found[bot]
        if entry.game != game.slug:
            raise HumanGameRefused(
                f"{entry.name} plays {entry.game}, not {game.slug}", field="bots"
            )
        if entry.accepts_challenges == "nobody" and not access.may_manage(user, entry):
            raise HumanGameRefused(
                f"{entry.name}'s owner does not let others play it on demand", field="bots",
                status=403,
            )  # fmt: skip
        version = current_version(bot=entry)
        if version is None:
            raise HumanGameRefused(
                f"{entry.name} has no version that may play yet (none validated)", field="bots"
            )
        chosen.append(version)
    return chosen


def _check_limits(user) -> None:
    """The person's and the server's live games (inside the creating transaction; the
    person's row is locked so two requests of theirs count each other)."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    live = Match.objects.filter(human_game__isnull=False, status__in=LIVE)
    mine = live.filter(human_game__user=user).count()
    if mine >= settings.ARENA_HUMAN_GAMES_PER_PERSON:
        raise HumanGameRefused(
            f"you have {mine} game(s) in play, the most one person may: finish or resign one "
            "to start another",
            status=429,
            retry_after=60,
        )
    if live.count() >= settings.ARENA_HUMAN_GAMES_AT_ONCE:
        raise HumanGameRefused(
            f"all {settings.ARENA_HUMAN_GAMES_AT_ONCE} tables for games against bots are "
            "taken: try again in a minute",
            status=429,
            retry_after=60,
        )


def _check_owner(user, human_game: HumanGame) -> None:
    if user is None or human_game.user_id != user.pk:
        raise HumanGameRefused("no such game of yours", status=404)


# -- the person's moves -------------------------------------------------------------------


def submit_action(*, user, human_game_id: int, action, turn: int | None = None) -> HumanGame:
    """Hand the person's action to the worker: refused (nothing changed) when it is not
    their turn, names another turn than the current one (``turn``: a stale page), or is
    not one of the legal actions."""
    # The game and its match's status in one query: a person's every move comes here.
    human_game = (
        HumanGame.objects.filter(pk=human_game_id).annotate(match_status=F("match__status")).first()
    )
    if human_game is None:
        raise HumanGameRefused("no such game of yours", status=404)
    _check_owner(user, human_game)
    if human_game.match_status not in LIVE:
        raise HumanGameRefused("the game is over", status=409)
    if human_game.turn is None or human_game.answered:
        raise HumanGameRefused("it is not your turn: wait for the bots to move", status=409)
    if turn is not None and turn != human_game.turn:
        raise HumanGameRefused(
            f"that action was for move {turn}; it is now move {human_game.turn}", status=409
        )
    if human_game.turn_deadline is not None and timezone.now() > human_game.turn_deadline:
        raise HumanGameRefused("your time for this move has run out", status=409)
    if not is_legal(action, human_game.legal or []):
        raise HumanGameRefused("not a legal action now: choose one of legal", field="action")
    taken = HumanGame.objects.filter(pk=human_game.pk, turn=human_game.turn, answered=False).update(
        action=action, answered=True
    )
    if not taken:
        raise HumanGameRefused("that move was already made or its turn has passed", status=409)
    # As the UPDATE left the row (no second read): the answer given, the turn unchanged.
    human_game.action, human_game.answered = action, True
    return human_game


def resign(*, user, human_game_id: int) -> HumanGame:
    """Give the game up: the seat ranks last and is played by default to the end (at once
    when it is the person's turn, else at their next one)."""
    human_game = _own_game(user, human_game_id)
    if Match.objects.filter(human_game=human_game, status__in=LIVE).exists():
        HumanGame.objects.filter(pk=human_game.pk).update(resigned=True)
    else:
        raise HumanGameRefused("the game is over", status=409)
    human_game.refresh_from_db()
    return human_game


def _own_game(user, human_game_id: int) -> HumanGame:
    human_game = HumanGame.objects.filter(pk=human_game_id).first()
    if human_game is None:
        raise HumanGameRefused("no such game of yours", status=404)
    _check_owner(user, human_game)
    return human_game


# -- the worker ---------------------------------------------------------------------------


class ClaimLost(Exception):
    """Another worker took the game over (this one's heartbeat went stale)."""


class HumanPlayer:
    """The person's seat: each ``act`` writes the turn on the game's row and waits for the
    answer ``submit_action`` writes there, until the person's deadline."""

    def __init__(self, *, human_game: HumanGame, match_id: int, attempt: int, label: str):
        self.human_game_id = human_game.pk
        self.move_seconds = human_game.move_seconds
        self.match_id = match_id
        self.attempt = attempt
        self.label = label
        self.last_beat = time.monotonic()

    def start(self, info: dict) -> Fault | None:
        return None

    def act(self, observation: dict, legal: list, clock: dict, *, move: int) -> ActResult:
        began = time.monotonic()
        rows = HumanGame.objects.filter(pk=self.human_game_id)
        # An answer already given to this very move (before a worker died) stands.
        rows.exclude(turn=move, answered=True).update(
            turn=move,
            legal=legal,
            turn_deadline=timezone.now() + timedelta(seconds=self.move_seconds),
            action=None,
            answered=False,
        )
        deadline = began + self.move_seconds
        poll = settings.ARENA_HUMAN_POLL_SECONDS
        while True:
            answered, action, resigned = rows.values_list("answered", "action", "resigned").get()
            wall_ms = int((time.monotonic() - began) * 1000)
            if resigned:
                self._end_turn()
                return ActResult(None, Fault("resigned", f"resigned on move {move}"), wall_ms, None)
            if answered:
                self._end_turn()
                return ActResult(action, None, wall_ms, None)
            if time.monotonic() >= deadline:
                self._end_turn()
                reason = f"did not move within {self.move_seconds} s on move {move}"
                return ActResult(None, Fault("timeout", reason), wall_ms, None)
            self.beat()
            time.sleep(poll)

    def _end_turn(self) -> None:
        HumanGame.objects.filter(pk=self.human_game_id).update(
            turn=None, legal=None, turn_deadline=None, action=None, answered=False
        )

    def beat(self, *, now: bool = False) -> None:
        """Keep the claim's heartbeat fresh while the person thinks; ClaimLost when another
        worker has taken the game over."""
        if not now and time.monotonic() - self.last_beat < HEARTBEAT_EVERY_SECONDS:
            return
        self.last_beat = time.monotonic()
        if not Match.objects.filter(
            pk=self.match_id, attempts=self.attempt, status=Match.Status.RUNNING
        ).update(heartbeat_at=timezone.now()):
            raise ClaimLost(f"match {self.match_id}: attempt {self.attempt} no longer holds it")

    def end(self, result: dict) -> None:
        pass

    def close(self) -> None:
        pass


def play_human_game(*, match_id: int) -> bool:
    """What a worker's task runs: claim the game, play it (on from its recorded moves
    after a worker died), record it. True when this call recorded it."""
    attempt = claim_match(match_id=match_id, human=True)
    if attempt is None:
        return False
    match = Match.objects.select_related("human_game__user").get(pk=match_id)
    human_game = match.human_game
    seats = list(
        MatchSeat.objects.filter(match_id=match_id)
        .select_related("version__bot", "user")
        .defer("version__upload")
        .order_by("seat")
    )
    game = registry.get(match.game)
    human: HumanPlayer | None = None
    players: list[Player] = []
    try:
        for seat in seats:
            if seat.user_id is not None:
                human = HumanPlayer(
                    human_game=human_game, match_id=match_id, attempt=attempt,
                    label=person_label(seat.user),
                )  # fmt: skip
                players.append(human)
            elif seat.policy:
                players.append(
                    BuiltinPlayer(game, seat.policy, derive_seed(match.seed, "seat", seat.seat))
                )
            else:
                players.append(
                    ProgramPlayer(
                        bot_services.version_dir(version=seat.version), Limits(),
                        label=seat.version.label,
                    )
                )  # fmt: skip
        assert human is not None, f"match {match_id} has no person's seat"

        stored_faults = dict(human_game.faults or {})
        stored_at = [0.0]

        def keep_position(state, moves: list[dict], faults: dict[int, Fault]) -> None:
            # Before each of the person's turns, and while the bots play at most every
            # POSITION_EVERY_SECONDS: a thousand instant moves cost a few writes, not a
            # thousand growing ones.
            due = time.monotonic() - stored_at[0] >= POSITION_EVERY_SECONDS
            if not due and human_game.seat not in state.to_act():
                return
            _store_position(match_id, attempt, state, moves)
            stored_at[0] = human.last_beat = time.monotonic()  # a heartbeat too
            now = {str(seat): fault.to_dict() for seat, fault in faults.items()}
            if now != stored_faults:  # rare: written only when a seat faults
                HumanGame.objects.filter(pk=human_game.pk).update(
                    faults=now,
                    fault_details={str(seat): fault.detail for seat, fault in faults.items()},
                )
                stored_faults.clear()
                stored_faults.update(now)

        outcome = run_match(
            game_slug=match.game,
            players=players,
            options=match.options,
            seed=match.seed,
            clock=Clock(move_ms=match.move_ms, bank_ms=match.bank_ms),
            seat_clocks={
                human_game.seat: Clock(
                    move_ms=human_game.move_seconds * 1000 + CLOCK_SLACK_MS, bank_ms=0
                )
            },
            on_position=keep_position,
            resume=match.moves or None,
            resume_faults=_stored_faults(human_game),
        ).to_dict()
    except ClaimLost:
        log.warning("match %s attempt %s: another worker took the game over", match_id, attempt)
        return False
    except Exception as exc:  # the host failed, not a bot nor the person: give it back
        log.exception("game against people %s attempt %s could not be played", match_id, attempt)
        release_attempt(match_id, attempt, f"{type(exc).__name__}: {exc}", human=True)
        raise
    return record_result(
        match_id=match_id, attempt=attempt, outcome=outcome, match=match, seats=seats
    )


def person_label(user) -> str:
    return f"{user.username} (person)"


def _store_position(match_id: int, attempt: int, state, moves: list[dict]) -> None:
    """The position for the page and for a worker that takes over: the moves so far and
    the record, with a heartbeat, in one UPDATE made only while this attempt holds the
    game."""
    updated = Match.objects.filter(
        pk=match_id, attempts=attempt, status=Match.Status.RUNNING
    ).update(moves=moves, record=state.to_json(), heartbeat_at=timezone.now())
    if not updated:
        raise ClaimLost(f"match {match_id}: attempt {attempt} no longer holds it")


def _stored_faults(human_game: HumanGame) -> dict[int, Fault]:
    faults = {}
    for seat, fault in (human_game.faults or {}).items():
        detail = (human_game.fault_details or {}).get(seat, "")
        faults[int(seat)] = Fault(
            fault["kind"], fault["reason"], move=fault.get("move"), detail=detail
        )
    return faults
