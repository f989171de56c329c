"""Seats of a match: built-in policies (trusted, in process) and programs (sandboxed).

Every player answers ``act`` with an :class:`ActResult`; a program that misbehaves gets a
:class:`Fault` instead of an action, and never makes the host raise. The runner then closes
it and plays its seat with ``state.default_action``.
"""

from __future__ import annotations

import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bots import held_sandboxes, sandbox
from bots.sandbox import Limits, botprocess, slots
from bots.sandbox.slots import BotTooLarge
from bots.wire import DETAIL_CHARS, STDERR_TAIL, Channel, WireError, short, storable
from games.faults import FAULT_KINDS
from games.protocol import Game
from games.rng import Rng, derive_seed


@dataclass
class Fault:
    """Why a seat was stopped. ``reason`` says what happened, for everyone to read: never
    text the bot wrote. ``detail`` is what the bot wrote that shows why (its stderr's last
    lines for a crash, the line or the action it answered), for its owner only: never part
    of the public ``to_dict``. Both hold only text a database stores."""

    kind: str
    reason: str
    move: int | None = None  # index into the match's move list; None = before the first move
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}")
        self.reason = storable(self.reason)
        self.detail = storable(self.detail)

    def to_dict(self) -> dict:
        """The public part: kind, reason and move (the replay viewer's move ``move + 1``)."""
        return {"kind": self.kind, "reason": self.reason, "move": self.move}


@dataclass
class ActResult:
    action: Any
    fault: Fault | None
    wall_ms: int
    cpu_ms: int | None


class Player(Protocol):
    label: str

    def start(self, info: dict) -> Fault | None: ...

    def act(self, observation: dict, legal: list, clock: dict, *, move: int) -> ActResult:
        """The seat's action for the match's move number ``move`` (1 for the first move,
        as the replay viewer numbers them), or a fault naming that move."""
        ...

    def end(self, result: dict) -> None: ...

    def close(self) -> None: ...


class BuiltinPlayer:
    """A game's own policy (``game.policies[name]``), seeded per seat: trusted, no sandbox."""

    def __init__(self, game: Game, policy_name: str, seed: int):
        if policy_name not in game.policies:
            known = ", ".join(sorted(game.policies))
            raise ValueError(f"{game.slug} has no built-in bot {policy_name!r}; known: {known}")
        self.label = policy_name
        self.policy = game.policies[policy_name]
        self.rng = Rng(derive_seed(seed, "policy", policy_name))

    def start(self, info: dict) -> Fault | None:
        return None

    def act(self, observation: dict, legal: list, clock: dict, *, move: int) -> ActResult:
        began = time.perf_counter()
        try:
            action = self.policy(observation, legal, self.rng)
            fault = None
        except Exception as exc:  # a broken policy must not take the match down either
            action = None
            fault = Fault(
                "crashed",
                f"built-in policy raised {type(exc).__name__} on move {move}",
                detail=repr(exc),
            )
        return ActResult(action, fault, int((time.perf_counter() - began) * 1000), None)

    def end(self, result: dict) -> None:
        pass

    def close(self) -> None:
        pass


