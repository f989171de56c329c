"""Stored replays: a finished match's replay answers kept in a table (``MatchReplay``).

The replay endpoints' answers are cached, but a miss (an eviction, a restart, a second
server) would play every move of the record again, per viewer: tens of milliseconds for a
long match. A finished match's moves, event logs and frames never change while its
record, the engine's version and the parts' versions stay the same, so they are built
once, for every viewer (the spectator and each seat) in one replay per part, and stored:

- for a long match (``ARENA_STORE_REPLAY_MOVES`` moves or more: a second and more to build
  at thousands of moves), by a maintenance worker once its result commits
  (``tournaments.tasks.store_replay``), so its first reader finds it (the result's write
  path only sends the message);
- on the first read of a finished match that has no current row: a short match's (cheap,
  and most are never read), or a long one's whose build was lost or dropped. While a long
  match's build may still be under way (one reaper period from its finish: the message
  expires then), a reader builds only the answer it shows, as it did while the match ran
  (a third to a tenth of the row's work), and the row is left to the task;
- by ``manage.py rebuild_read_models --only replays`` for the finished matches without one.

Each piece is the JSON text the endpoint splices into its answer; a long match's pieces
are compressed apart, so a read inflates only the moves and the one viewer's piece it
serves, a short match's as one stream (smaller by far; see ``pack``). A row is current while
its ``finished_at`` equals the match's (a match played again finishes at another time:
its old row is then replaced) and its ``version`` names this storage format, the engine's
version and every part's; any other is rebuilt and replaced by the next read.

Parts built above tournaments (the replay viewer's frames, in ``arena``) register here
with :func:`register_part`: tournaments cannot import them (layers).
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from games import registry
from tournaments.models import Match, MatchReplay

log = logging.getLogger(__name__)

# Bumped when the pieces are laid out or rendered differently.
FORMAT_VERSION = 2
# Fast: a piece is inflated on every read that misses the cache, built once.
COMPRESS_LEVEL = 1
# Pieces of at most this many bytes in all are compressed as one stream (see ``pack``):
# inflating that much is cheap next to a read's other work.
WHOLE_BELOW = 64 * 1024
WHOLE = "*"  # the index's mark of one stream
# The columns a row is built from.
BUILD_FIELDS = ("pk", "game", "status", "finished_at", "moves", "record")

Viewer = int | None


@dataclass(frozen=True)
class Part:
    """One kind of answer kept per viewer: ``build(match, viewers)`` returns one JSON value
    per viewer, in order (one replay of ``match.record`` serves them all; its ``moves`` are
    loaded too). ``version`` changes whenever its output would: the stored rows of another
    version are rebuilt."""

    name: str
    version: int
    build: Callable[[Match, Sequence[Viewer]], list]


def _events(match: Match, viewers: Sequence[Viewer]) -> list:
    state = registry.rebuild(match.record)
    return [state.events(viewer) for viewer in viewers]


_parts: dict[str, Part] = {"events": Part("events", 1, _events)}


def register_part(part: Part) -> Part:
    """Keep ``part`` in every row built from now on (the latest registration of a name wins)."""
    _parts[part.name] = part
    return part


def viewer_key(viewer: Viewer) -> str:
    return "all" if viewer is None else str(viewer)


def piece_name(part: str, viewer: Viewer) -> str:
    return f"{part}:{viewer_key(viewer)}"


def row_version(game: str) -> str:
    """What a current row of ``game`` was built with; an unknown game has none."""
    parts = ",".join(f"{p.name}{p.version}" for p in sorted(_parts.values(), key=lambda p: p.name))
    return f"{FORMAT_VERSION}:{game}:{registry.get(game).version}:{parts}"


def render(value) -> bytes:
    """JSON as the API renders it (the answers splice these bytes in as they are)."""
    return JSONRenderer().render(value)


class StoredReplay:
    """A row's pieces, inflated on demand."""

    def __init__(self, row: MatchReplay):
        self.index: dict[str, list[int]] = dict(row.index)
        self.whole = bool(self.index.pop(WHOLE, False))
        self.data = bytes(row.data)
        self._inflated: bytes | None = None

    def has(self, name: str) -> bool:
        return name in self.index

    def piece(self, name: str) -> bytes:
        """The JSON text of one piece; KeyError if the row has none of that name."""
        offset, length = self.index[name]
        if not self.whole:
            return zlib.decompress(self.data[offset : offset + length])
        if self._inflated is None:
            self._inflated = zlib.decompress(self.data)
        return self._inflated[offset : offset + length]


def pack(pieces: dict[str, bytes]) -> tuple[dict, bytes]:
    """The index and data of a row. A short match's pieces are compressed as one stream
    (a quarter of the size of its pieces compressed apart: they repeat one another); a long
    one's apart, so a read inflates only the moves and the one viewer's piece it serves."""
    index: dict = {}
    if sum(len(text) for text in pieces.values()) <= WHOLE_BELOW:
        offset = 0
        for name, text in pieces.items():
            index[name] = [offset, len(text)]
            offset += len(text)
        index[WHOLE] = 1
        return index, zlib.compress(b"".join(pieces.values()), COMPRESS_LEVEL)
    chunks, offset = [], 0
    for name, text in pieces.items():
        chunk = zlib.compress(text, COMPRESS_LEVEL)
        index[name] = [offset, len(chunk)]
        chunks.append(chunk)
        offset += len(chunk)
    return index, b"".join(chunks)


