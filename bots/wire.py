"""The host side of the JSON-lines wire protocol (docs/bots.md, "The wire protocol").

::

    arena -> bot  {"type":"start", "game", "version", "seat", "players", "options", "teams", "clock"}
    bot -> arena  {"type":"ready"}
    arena -> bot  {"type":"act", "observation", "legal", "clock"}
    bot -> arena  {"type":"action", "action": <one value of legal>}
    arena -> bot  {"type":"end", "result"}

Both directions are non-blocking and bounded by a deadline, so a bot that stops reading or
writing can never hang the worker. stdout is read in chunks into a buffer (an unbuffered
``readline`` reads byte by byte) with a cap on line length and on the whole match's output;
stderr is drained whenever we wait, so the bot never blocks on it, into a bounded tail (a
crash's detail) and a bounded log (:class:`BoundedLog`): both are for the bot's owner only.
"""

from __future__ import annotations

import json
import os
import re
import select
import time
from collections import deque

CHUNK = 65536
STDERR_TAIL = 2000  # characters of stderr kept for a crash's detail
DETAIL_CHARS = 200  # of a line or a message the bot wrote, quoted in a fault's detail
FLOOD_BYTES = 4096  # unasked-for stdout beyond this is an output fault, below a protocol one
LOG_BYTES = 64 * 1024  # a seat's stderr kept per match, the truncation mark included