class ProgramPlayer:
    """``main.py`` from ``bot_dir``, run in the sandbox for the whole match."""

    def __init__(self, bot_dir: Path, limits: Limits | None = None, label: str = ""):
        self.bot_dir = Path(bot_dir)
        self.limits = limits or Limits()
        self.label = label or self.bot_dir.name
        self.box: sandbox.BotProcess | None = None
        self.channel: Channel | None = None
        self.cpu_used: int | None = None  # CPU ms at the end of the last move
        self.log: str | None = None  # its stderr (bounded), kept when it is closed
        self._ended = False
        self._cleanup: list = []
        self._prepare_error: BotTooLarge | None = None
        self._ready_by = 0.0  # monotonic time its start-up allowance ends (begin_start)
        self._start_error: WireError | None = None

    def _fault(self, error: WireError, during: str, waited_ms: int) -> Fault:
        """Turn a wire error into a fault, asking the sandbox which limit (if any) was hit."""
        box, channel = self.box, self.channel
        assert box is not None and channel is not None
        kind, reason = error.kind, error.reason
        if kind in ("crashed", "timeout", "output"):
            rc = box.wait(0.3) if kind == "crashed" else box.returncode
            # A crash's last words (a traceback, say) are its detail: the owner's only.
            tail = channel.stderr_tail(wait=0.2) if kind == "crashed" else ""
            hit = box.limit_hit(channel.stderr_tail(chars=4 * STDERR_TAIL) if tail else "")
            if hit == "memory":
                return Fault(
                    "memory",
                    f"exceeded the memory limit of {self.limits.memory_mb} MB {during}",
                    detail=tail,
                )
            if hit == "cpu":
                return Fault(
                    "cpu",
                    f"exceeded the CPU limit of {self.limits.cpu_seconds} s {during}",
                    detail=tail,
                )
            if hit == "processes":
                # A C fork bomb spins on its failing forks instead of dying as Python's does:
                # it times out, but the limit it ran into is the cause.
                then = f", then timed out after {waited_ms} ms" if kind == "timeout" else ""
                return Fault(
                    "processes",
                    f"hit the limit of {self.limits.processes} processes/threads {during}{then}",
                    detail=tail,
                )
            if kind == "crashed":
                how = _describe_exit(rc)
                said = reason if how is None else f"crashed with {how}"
                return Fault("crashed", f"{said} {during}", detail=tail)
            if kind == "timeout":
                closed = box.closed_stdio()
                if closed:
                    return Fault("crashed", f"closed its {closed} {during}")
                return Fault("timeout", f"timed out {during} after {waited_ms} ms")
        return Fault(kind, f"{reason} {during}", detail=error.detail)

    def prepare(self) -> None:
        """Build this seat's sandbox now and hold its program back until ``start``
        (``sandbox.prepare``): a runner prepares every seat of a match, or the next match's
        seats while one plays, and each ``start`` then costs little more than the program's
        own start-up. Nothing of the bot runs before ``start``; ``close`` disposes of an
        unused one. A spare built for this folder and limits (bots/held_sandboxes.py) is taken. A no-op where bots are not sandboxed (the program would start at once).
        A bot too large to stage is reported by ``start``, as without a prepare."""
        if self.box is not None or self._prepare_error is not None:
            return
        if not sandbox.sandbox_available():
            return
        self.box = held_sandboxes.take(self.bot_dir, self.limits)  # one built while a match started
        if self.box is not None:
            return
        try:
            self.box = sandbox.prepare(self.bot_dir, self.limits)
        except BotTooLarge as exc:
            self._prepare_error = exc

    def start(self, info: dict) -> Fault | None:
        self.begin_start(info)
        return self.finish_start()

    def begin_start(self, info: dict) -> None:
        """The first half of ``start``: the program starts (released, if prepared) and is
        sent "start"; ``finish_start`` waits for its "ready". The runner begins every seat's
        start before it waits for any, so the programs' start-ups overlap. Raises what
        ``start`` raises for the host's failures (and :class:`BotTooLarge`)."""
        if self._prepare_error is not None:
            raise self._prepare_error
        if self.box is None:
            self.box = sandbox.launch(self.bot_dir, self.limits)
        else:
            self.box.release()  # the start-up allowance runs from here
        proc = self.box.proc
        self.channel = Channel(
            proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno(),
            self.limits.line_bytes, self.limits.output_mb << 20,
        )  # fmt: skip
        self._ready_by = time.monotonic() + self.limits.start_ms / 1000
        self._start_error = None
        try:
            self.channel.queue({"type": "start", **info})  # what fits now; the rest in finish
        except WireError as error:
            self._start_error = error

    def finish_start(self) -> Fault | None:
        """The second half of ``start``: wait, until the start-up allowance counted from
        ``begin_start`` runs out, for "ready"; then pause the bot. A fault or None."""
        assert self.box is not None and self.channel is not None
        deadline = self._ready_by
        try:
            if self._start_error is not None:
                raise self._start_error
            self.channel.flush(deadline)
            # What the bot wrote while the runner waited for another seat counts even if
            # the runner only looks after this seat's allowance (that seat used up its own).
            self.channel.read_waiting()
            message = self.channel.recv(deadline)
        except WireError as error:
            return self._fault(error, "before it was ready", self.limits.start_ms)
        if message.get("type") != "ready":
            return Fault(
                "protocol",
                'answered something other than {"type":"ready"} to "start"',
                detail=short(message, DETAIL_CHARS),
            )
        self.box.pause()
        return None

    def act(self, observation: dict, legal: list, clock: dict, *, move: int) -> ActResult:
        assert self.box is not None and self.channel is not None
        during = f"on move {move}"
        allowed_ms = int(clock.get("move_ms", 0)) + int(clock.get("bank_ms", 0))
        try:
            if self.channel.unsolicited():
                raise WireError("protocol", "wrote a message nobody asked for (replied twice?)")
        except WireError as error:
            return ActResult(None, self._fault(error, during, 0), 0, 0)
        box, channel = self.box, self.channel
        cpu_before = self.cpu_used if self.cpu_used is not None else box.cpu_ms()
        began = time.monotonic()
        deadline = began + allowed_ms / 1000
        fault = None
        action = None
        if not box.stopped:
            box.resume()  # a lazy pause: its off-turn CPU is read before it wakes to the act
        try:
            try:
                channel.queue(
                    {"type": "act", "observation": observation, "legal": legal, "clock": clock}
                )
            finally:
                box.resume()  # after queueing: a stopped bot wakes up to a waiting message
            channel.flush(deadline)
            if botprocess.any_lazy_pause():
                # Other seats are only lazily paused: past a short grace, stop them for real.
                try:
                    message = channel.recv(min(deadline, began + botprocess.LAZY_GRACE_S))
                except WireError as error:
                    if error.kind != "timeout" or time.monotonic() >= deadline:
                        raise
                    botprocess.stop_lazy_pauses()
                    message = channel.recv(deadline)
            else:
                message = channel.recv(deadline)
            if message.get("type") != "action" or "action" not in message:
                raise WireError(
                    "protocol",
                    'answered something other than {"type":"action","action":...}',
                    short(message, DETAIL_CHARS),
                )
            action = message["action"]
        except WireError as error:
            fault = self._fault(error, during, allowed_ms)
        wall_ms = int((time.monotonic() - began) * 1000)
        # Whatever the bot burns after answering (it is paused only when another program
        # seat thinks) counts towards its next move: one cgroup read per move.
        cpu_after = self.cpu_used = self.box.cpu_ms()
        cpu_ms = None if cpu_before is None or cpu_after is None else max(0, cpu_after - cpu_before)
        if fault is None and cpu_after is not None and cpu_after > self.limits.cpu_seconds * 1000:
            fault = Fault("cpu", f"exceeded the CPU limit of {self.limits.cpu_seconds} s {during}")
        return ActResult(action, fault, wall_ms, cpu_ms)

    def pause(self) -> None:
        """Keep the bot from thinking while another seat does (the runner calls this): a
        lazy pause (see bots/sandbox/botprocess.py), a real one once it has computed off
        its turns."""
        if self.box is not None:
            self.box.pause(lazy=True)

    def end(self, result: dict) -> None:
        if self.box is None or self.channel is None or self.box.returncode is not None:
            return
        self.box.resume()
        try:  # a courtesy: the bot may log the result; we never wait for it
            self.channel.send({"type": "end", "result": result}, time.monotonic() + 0.2)
            self._ended = True
        except WireError:
            return
        # Its stdin is closed now, so one that reads until end of input (``for line in
        # sys.stdin``) exits at once instead of using up its moment in ``close`` (50 ms),
        # and meanwhile if the closing waits (a worker records the result first).
        if self.box.proc.stdin is not None:
            try:
                self.box.proc.stdin.close()
            except OSError:
                pass

    def take_log(self) -> str | None:
        """Its stderr, kept from now on as its log (taken once; ``close`` takes it if
        nobody did). A bot told the match ended usually logs a last line and exits: a
        moment for it."""
        if self.box is not None and self.channel is not None and self.log is None:
            self.log = self.channel.log_text(wait=0.05 if self._ended else 0.0)
        return self.log

    def kill(self) -> None:
        """Kill what is left of the bot, its log taken first; ``close`` still frees the rest."""
        self.take_log()
        if self.box is not None:
            self.box.kill()

    def close(self) -> None:
        self.take_log()
        if self.box is not None:
            self.box.close()
        for cleanup in self._cleanup:
            cleanup()
        self._cleanup.clear()