def build_row(match: Match) -> MatchReplay | None:
    """The row of a finished ``match`` (its moves and record are read), or None when it
    cannot be replayed here (no record, another engine version, an engine error)."""
    if match.status != Match.Status.FINISHED or not match.record:
        return None
    record = match.record
    players = record.get("players")
    if not isinstance(players, int):
        return None
    viewers: list[Viewer] = [None, *range(players)]
    pieces = {"moves": render(match.moves or [])}
    try:
        for part in _parts.values():
            for viewer, value in zip(viewers, part.build(match, viewers), strict=True):
                pieces[piece_name(part.name, viewer)] = render(value)
        version = row_version(match.game)
    except Exception as exc:
        # Expected after an engine upgrade (old records replay no more): the endpoints
        # fall back to building the answer, which reports the error to the reader.
        log.info("match %s: no stored replay: %r", match.pk, exc)
        return None
    index, data = pack(pieces)
    return MatchReplay(
        match_id=match.pk, finished_at=match.finished_at, version=version, index=index, data=data
    )


def save_rows(rows: list[MatchReplay]) -> None:
    """Insert or replace: two readers may build the same match's row at once."""
    if not rows:
        return
    fields = ["finished_at", "version", "index", "data", "built_at"]
    try:
        with transaction.atomic():
            MatchReplay.objects.bulk_create(
                rows, update_conflicts=True, unique_fields=["match"], update_fields=fields
            )
    except IntegrityError:
        # A match deleted meanwhile: nothing left to serve.
        log.info("stored replays not saved: a match is gone")


def _current(row: MatchReplay | None, match: Match) -> bool:
    if row is None or row.finished_at != match.finished_at:
        return False
    try:
        return row.version == row_version(match.game)
    except Exception:
        return False


def being_built(match: Match) -> bool:
    """Whether a maintenance task may be building the row of ``match`` now: a long match
    (its result sent the task) that finished less than one reaper period ago (the message
    expires then). Reads its moves, which every reader without a row needs anyway."""
    if match.finished_at is None or len(match.moves or []) < settings.ARENA_STORE_REPLAY_MOVES:
        return False
    since = timezone.now() - timedelta(seconds=settings.ARENA_STORE_REPLAY_EXPIRES)
    return match.finished_at >= since


def stored_replay(*, match: Match) -> StoredReplay | None:
    """The stored pieces of a finished ``match``: its current row, else one built now from
    its moves and record and saved; None for an unfinished match, one that cannot be
    replayed, or one whose row a task is building (see ``being_built``): the reader then
    builds only its own answer. Kept on the instance for the rest of the request."""
    if match.status != Match.Status.FINISHED:
        return None
    if "_stored_replay" in match.__dict__:
        return match.__dict__["_stored_replay"]
    row = MatchReplay.objects.filter(match_id=match.pk).first()
    if not _current(row, match):
        if being_built(match):
            row = None
        else:
            row = build_row(match)
            save_rows([row] if row is not None else [])
    stored = StoredReplay(row) if row is not None else None
    match.__dict__["_stored_replay"] = stored
    return stored


def store_replay(*, match_id: int) -> bool:
    """Build and save the row of a finished match that has no current one; True if saved."""
    match = Match.objects.only(*BUILD_FIELDS).filter(pk=match_id).first()
    if match is None:
        return False
    row = MatchReplay.objects.filter(match_id=match_id).first()
    if _current(row, match):
        return False
    row = build_row(match)
    save_rows([row] if row is not None else [])
    return row is not None


def rebuild_replays(
    *,
    tournament_ids: Iterable[int] | None = None,
    progress: Callable[[str], None] | None = None,
    batch: int = 200,
) -> int:
    """Store the row of every finished match (of those tournaments) that has no current one;
    returns how many were written. Run again, it finds nothing to do."""
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    if tournament_ids is not None:
        finished = finished.filter(tournament_id__in=list(tournament_ids))
    written = 0
    for game in sorted(set(finished.values_list("game", flat=True).distinct())):
        try:
            version = row_version(game)
        except Exception:
            continue  # a game this server no longer knows
        todo = finished.filter(game=game).exclude(
            stored_replay__version=version, stored_replay__finished_at=F("finished_at")
        )
        total, done, last, began = todo.count(), 0, 0, time.monotonic()
        while True:
            # Keyset batches: the ids of a million matches are never held at once.
            chunk = list(
                todo.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:batch]
            )
            if not chunk:
                break
            last = chunk[-1]
            rows = [build_row(m) for m in Match.objects.only(*BUILD_FIELDS).filter(pk__in=chunk)]
            rows = [row for row in rows if row is not None]
            save_rows(rows)
            written += len(rows)
            done += len(chunk)
            if progress is not None:
                progress(
                    f"replays: {game}: {done}/{total} matches in {time.monotonic() - began:.1f} s"
                )
    return written
