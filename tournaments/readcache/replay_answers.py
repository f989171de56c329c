"""The replay endpoints' answers (replay and frames APIs) for finished matches, kept whole.

A finished match's answer is rendered once and kept as bytes under a key that names
everything it is made of (``replay_cache_key``: the match, its finishing time, its game and
the engine's version, the viewer; the endpoint's kind with its layout version, and whether
it shows the whole record or only what the viewer's seat saw: ``tournaments.visibility``).
Nothing else changes it: its moves, record and stored replay are written once, with its
status; a re-run or a result taken back takes it out of ``finished`` (it is then not kept)
and finishes it again at a new time, with more attempts; no bot name shows in it.

Who may read which answer is decided on every request, before any kept answer is looked
up (``remembered_body``), from the match's exposure read in the same query as its head: a
seat's view kept for its owner is never served to another reader, and an answer built
while the record was hidden is kept under another key than the whole record's.

Each process also keeps the most recently read answers in its own memory (up to
``MEMORY_BYTES``), keyed as in the cache plus the match's attempts: the longest answers are
large, and taking one from Redis is most of a warm read's time. A hit there is one
narrow query (``finished_head``) and no cache round trip.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.cache import cache

from games import registry
from tournaments import visibility
from tournaments.models import Match
from tournaments.readcache.process_copies import ProcessCopies

# ASCII digits only: str.isdigit() and int() also take superscripts and other scripts' digits.
SEAT_PATTERN = re.compile(r"[0-9]{1,3}", re.ASCII)

# A finished match's replay never changes while the engine's version stays the same.
REPLAY_CACHE_SECONDS = 24 * 3600


def parse_seat(raw: str, *, players: int) -> int:
    """The seat a ``?seat=`` value names, 0 to ``players - 1``; ValueError for anything else."""
    if not SEAT_PATTERN.fullmatch(raw) or int(raw) >= players:
        raise ValueError(f"seat must be a whole number from 0 to {players - 1}")
    return int(raw)


def replay_cache_key(*, match: Match, seat: int | None) -> str:
    """Names the engine version (a new one replays differently) and the finishing time
    (a database that reuses ids, as SQLite does after a rollback, never meets a stale entry)."""
    return replay_key(pk=match.pk, finished_at=match.finished_at, game=match.game, seat=seat)


def replay_key(*, pk: int, finished_at, game: str, seat: int | None) -> str:
    """``replay_cache_key`` from the match's fields."""
    version = registry.get(game).version
    finished = finished_at.timestamp() if finished_at else ""
    viewer = "all" if seat is None else seat
    return f"arena:replay:{pk}:{finished}:{game}:{version}:{viewer}"


# Per process: a few dozen of the longest answers, or thousands of the usual few-KB ones.
MEMORY_BYTES = 16 * 1024 * 1024
memory = ProcessCopies(MEMORY_BYTES)


def forget_all() -> None:
    """Empty this process's store (tests, and the bench's cold reads)."""
    memory.clear()


@dataclass(frozen=True)
class FinishedHead:
    """What names a finished match's stored answers, its seat count and its exposure."""

    pk: int
    game: str
    finished_at: datetime | None
    attempts: int
    seats: int
    exposure: visibility.Exposure


def finished_head(*, pk: int) -> FinishedHead | None:
    """A finished match's head and exposure in one written-out query (the ORM's building of
    it cost more than the query); None for another status, no such match, or a result
    without seats (then the endpoint takes its usual path, which answers those)."""
    found = visibility.read_exposure(pk=pk, columns=("game", "finished_at", "attempts", "result"))
    if found is None or found[0].status != Match.Status.FINISHED:
        return None
    exposure, (game, finished_at, attempts, result) = found
    if isinstance(result, (str, bytes)):  # jsonb and SQLite's JSON come as text
        result = json.loads(result)
    seats = result.get("seats") if isinstance(result, dict) else None
    if not isinstance(seats, list) or not seats:
        return None
    if finished_at is not None and not isinstance(finished_at, datetime):
        return None
    if finished_at is not None and finished_at.tzinfo is None:  # SQLite keeps UTC, naive
        finished_at = finished_at.replace(tzinfo=UTC)
    return FinishedHead(pk, game, finished_at, attempts, len(seats), exposure)


def _memory_key(key: str, attempts: int) -> str:
    return f"{key}:{attempts}"


def answer_kind(kind: str, view: visibility.MatchView, *, seen_kind: str | None = None) -> str:
    """The kind a reader with ``view`` is answered under: ``seen_kind`` (when the answer
    differs) without the whole record, else ``kind``."""
    return kind if view.full or seen_kind is None else seen_kind


def remembered_body(
    *, pk: int, seat_text: str | None, kind: str, user, seen_kind: str | None = None
) -> bytes | None:
    """A finished match's stored answer for ``kind`` as the ``?seat=`` text names the
    viewer, from this process's memory or the cache, if ``user`` may see the match as that
    viewer does (``seen_kind``: see ``answer_kind``); None when the endpoint must take its
    usual path (not finished, a seat it must refuse, nothing stored yet)."""
    head = finished_head(pk=pk)
    if head is None:
        return None
    seat = None
    if seat_text is not None:
        try:
            seat = parse_seat(seat_text, players=head.seats)
        except ValueError:
            return None
    view = visibility.view_of(
        head.exposure, user=user, owned=lambda: visibility.owned_seats(match_id=pk, user=user)
    )
    if not view.may_take(seat) or head.exposure.held:
        # A held outcome (tournaments.release): who may see it is asked on the usual path.
        return None
    key = f"{replay_key(pk=pk, finished_at=head.finished_at, game=head.game, seat=seat)}"
    key += f":body:{answer_kind(kind, view, seen_kind=seen_kind)}"
    memory_key = _memory_key(key, head.attempts)
    body = memory.get(memory_key)
    if body is None:
        body = cache.get(key)
        if body is not None:
            memory.put(memory_key, body, len(body))
    return body


def cached_replay_body(
    *, match: Match, seat: int | None, kind: str, build: Callable[[], bytes]
) -> bytes:
    """The JSON body of a replay endpoint (``kind``) for a finished match, rendered once
    and kept as bytes: a hit is one cache read, never a record parsed, replayed and
    serialised again. ``build()`` returns the bytes; unfinished matches are not cached.
    ``match`` needs ``REPLAY_LOOKUP_FIELDS``."""
    if match.status != Match.Status.FINISHED:
        return build()
    key = replay_key(pk=match.pk, finished_at=match.finished_at, game=match.game, seat=seat)
    key += f":body:{kind}"
    body = cache.get(key)
    if body is None:
        body = build()
        cache.set(key, body, REPLAY_CACHE_SECONDS)
    memory.put(_memory_key(key, match.attempts), body, len(body))
    return body