def _describe_exit(rc: int | None) -> str | None:
    if rc is None:
        return None
    # bwrap reports a child killed by a signal as 128 + signal; a plain Popen as -signal.
    sig = -rc if rc < 0 else rc - 128 if rc > 128 else None
    if sig:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"signal {name}"
    return f"exit code {rc}"


def _built_player(folder: Path | None, upload, limits: Limits | None, label: str) -> ProgramPlayer:
    """A bot with a build step, built as at validation (build.sh in the sandbox) and run from
    the tree the build left, like on the server."""
    from bots.build import MAX_BUILT_BYTES, MAX_BUILT_ENTRIES, build
    from bots.validation import materialize, unzip_tree

    tmp = Path(tempfile.mkdtemp(prefix="arena-play-"))
    try:
        if folder is None:
            folder = tmp / "source"
            materialize(upload.files, folder, upload.executables)
        built = build(folder)
        if not built.ok:  # on the author's machine: the build's output is theirs to read
            output = f"; its output ends:\n{built.log}" if built.log else ""
            raise ValueError(f"{label}: {built.reason}{output}")
        files, executables = unzip_tree(
            built.archive, max_entries=MAX_BUILT_ENTRIES, max_unpacked=MAX_BUILT_BYTES
        )
        materialize(files, tmp / "built", executables)
    except BaseException:
        slots.unstage(tmp)
        raise
    player = ProgramPlayer(tmp / "built", limits, label=label)
    player._cleanup.append(lambda: slots.unstage(tmp))
    return player


