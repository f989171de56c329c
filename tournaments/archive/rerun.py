"""Rerunning one archived match (playing it again from its record) through its game's
engine: every recorded move applied from the deal seed, each acting seat and legal action
checked, seats played by default after their recorded faults, the recorded times held to
the clock, and the result ranked as the runner ranks it (``games.faults.rank_with_faults``)
compared seat by seat."""

from __future__ import annotations

from dataclasses import dataclass

from games import registry
from games.faults import FAULT_KINDS, rank_with_faults
from games.protocol import IllegalAction, InvalidOptions, is_legal
from tournaments.archive.discrepancy import Discrepancy, canonical, match_label, short


@dataclass(frozen=True)
class Fault:
    """A seat's recorded fault: its kind and the index of the move it happened on (None:
    before the first)."""

    kind: str
    reason: str
    move: int | None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "reason": self.reason, "move": self.move}


def rerun_match(match: dict) -> int:
    """Rerun a finished match from its deal seed and compare its result; the number of
    moves. :class:`Discrepancy` names the match, the move and the seat."""
    label = match_label(match)
    moves, result = match.get("moves"), match.get("result")
    if not isinstance(moves, list) or not isinstance(result, dict):
        raise Discrepancy(f"{label}: finished, but its moves or result are missing")
    seats = result.get("seats")
    if not isinstance(seats, list) or len(seats) != len(match.get("seats") or []):
        raise Discrepancy(f"{label}: its result does not have one entry per seat")
    try:
        game = registry.get(str(match.get("game")))
    except registry.UnknownGame:
        raise Discrepancy(f"{label}: the game {match.get('game')!r} is not in this Arena") from None
    if match.get("engine_version") != game.version:
        raise Discrepancy(
            f"{label}: played with {game.slug} engine version {match.get('engine_version')}, "
            f"this Arena has version {game.version}: verify with the Arena release of that "
            "engine version"
        )
    try:
        state = game.new_match(
            players=len(seats), options=match.get("options") or {}, seed=int(match["seed"])
        )
    except (InvalidOptions, TypeError, ValueError, KeyError) as exc:
        raise Discrepancy(f"{label}: the match cannot be set up: {exc}") from None
    faults = _recorded_faults(label, seats, len(moves))
    clock = _Clock(label, match, len(seats))
    for index, move in enumerate(moves):
        number = index + 1
        where = f"{label} move {number}"
        acting = set(state.to_act())
        if not acting:
            raise Discrepancy(f"{where}: the match was already over; the record goes on")
        actions = (move or {}).get("actions") if isinstance(move, dict) else None
        if not isinstance(actions, dict):
            raise Discrepancy(f"{where}: no actions")
        try:
            chosen = {int(seat): action for seat, action in actions.items()}
        except ValueError:
            raise Discrepancy(f"{where}: a seat that is not a number") from None
        if set(chosen) != acting:
            raise Discrepancy(
                f"{where}: seats {sorted(chosen)} act in the record, the engine asks "
                f"{sorted(acting)}"
            )
        defaulted = set(move.get("defaulted") or [])
        for seat in sorted(acting):
            fault = faults.get(seat)
            out = fault is not None and (fault.move is None or fault.move <= index)
            if out != (seat in defaulted):
                if seat in defaulted:
                    raise Discrepancy(
                        f"{where}: seat {seat} is played by default, but its result records "
                        + (f"its fault on move {fault.move + 1}" if fault else "no fault")
                    )
                raise Discrepancy(
                    f"{where}: seat {seat} chose an action after its fault "
                    f"({fault.kind if fault else ''}) on move "
                    f"{fault.move + 1 if fault and fault.move is not None else 'start'}"
                )
            if out:
                default = state.default_action(seat)
                if canonical(chosen[seat]) != canonical(default):
                    raise Discrepancy(
                        f"{where}: seat {seat} is played by default, whose action is "
                        f"{short(default)}, not {short(chosen[seat])}"
                    )
                continue
            if not is_legal(chosen[seat], state.legal_actions(seat)):
                raise Discrepancy(
                    f"{where}: seat {seat} played {short(chosen[seat])}, not a legal action there"
                )
        clock.check(number, index, move, acting, faults)
        try:
            state.apply(chosen)
        except IllegalAction as exc:  # pragma: no cover - each action was checked above
            raise Discrepancy(f"{where}: {exc}") from None
    if state.to_act():
        raise Discrepancy(
            f"{label}: the record ends after {len(moves)} moves, before the match is over"
        )
    labels = [str(s.get("bot", f"seat {i}")) for i, s in enumerate(seats)]
    replayed = rank_with_faults(state.result(), faults, labels)
    _compare_results(label, result, replayed)
    return len(moves)