class BoundedLog:
    """A bot's stderr for one match, at most ``limit`` bytes once rendered.

    Keeps the first three quarters and the last quarter (its first lines and its last words,
    a traceback say) and marks what was dropped between them. Appending costs the size of
    the chunk, whatever the bot floods.
    """

    def __init__(self, limit: int = LOG_BYTES):
        self.limit = limit
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0
        self._head_cap = limit * 3 // 4
        self._tail_cap = limit - self._head_cap - 80  # room for the mark

    def append(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        if len(chunk) > self._tail_cap:
            chunk = chunk[-self._tail_cap :]
            self.tail.clear()
            self.tail_len = 0
        self.tail.append(chunk)
        self.tail_len += len(chunk)
        while self.tail_len - len(self.tail[0]) >= self._tail_cap:
            self.tail_len -= len(self.tail.popleft())

    def text(self) -> str:
        """The kept log, decoded, at most ``limit`` bytes in UTF-8; when something was
        dropped, a line in the middle says how much."""
        tail = b"".join(self.tail)
        if self.total <= len(self.head) + len(tail) and self.total <= self._head_cap:
            return _fit(_printable(bytes(self.head)), self.limit, keep_end=False)
        tail = tail[-self._tail_cap :]
        dropped = self.total - len(self.head) - len(tail)
        mark = (
            f"\n[... {dropped} bytes of log dropped: at most {self.limit} bytes are kept ...]\n"
            if dropped > 0
            else ""
        )
        # Undecodable bytes and NULs become U+FFFD (3 bytes): fit the decoded text again.
        room = self.limit - len(mark.encode())
        head = _fit(_printable(bytes(self.head)), room * 3 // 4, keep_end=False)
        return head + mark + _fit(_printable(tail), room - len(head.encode()), keep_end=True)


def _fit(text: str, size: int, *, keep_end: bool) -> str:
    """``text`` cut to at most ``size`` bytes of UTF-8, from its end or its start."""
    data = text.encode()
    if len(data) <= size:
        return text
    kept = data[-size:] if keep_end else data[:size]
    return kept.decode("utf-8", "ignore")  # a character cut in two goes


def _printable(data: bytes) -> str:
    """Decoded text that any database stores: PostgreSQL refuses NUL in text and JSON."""
    return data.decode("utf-8", "replace").replace("\x00", "\ufffd")


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with what no database stores replaced by U+FFFD: NUL (PostgreSQL refuses it
    in text and JSON) and lone surrogates (a bot's JSON may escape one: "\\ud800"; they
    cannot be encoded)."""
    return _UNSTORABLE.sub("\ufffd", text)


class WireError(Exception):
    """The bot broke the protocol. ``kind`` is a Fault kind; ``reason`` reads as a sentence
    fragment after the bot's name ("timed out ...", "wrote ...") and never quotes the bot;
    ``detail`` is what the bot wrote that shows it (its owner's only), or ""."""

    def __init__(self, kind: str, reason: str, detail: str = ""):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.detail = detail


# One encoder for every message: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def encode(message: dict) -> bytes:
    return _ENCODER.encode(message).encode() + b"\n"


def short(value: object, limit: int = 80) -> str:
    text = json.dumps(value, separators=(",", ":"), default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Channel:
    """Pipes to one bot: ``send``, ``recv`` with a deadline, stderr tail, output caps."""

    def __init__(self, stdin: int, stdout: int, stderr: int, line_bytes: int, output_bytes: int):
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        for fd in (stdin, stdout, stderr):
            os.set_blocking(fd, False)
        self.line_bytes = line_bytes
        self.output_bytes = output_bytes
        self.buffer = bytearray()
        self.scanned = 0  # buffer[:scanned] holds no newline
        self.total_out = 0
        self.stdout_eof = False
        self.stderr_eof = False
        self._pending = memoryview(b"")
        self._stdout_poll = select.poll()
        self._stdout_poll.register(stdout, select.POLLIN)  # POLLHUP/POLLERR are always reported
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self.log = BoundedLog()

    # -- stderr --------------------------------------------------------------------------
    def _drain_stderr(self) -> None:
        while not self.stderr_eof:
            try:
                chunk = os.read(self.stderr, CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.stderr_eof = True
                return
            self.log.append(chunk)
            self._tail.append(chunk)
            self._tail_len += len(chunk)
            while self._tail_len - len(self._tail[0]) >= STDERR_TAIL * 4:
                self._tail_len -= len(self._tail.popleft())

    def stderr_tail(self, wait: float = 0.0, chars: int = STDERR_TAIL) -> str:
        """The last ``chars`` of stderr (waiting up to ``wait`` s for EOF, e.g. after a crash);
        at most about 4 x STDERR_TAIL are kept."""
        deadline = time.monotonic() + wait
        self._drain_stderr()
        while not self.stderr_eof and time.monotonic() < deadline:
            select.select([self.stderr], [], [], max(0.0, deadline - time.monotonic()))
            self._drain_stderr()
        text = b"".join(self._tail).decode("utf-8", "replace").strip()
        return text[-chars:]

    def log_text(self, wait: float = 0.0) -> str:
        """Everything kept of stderr so far (see :class:`BoundedLog`), after a last drain."""
        self.stderr_tail(wait=wait)
        return self.log.text()

    # -- stdout --------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        try:
            chunk = os.read(self.stdout, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.stdout_eof = True
            return
        self.total_out += len(chunk)
        self.buffer += chunk
        if self.total_out > self.output_bytes:
            raise WireError("output", f"wrote more than {self.output_bytes} bytes on stdout")

    def _take_line(self) -> bytes | None:
        end = self.buffer.find(b"\n", self.scanned)
        if end < 0:
            self.scanned = len(self.buffer)
            if len(self.buffer) > self.line_bytes:
                raise WireError("output", f"wrote a line longer than {self.line_bytes} bytes")
            return None
        if end > self.line_bytes:
            raise WireError("output", f"wrote a line longer than {self.line_bytes} bytes")
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        return line

    def unsolicited(self) -> bool:
        """Did the bot write anything since its last answer (a second reply, a stray line)?

        Raises an output fault when more than ``FLOOD_BYTES`` are waiting: a flood."""
        if not self.buffer and not self.stdout_eof and not self._stdout_poll.poll(0):
            return False  # the usual case, asked every move: one poll, no failing read
        while not self.stdout_eof and len(self.buffer) <= FLOOD_BYTES:
            before = len(self.buffer)
            self._read_stdout()
            if len(self.buffer) == before:
                break
        if len(self.buffer) > FLOOD_BYTES:
            raise WireError(
                "output", f"flooded stdout with over {FLOOD_BYTES} bytes nobody asked for"
            )
        return bool(self.buffer.strip())

    def read_waiting(self) -> None:
        """Take in what the bot has already written (stdout, stderr), without waiting: up to
        its first line, or as much as one line may hold."""
        self._drain_stderr()
        while (
            not self.stdout_eof
            and len(self.buffer) <= self.line_bytes
            and self._stdout_poll.poll(0)
        ):
            before = len(self.buffer)
            self._read_stdout()
            if len(self.buffer) == before or b"\n" in self.buffer[self.scanned :]:
                break

    def recv(self, deadline: float) -> dict:
        """The next message; WireError on timeout, EOF, oversize or garbage."""
        while True:
            line = self._take_line()
            if line is not None:
                return _decode(line)
            if self.stdout_eof:
                raise WireError("crashed", "closed its stdout")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WireError("timeout", "timed out")
            fds = [self.stdout] + ([] if self.stderr_eof else [self.stderr])
            ready, _, _ = select.select(fds, [], [], remaining)
            if self.stderr in ready:
                self._drain_stderr()
            if self.stdout in ready:
                self._read_stdout()

    def send(self, message: dict, deadline: float) -> None:
        """Write one message; a bot that stops reading times out instead of blocking us."""
        self.queue(message)
        self.flush(deadline)

    def queue(self, message: dict) -> None:
        """Write what fits in the pipe now, without waiting; ``flush`` writes the rest.

        The runner queues an ``act`` before waking a paused bot, so the bot finds it waiting
        instead of going back to sleep in read() first (saves a wake-up per move)."""
        self._pending = memoryview(encode(message))
        self._write_some()

    def _write_some(self) -> None:
        while self._pending:
            try:
                written = os.write(self.stdin, self._pending)
            except BlockingIOError:
                return
            except OSError:  # EPIPE and friends: the bot closed its end
                self._pending = memoryview(b"")
                raise WireError("crashed", "closed its stdin") from None
            self._pending = self._pending[written:]

    def flush(self, deadline: float) -> None:
        self._write_some()
        while self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WireError("timeout", "timed out (stopped reading its input)")
            fds = [] if self.stderr_eof else [self.stderr]
            ready, writable, _ = select.select(fds, [self.stdin], [], remaining)
            if self.stderr in ready:
                self._drain_stderr()
            if writable:
                self._write_some()


def _decode(line: bytes) -> dict:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise WireError(
            "protocol", "wrote a line that is not valid UTF-8", repr(line[:DETAIL_CHARS])
        ) from None
    try:
        message = json.loads(text)
    except ValueError:
        raise WireError(
            "protocol", "wrote a line that is not JSON", repr(text[:DETAIL_CHARS])
        ) from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise WireError(
            "protocol",
            'wrote JSON that is not an object with a "type"',
            short(message, DETAIL_CHARS),
        )
    return message