def resolve_player(
    spec: str, *, game: Game, seat: int, seed: int, limits: Limits | None = None
) -> Player:
    """A seat from the command line: a policy name, a .py file, a bot directory or a .zip
    (one with a build step is built first, in the sandbox, as at validation)."""
    if spec in game.policies:
        return BuiltinPlayer(game, spec, derive_seed(seed, "seat", seat))
    path = Path(spec)
    if path.is_dir():
        if (path / "build.sh").is_file() and not (path / "main.py").is_file():
            return _built_player(path, None, limits, path.name)  # as an upload would be
        if not any((path / entry).is_file() for entry in ("main.py", "main")):
            raise ValueError(f"{spec}: a bot directory needs main.py, main or build.sh")
        return ProgramPlayer(path, limits, label=path.name)
    if path.is_file() and path.suffix in (".py", ".zip"):
        from bots.validation import materialize, validate_upload

        upload = validate_upload(path.name, path.read_bytes())
        if upload.needs_build:
            return _built_player(None, upload, limits, path.name)
        tmp = Path(tempfile.mkdtemp(prefix="arena-play-"))
        materialize(upload.files, tmp / "bot", upload.executables)
        player = ProgramPlayer(tmp / "bot", limits, label=path.name)
        player._cleanup.append(lambda: slots.unstage(tmp))
        return player
    known = ", ".join(sorted(game.policies))
    raise ValueError(
        f"{spec!r} is neither a built-in bot of {game.slug} ({known}) nor a .py, .zip or bot directory"
    )