def _recorded_faults(label: str, seats: list, moves: int) -> dict[int, Fault]:
    faults = {}
    for index, seat in enumerate(seats):
        fault = seat.get("fault") if isinstance(seat, dict) else None
        if not fault:
            continue
        kind, move = fault.get("kind"), fault.get("move")
        if kind not in FAULT_KINDS or not (move is None or isinstance(move, int) and move >= 0):
            raise Discrepancy(
                f"{label}: seat {index}'s fault {fault!r} is not one the runner records"
            )
        if move is not None and move >= moves:
            raise Discrepancy(f"{label}: seat {index} faulted on move {move + 1} of {moves}")
        faults[index] = Fault(kind, str(fault.get("reason", "")), move)
    return faults


class _Clock:
    """The runner's time control over the recorded times: a move within ``move_ms`` plus
    what is left of the bank; a timeout beyond it. Records without times are not checked."""

    def __init__(self, label: str, match: dict, seats: int):
        self.label = label
        self.move_ms = match.get("move_ms")
        bank = match.get("bank_ms")
        self.banks = [bank] * seats
        self.on = isinstance(self.move_ms, int) and isinstance(bank, int)

    def check(self, number: int, index: int, move: dict, acting: set, faults: dict) -> None:
        times = move.get("ms")
        if not self.on or not isinstance(times, dict):
            return
        for seat in sorted(acting):
            wall = times.get(str(seat))
            if not isinstance(wall, int):
                continue  # a seat that was out already is not timed
            over = wall - self.move_ms
            fault = faults.get(seat)
            if fault is not None and fault.move == index:
                if fault.kind == "timeout" and over <= self.banks[seat]:
                    raise Discrepancy(
                        f"{self.label} move {number}: seat {seat} is recorded as timed out after "
                        f"{wall} ms, within its {self.move_ms} ms and {self.banks[seat]} ms of bank"
                    )
                continue
            if fault is not None and (fault.move is None or fault.move < index):
                continue
            if over > self.banks[seat]:
                raise Discrepancy(
                    f"{self.label} move {number}: seat {seat} took {wall} ms, beyond its "
                    f"{self.move_ms} ms and {self.banks[seat]} ms of bank, yet no timeout is "
                    "recorded"
                )
            self.banks[seat] -= max(0, over)


def _compare_results(label: str, recorded: dict, replayed: dict) -> None:
    for index, (old, new) in enumerate(zip(recorded["seats"], replayed["seats"])):
        if not isinstance(old, dict):
            raise Discrepancy(f"{label}: seat {index}'s result is not an object")
        for key in sorted(set(old) | set(new)):
            if key in ("bot", "fault"):
                continue
            if old.get(key) != new.get(key):
                raise Discrepancy(
                    f"{label}: seat {index} {key} is {short(old.get(key))} in the archive; "
                    f"the replay gives {short(new.get(key))}"
                )
        old_fault, new_fault = old.get("fault") or {}, new.get("fault") or {}
        for key in ("kind", "move"):
            if old_fault.get(key) != new_fault.get(key):
                raise Discrepancy(
                    f"{label}: seat {index} fault {key} is {old_fault.get(key)!r} in the "
                    f"archive; the replay gives {new_fault.get(key)!r}"
                )
    for key in sorted(set(recorded) | set(replayed)):
        if key != "seats" and canonical(recorded.get(key)) != canonical(replayed.get(key)):
            raise Discrepancy(
                f"{label}: result {key} is {short(recorded.get(key))} in the archive; the "
                f"replay gives {short(replayed.get(key))}"
            )
