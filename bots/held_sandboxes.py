"""The sandboxes a worker holds between matches: spares built ahead for its next match, and
the last match's, retired, whose teardown waits.

A worker cannot know its next match, but tournaments mostly play the same pairings again and
again. So while a match's programs start up (the runner waits for their "ready", the worker
would sit idle), ``prepare_like`` builds one sandbox per program seat of that match
(``sandbox.prepare``: staging, uid, cgroup, bubblewrap; nothing of the bot runs), and the
next ``ProgramPlayer.prepare`` of the same bot folder and limits takes one (``take``)
instead of building its own: building a sandbox is a large share of a short match, and a
taken one has only its release left.

Nothing changes for the bot: a spare is what ``prepare`` would have built, the same files,
limits and containment, and its start-up allowance runs from its release. Spares
that the next match cannot use are closed while its bots start, and any older than
``MAX_AGE_S`` are never taken, so a process holds at most one match's seats more than the
match it plays. Call everything here from the thread that plays the matches: bwrap dies
with the thread that started it, so a spare is taken only by the thread that built it, and
closed once that thread has ended (tasks run eagerly, a thread per request). A process that
dies leaves nothing running: its sandboxes' monitors die with it, their programs never
start, and the sweepers end what is left (bots/sandbox/orphans.py) and remove their staging
folders and cgroups.

The same wait takes the last match's teardown off the worker's path (``retire``,
``close_retired``): once its result is committed, a match's seats are only killed (one read
of each group's process list: the bots have exited after "end"), and reaping them, removing
their cgroups, freeing their slots and removing their staged copies (most of it the staged
copies) waits for the next match's start-up. At most one match's
seats wait so (``retire`` closes any left from before); any thread may close them.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bots import sandbox
from bots.sandbox import BotProcess, Limits

log = logging.getLogger(__name__)
MAX_AGE_S = 30.0
_Key = tuple[Path, Limits]


class Closable(Protocol):
    def close(self) -> None: ...


@dataclass
class _Spare:
    key: _Key
    thread: int  # only the thread that built it may take it (bwrap dies with that thread)
    made: float
    box: BotProcess


_SPARES: list[_Spare] = []


def take(bot_dir: Path, limits: Limits) -> BotProcess | None:
    """A prepared sandbox for this bot folder and limits, built by this thread and still
    waiting; None if none."""
    _drop_stale()
    key, thread = (Path(bot_dir), limits), threading.get_ident()
    for index, spare in enumerate(_SPARES):
        if spare.key == key and spare.thread == thread:
            del _SPARES[index]
            if spare.box.returncode is None:
                return spare.box
            spare.box.close()  # its bubblewrap is gone (killed from outside): build a fresh one
            return None
    return None


def prepare_like(seats: Iterable[tuple[Path, Limits]]) -> None:
    """Hold one prepared sandbox per seat (bot folder, limits) for the next match, closing
    the spares these seats do not match. Never raises: a spare that cannot be built (no
    free uid, a folder too large, no sandbox) is left out, and its seat is prepared when it
    plays, as without spares."""
    wanted = [(Path(folder), limits) for folder, limits in seats]
    if not wanted or not sandbox.sandbox_available():
        return
    _drop_stale()
    thread = threading.get_ident()
    for spare in [s for s in _SPARES if s.thread == thread]:
        if spare.key in wanted and spare.box.returncode is None:
            wanted.remove(spare.key)
        else:
            _SPARES.remove(spare)
            spare.box.close()
    for key in wanted:
        try:
            _SPARES.append(_Spare(key, thread, time.monotonic(), sandbox.prepare(*key)))
        except Exception:  # the match being played must not fail for a spare
            log.warning("could not prepare a spare sandbox for %s", key[0], exc_info=True)


def discard() -> None:
    """Close every spare and every retired seat (a process stopping, a test ending)."""
    while _SPARES:
        _SPARES.pop().box.close()
    close_retired()


_RETIRED: list[Closable] = []


def retire(players: Iterable[Closable]) -> None:
    """Kill a finished match's seats now (``kill``, where a seat has one) and leave the rest
    of their teardown to ``close_retired``; the seats of an earlier match still waiting are
    closed first. Every seat is retired even if one fails; the first failure is raised."""
    failure = None
    try:
        close_retired()
    except Exception as exc:
        failure = exc
    for player in players:
        _RETIRED.append(player)  # closed later even if its kill fails: close kills again
        try:
            if hasattr(player, "kill"):
                player.kill()
        except Exception as exc:
            failure = failure or exc
    if failure is not None:
        raise failure


def close_retired() -> None:
    """Close the retired seats (``retire``): every one is tried, the first failure raised."""
    failure = None
    while True:
        try:
            player = _RETIRED.pop(0)  # atomic: two threads never close the same seat
        except IndexError:
            break
        try:
            player.close()
        except Exception as exc:
            failure = failure or exc
    if failure is not None:
        raise failure


def retired() -> int:
    return len(_RETIRED)


def held() -> int:
    return len(_SPARES)


def _drop_stale() -> None:
    """Close spares too old to use, and those of threads that have ended: bwrap died with
    the thread that built them, and no other thread may take them."""
    now, alive = time.monotonic(), {t.ident for t in threading.enumerate()}
    for spare in [s for s in _SPARES if now - s.made > MAX_AGE_S or s.thread not in alive]:
        _SPARES.remove(spare)
        spare.box.close()


atexit.register(discard)
