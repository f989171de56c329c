"""Plays one match between players and returns everything needed to replay it.

The time control (:class:`Clock`): on each move a seat has ``move_ms`` for free; time beyond
it is drawn from the seat's bank (``bank_ms`` for the whole match). A move that takes longer
than ``move_ms`` + what is left in the bank is a timeout. The bot is told both numbers in
every ``act`` (``"clock": {"move_ms": ..., "bank_ms": <left>}``).

Faults: a seat that faults is closed at once and played out by ``state.default_action``;
the other seats play on, so their results still mean something. In the final result the
faulted seats rank last and share that rank; the others are re-ranked among themselves by
their engine rank (ties still share). In a team game a fault of any member puts the whole
team last (a team shares one result). The engine's own rank stays in ``engine_rank``.
A fault's ``reason`` and ``move`` are in the result, for everyone; its ``detail`` (what the
bot wrote) is in ``fault_details``, beside the logs, for the bot's owner only.
``play_match`` never raises because of a bot; it raises for a bad game, options or player
count, and :class:`bots.sandbox.SandboxUnavailable` when a program cannot be run safely.

A match can be resumed (``resume``): the moves recorded so far are applied without asking
anyone, the seats that had faulted stay out, and the others are started afresh and asked
from the next move on. A game a person plays continues that way on another worker after
its worker died; a bot started mid-game sees only the observation of the move it is
asked, as every bot does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bots import metrics
from bots.players import BuiltinPlayer, Fault, Player, ProgramPlayer
from bots.sandbox import Limits
from bots.sandbox.slots import BotTooLarge
from bots.wire import DETAIL_CHARS, short
from games import registry
from games.faults import rank_with_faults
from games.protocol import is_legal

if TYPE_CHECKING:
    from games.protocol import State

# Called with the state, the moves so far and the faults so far: before the first move
# and after each one.
PositionHook = Callable[["State", list[dict], dict[int, Fault]], None]


@dataclass
class Clock:
    move_ms: int = 1000
    bank_ms: int = 10000

    def to_dict(self) -> dict:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms}


@dataclass
class MatchOutcome:
    game: str
    version: int
    seed: int
    players: list[str]
    options: dict
    clock: dict
    result: dict
    moves: list[dict] = field(default_factory=list)
    record: dict = field(default_factory=dict)
    # Each seat's stderr (bounded, see bots.wire.BoundedLog); None for a built-in policy.
    # Only the bot's owner may read it: never part of ``result``, which everyone sees.
    logs: list[str | None] = field(default_factory=list)
    # Each seat's fault detail (``Fault.detail``: what the bot wrote that shows why), ""
    # for none. Its owner's only, like the logs.
    fault_details: list[str] = field(default_factory=list)

    @property
    def faults(self) -> dict[int, dict]:
        return {i: s["fault"] for i, s in enumerate(self.result["seats"]) if s["fault"]}

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "version": self.version,
            "seed": self.seed,
            "players": list(self.players),
            "options": dict(self.options),
            "clock": dict(self.clock),
            "result": self.result,
            "moves": self.moves,
            "record": self.record,
            "logs": list(self.logs),
            "fault_details": list(self.fault_details),
        }


def play_match(
    *,
    game_slug: str,
    players: list[Player],
    options: dict,
    seed: int,
    clock: Clock | None = None,
    on_move: Callable[[int], None] | None = None,
    while_starting: Callable[[], None] | None = None,
    leave_open: bool = False,
    seat_clocks: dict[int, Clock] | None = None,
    on_position: PositionHook | None = None,
    resume: list[dict] | None = None,
    resume_faults: dict[int, Fault] | None = None,
) -> MatchOutcome:
    """Play the match out. ``while_starting`` runs once every seat has been started and
    before the runner waits for their "ready" (a worker prepares its next match's sandboxes
    there, bots/held_sandboxes.py): the seats' allowances run meanwhile, and a "ready" that arrives
    then counts as on time.

    ``leave_open``: a match played to its end returns with its seats not closed yet, each
    told "end" (its stdin closed) and exiting on its own, so the caller's work overlaps
    their exits (a worker records the result meanwhile). The caller then takes their logs
    (:func:`seat_logs`, the logs the runner would have returned) and must close them
    (:func:`close_players`); ``logs`` stays empty. If the match raises, the seats are
    closed here.

    ``seat_clocks``: a seat's own time control instead of ``clock`` (a person's minutes).
    ``on_position``: see :data:`PositionHook`. ``resume`` and ``resume_faults``: the moves
    and faults of an earlier start of this match, to go on from (see the module).
    """
    clock = clock or Clock()
    game = registry.get(game_slug)
    count = len(players)
    state = game.new_match(players=count, options=options, seed=seed)
    teams = game.teams(count, state.options)
    faults: dict[int, Fault] = dict(resume_faults or {})
    clocks = [(seat_clocks or {}).get(seat, clock) for seat in range(count)]
    banks = [c.bank_ms for c in clocks]
    moves: list[dict] = []
    for move in resume or []:  # the recorded part of a resumed match: nobody is asked
        state.apply({int(seat): action for seat, action in move["actions"].items()})
        moves.append(move)

    # Seats that can be paused. A bot is paused only while another such seat thinks: built-in
    # policies answer in microseconds, so pausing for them would only cost time.
    programs = [seat for seat, p in enumerate(players) if hasattr(p, "pause")]
    played = False

    try:
        # Every program seat's sandbox is built first (ProgramPlayer.prepare): their cgroup
        # moves and bubblewrap set-ups overlap. Then every program is released and sent
        # "start" before the runner waits for any "ready" (begin_start, finish_start), so
        # the interpreters' start-ups overlap too. Each seat still has its own start-up
        # allowance, counted from its own release, its own faults, and pauses once ready.
        for seat in faults:
            players[seat].close()  # faulted before a resume: never started again
        began = time.monotonic()
        for seat, player in enumerate(players):
            if seat not in faults and hasattr(player, "prepare"):
                player.prepare()
        starting: list[int] = []
        for seat, player in enumerate(players):
            if seat in faults:
                continue
            info = {
                "game": game.slug, "version": game.version, "seat": seat, "players": count,
                "options": state.options, "teams": teams, "clock": clocks[seat].to_dict(),
            }  # fmt: skip
            # A launch that fails for the host's reasons (no sandbox, no free uid, a missing
            # directory) raises: the match is the host's to retry, not the bot's to lose.
            try:
                if hasattr(player, "begin_start"):
                    player.begin_start(info)
                    starting.append(seat)
                    continue
                started = player.start(info)
            except BotTooLarge as exc:
                started = Fault("crashed", f"could not be started: {exc}")
            _note_start(seat, started, players, faults)
        if while_starting is not None:
            while_starting()
        for seat in starting:
            _note_start(seat, players[seat].finish_start(), players, faults)  # type: ignore[attr-defined]
        if starting:
            metrics.sandboxes_started(seconds=time.monotonic() - began)
        if on_position is not None:
            on_position(state, moves, faults)
        while acting := state.to_act():
            actions, wall, cpu, defaulted = {}, {}, {}, []
            for seat in acting:  # each seat sees only its own observation: no peeking
                if seat not in faults:
                    for other in programs:  # nobody thinks on another program's time
                        if other != seat and other not in faults:
                            players[other].pause()  # type: ignore[attr-defined]
                    legal = state.legal_actions(seat)
                    move_ms = clocks[seat].move_ms
                    seat_clock = {"move_ms": move_ms, "bank_ms": banks[seat]}
                    # Moves are numbered as the replay viewer shows them: the match's
                    # move list from 1 (a fault's ``move`` is that number less one).
                    number = len(moves) + 1
                    answer = players[seat].act(
                        state.observation(seat), legal, seat_clock, move=number
                    )
                    wall[str(seat)] = answer.wall_ms
                    cpu[str(seat)] = answer.cpu_ms
                    problem = answer.fault
                    over = answer.wall_ms - move_ms
                    if problem is None and over > banks[seat]:
                        problem = Fault(
                            "timeout", f"timed out on move {number} after {answer.wall_ms}"
                            f" ms (move {move_ms} ms + bank {banks[seat]} ms)",
                        )  # fmt: skip
                    if problem is None and not is_legal(answer.action, legal):
                        problem = Fault(
                            "illegal",
                            f"answered an action not in legal on move {number}",
                            detail=short(answer.action, DETAIL_CHARS),
                        )
                    if problem is None:
                        banks[seat] -= max(0, over)
                        actions[seat] = answer.action
                        continue
                    problem.move = len(moves)
                    faults[seat] = problem
                    players[seat].close()  # the whole tree dies now, not at match end
                actions[seat] = state.default_action(seat)
                defaulted.append(seat)
            state.apply(actions)
            moves.append({
                "actions": {str(s): a for s, a in sorted(actions.items())},
                "ms": wall, "cpu_ms": cpu, "defaulted": defaulted,
            })  # fmt: skip
            if on_move is not None:
                on_move(len(moves))
            if on_position is not None:
                on_position(state, moves, faults)
        result = rank_with_faults(state.result(), faults, [p.label for p in players])
        for seat, player in enumerate(players):
            if seat not in faults:
                player.end(result)
        played = True
    finally:
        if not (leave_open and played):
            close_players(players)
    return MatchOutcome(
        game=game.slug, version=game.version, seed=seed, players=[p.label for p in players],
        options=dict(state.options), clock=clock.to_dict(), result=result, moves=moves,
        record=state.to_json(), logs=[] if leave_open else [getattr(p, "log", None) for p in players],
        fault_details=[faults[seat].detail if seat in faults else "" for seat in range(count)],
    )  # fmt: skip


def close_players(players: list[Player]) -> list[str | None]:
    """Close every seat (a closed one again is a no-op); each seat's log, None for a
    built-in policy."""
    for player in players:
        player.close()
    return [getattr(p, "log", None) for p in players]


def seat_logs(players: list[Player]) -> list[str | None]:
    """Each seat's log, taken now as ``close_players`` would (a program's stderr, see
    ``ProgramPlayer.take_log``; None for a built-in policy), the seats left open."""
    return [p.take_log() if hasattr(p, "take_log") else getattr(p, "log", None) for p in players]


def _note_start(seat: int, started: Fault | None, players: list[Player], faults: dict) -> None:
    """A seat that failed to start is that seat's fault, before the first move; it is
    closed at once."""
    if started is not None:
        started.move = None
        faults[seat] = started
        players[seat].close()


def validation_match(
    bot_dir: Path,
    *,
    game_slug: str,
    limits: Limits | None = None,
    clock: Clock | None = None,
    players: int | None = None,
    options: dict | None = None,
) -> tuple[bool, str, str]:
    """Play the bot against built-in random bots (first seat, then last seat) in the sandbox,
    ``players`` seats (default: the game's fewest) under ``options`` (default: none set).

    (True, "", "") when it finishes both without a fault, else (False, the fault's reason,
    its detail: what the bot wrote, for its owner only).
    Raises SandboxUnavailable when programs cannot be run safely on this machine.
    """
    game = registry.get(game_slug)
    count = players or game.min_players
    policy = "random" if "random" in game.policies else sorted(game.policies)[0]
    for n, seat in enumerate(sorted({0, count - 1})):
        seats: list[Player] = [BuiltinPlayer(game, policy, 1000 + n * 10 + i) for i in range(count)]
        seats[seat] = ProgramPlayer(Path(bot_dir), limits or Limits(), label="candidate")
        outcome = play_match(
            game_slug=game_slug, players=seats, options=options or {}, seed=n + 1, clock=clock
        )
        problem = outcome.result["seats"][seat]["fault"]
        if problem is not None:
            reason = f"in a test match as seat {seat}, the bot {problem['reason']}"
            return False, reason, outcome.fault_details[seat]
    return True, "", ""
