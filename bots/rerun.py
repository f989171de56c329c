"""Re-running a recorded match (``python manage.py replay <match file>``): play it again
and check that every move and the result come out the same.

A match file is what ``manage.py play --json`` prints or what the API answers for a match
(``GET /api/matches/<id>/``): game, engine version, seed, options, clock, moves, result.
Each seat is played, in this order of preference, by the file given with ``--bot
SEAT=FILE``; by the bot the local record names (``play --json`` keeps the command line's
bots) when it is a built-in or a file that is still there; or by its recorded moves. A seat
played from the record checks nothing about that seat's bot, only that the record is legal
and leads to its result: give your own bot's file to check your bot.

The first move that differs is reported with each side's action; moves count from 1, as
on the match page. Times are not compared (a machine is never as fast twice).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from bots.cli import PlayError
from bots.players import FAULT_KINDS, ActResult, Fault, Player, resolve_player
from bots.runner import Clock, MatchOutcome, play_match
from bots.sandbox import Limits, SandboxUnavailable
from bots.validation import UploadRejected
from bots.wire import short
from games import registry
from games.protocol import InvalidOptions


@dataclass
class Record:
    """A match file, whichever of the two shapes it came in."""

    game: str
    version: int | None
    seed: int
    options: dict
    clock: Clock
    moves: list[dict]
    result: dict
    labels: list[str]
    bots: list[str] | None = None  # the command line of a local ``play --json``


def load_record(data: object) -> Record:
    """A :class:`Record` from parsed JSON; PlayError saying what is missing otherwise."""
    if not isinstance(data, dict):
        raise PlayError("not a match record: the file holds no JSON object")
    if data.get("hidden") is True:  # the API's answer while the record is kept from you
        raise PlayError(
            "the match's record was hidden from whoever saved this file (its tournament's "
            "record_visibility): save it again once the record is shown"
        )
    missing = [key for key in ("game", "seed", "moves", "result") if data.get(key) is None]
    if missing:
        raise PlayError(f"not a finished match record: no {', '.join(missing)}")
    seats = data["result"].get("seats") if isinstance(data["result"], dict) else None
    if not isinstance(seats, list) or not isinstance(data["moves"], list):
        raise PlayError("not a finished match record: result.seats and moves must be lists")
    clock = data.get("clock") or {}
    labels = data.get("players") or [
        s.get("bot") or f"seat {i}" for i, s in enumerate(data.get("seats") or seats)
    ]
    try:
        return Record(
            game=str(data["game"]),
            version=data.get("version", data.get("engine_version")),
            seed=int(data["seed"]),
            options=dict(data.get("options") or {}),
            clock=Clock(
                move_ms=int(clock.get("move_ms", data.get("move_ms", 1000))),
                bank_ms=int(clock.get("bank_ms", data.get("bank_ms", 10000))),
            ),
            moves=data["moves"],
            result=data["result"],
            labels=[str(label) for label in labels],
            bots=data.get("bots"),
        )
    except (TypeError, ValueError) as exc:
        raise PlayError(f"not a match record: {exc}") from None


def read_record(path: str) -> Record:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PlayError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlayError(f"{path} is not JSON: {exc}") from None
    return load_record(data)


class RecordedPlayer:
    """A seat that plays what the record says it played, and faults where it faulted."""

    def __init__(self, seat: int, record: Record):
        self.seat = seat
        self.record = record
        self.label = f"{record.labels[seat]} (recorded)"
        self.fault = record.result["seats"][seat].get("fault")

    def _recorded_fault(self) -> Fault:
        kind = self.fault.get("kind") if self.fault else None
        reason = self.fault.get("reason", "") if self.fault else ""
        return Fault(kind if kind in FAULT_KINDS else "crashed", f"as recorded: {reason}")

    def start(self, info: dict) -> Fault | None:
        if self.fault and self.fault.get("move") is None:
            return self._recorded_fault()
        return None

    def act(self, observation: dict, legal: list, clock: dict, *, move: int) -> ActResult:
        index = move - 1
        recorded = self.record.moves[index] if index < len(self.record.moves) else None
        actions = (recorded or {}).get("actions") or {}
        if str(self.seat) not in actions:
            return ActResult(
                None,
                Fault("protocol", f"the record has no action of seat {self.seat} on move {move}"),
                0,
                None,
            )
        if self.seat in (recorded or {}).get("defaulted", []):
            return ActResult(None, self._recorded_fault(), 0, None)
        return ActResult(actions[str(self.seat)], None, 0, None)

    def end(self, result: dict) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class Report:
    record: Record
    outcome: MatchOutcome
    seats: list[str]  # how each seat was played
    differences: list[str] = field(default_factory=list)
    first_move: int | None = None  # 1-based number of the first differing move

    @property
    def same(self) -> bool:
        return not self.differences


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def first_difference(recorded: list[dict], played: list[dict]) -> tuple[int, str] | None:
    """(1-based move number, what differs) of the first move that is not the same."""
    for index, (old, new) in enumerate(zip_longest(recorded, played)):
        number = index + 1
        if old is None:
            return number, (
                f"move {number}: the replay goes on ({short(new['actions'])}) "
                f"where the record ended after {len(recorded)} moves"
            )
        if new is None:
            return number, (
                f"move {number}: the replay ended after {len(played)} moves; "
                f"the record goes on with {short(old.get('actions'))}"
            )
        old_actions, new_actions = old.get("actions") or {}, new["actions"]
        for seat in sorted(set(old_actions) | set(new_actions), key=int):
            if seat not in new_actions:
                return number, f"move {number}: seat {seat} does not act here in the replay"
            if seat not in old_actions:
                return (
                    number,
                    f"move {number}: seat {seat} acts here in the replay, not in the record",
                )
            if _canonical(old_actions[seat]) != _canonical(new_actions[seat]):
                return number, (
                    f"move {number}: seat {seat} played {short(new_actions[seat])} here, "
                    f"the record has {short(old_actions[seat])}"
                )
        old_default = sorted(old.get("defaulted") or [])
        new_default = sorted(new.get("defaulted") or [])
        if old_default != new_default:
            return number, (
                f"move {number}: played by default here for seat(s) {new_default or 'none'}, "
                f"in the record for {old_default or 'none'}"
            )
    return None


def result_differences(recorded: dict, played: dict) -> list[str]:
    out = []
    for seat, (old, new) in enumerate(zip_longest(recorded["seats"], played["seats"])):
        if old is None or new is None:
            out.append(
                f"result: the record has {len(recorded['seats'])} seats, the replay {len(played['seats'])}"
            )
            break
        for key in ("score", "rank"):
            if old.get(key) != new.get(key):
                out.append(
                    f"result: seat {seat} {key} {new.get(key)} here, {old.get(key)} in the record"
                )
        old_fault = (old.get("fault") or {}).get("kind")
        new_fault = (new.get("fault") or {}).get("kind")
        if old_fault != new_fault:
            out.append(
                f"result: seat {seat} fault {new_fault or 'none'} here, "
                f"{old_fault or 'none'} in the record"
                + (f" ({new['fault']['reason']})" if new.get("fault") else "")
            )
    return out


def parse_bots(items: list[str], players: int) -> dict[int, str]:
    """``--bot SEAT=FILE`` options."""
    chosen: dict[int, str] = {}
    for item in items:
        seat, sep, spec = item.partition("=")
        if not sep or not seat.strip().isdigit() or not spec:
            raise PlayError(f"--bot takes SEAT=FILE, got {item!r}")
        number = int(seat)
        if number >= players:
            raise PlayError(f"--bot {item}: the match has seats 0 to {players - 1}")
        chosen[number] = spec
    return chosen


def rerun(
    record: Record, bots: dict[int, str] | None = None, limits: Limits | None = None
) -> Report:
    """Play ``record`` again and compare; PlayError for a record or bot that cannot be played."""
    try:
        game = registry.get(record.game)
    except registry.UnknownGame as exc:
        raise PlayError(str(exc)) from None
    count = len(record.result["seats"])
    try:
        game.check_players(count)
        game.new_match(players=count, options=record.options, seed=record.seed)
    except InvalidOptions as exc:
        raise PlayError(f"the record's match cannot be set up here: {exc}") from None
    bots = dict(bots or {})
    players: list[Player] = []
    how: list[str] = []
    try:
        for seat in range(count):
            spec = bots.get(seat)
            if spec is None and record.bots and seat < len(record.bots):
                named = record.bots[seat]
                if named in game.policies or Path(named).exists():
                    spec = named
            if spec is None and record.labels[seat] in game.policies:
                spec = record.labels[seat]
            if spec is None:
                players.append(RecordedPlayer(seat, record))
                how.append(f"its recorded moves ({record.labels[seat]})")
                continue
            players.append(
                resolve_player(spec, game=game, seat=seat, seed=record.seed, limits=limits)
            )
            how.append("built-in " + spec if spec in game.policies else spec)
        outcome = play_match(
            game_slug=game.slug, players=players, options=record.options, seed=record.seed,
            clock=record.clock,
        )  # fmt: skip
    except UploadRejected as exc:
        raise PlayError(f"bot refused: {exc.reason}") from None
    except (ValueError, SandboxUnavailable) as exc:
        raise PlayError(str(exc)) from None
    finally:
        for player in players:
            player.close()
    report = Report(record=record, outcome=outcome, seats=how)
    played = json.loads(json.dumps(outcome.moves))  # the record's JSON types
    found = first_difference(record.moves, played)
    if found is not None:
        report.first_move, text = found
        report.differences.append(text)
    report.differences += result_differences(record.result, outcome.result)
    return report


def describe(report: Report) -> str:
    record = report.record
    lines = [
        f"replaying {record.game} v{record.version} (here v{report.outcome.version}), "
        f"seed {record.seed}, {len(record.moves)} moves recorded"
    ]
    if record.version is not None and record.version != report.outcome.version:
        lines.append(
            "  note: the engine version changed since; the rules may differ, and with them the moves"
        )
    for seat, how in enumerate(report.seats):
        lines.append(f"  seat {seat}: {how}")
    if report.same:
        lines.append(f"same: all {len(record.moves)} moves and the result are those of the record")
    else:
        where = (
            f"first difference at move {report.first_move}"
            if report.first_move is not None
            else "the moves are the same"
        )
        lines.append(f"DIFFERENT ({where}):")
        lines += [f"  {text}" for text in report.differences]
        if report.first_move is not None and report.first_move > 1:
            lines.append(f"  (moves 1 to {report.first_move - 1} are the same)")
    log_seats = [s for s, log in enumerate(report.outcome.logs) if log]
    for seat in log_seats:
        lines.append(f"--- log of seat {seat} ({report.outcome.players[seat]}) ---")
        lines.append(report.outcome.logs[seat].rstrip("\n"))
    return "\n".join(lines)
