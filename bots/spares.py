"""Sandboxes prepared ahead for the next match a process plays (issue 18, goal 3).

A worker cannot know its next match, but tournaments mostly play the same pairings again and
again. So while a match's programs start up (the runner waits for their "ready", the worker
would sit idle), ``prepare_like`` builds one sandbox per program seat of that match
(``sandbox.prepare``: staging, uid, cgroup, bubblewrap; nothing of the bot runs), and the
next ``ProgramPlayer.prepare`` of the same bot folder and limits takes one (``take``)
instead of building its own. Building a sandbox is a third of a short match; taken, only its
release is left.

Nothing changes for the bot: a spare is what ``prepare`` would have built, the same files,
limits and containment, and its start-up allowance runs from its release as before. Spares
that the next match cannot use are closed while its bots start, and any older than
``MAX_AGE_S`` are never taken, so a process holds at most one match's seats more than the
match it plays. Call everything here from the thread that plays the matches: bwrap dies
with the thread that started it. A process that dies leaves nothing: the sandboxes die with
it and the sweepers remove their staging folders and cgroups.
"""

from __future__ import annotations

import atexit
import logging
import time
from collections.abc import Iterable
from pathlib import Path

from bots import sandbox
from bots.sandbox import BotProcess, Limits

log = logging.getLogger(__name__)
MAX_AGE_S = 30.0
_Key = tuple[Path, Limits]
_SPARES: list[tuple[_Key, float, BotProcess]] = []


def take(bot_dir: Path, limits: Limits) -> BotProcess | None:
    """A prepared sandbox for this bot folder and limits, still waiting; None if none."""
    _drop_stale()
    key = (Path(bot_dir), limits)
    for index, (spare_key, _made, box) in enumerate(_SPARES):
        if spare_key == key:
            del _SPARES[index]
            if box.returncode is None:
                return box
            box.close()  # its bubblewrap is gone (killed from outside): build a fresh one
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
    kept: list[tuple[_Key, float, BotProcess]] = []
    for entry in _SPARES:
        if entry[0] in wanted and entry[2].returncode is None:
            wanted.remove(entry[0])
            kept.append(entry)
        else:
            entry[2].close()
    _SPARES[:] = kept
    for key in wanted:
        try:
            _SPARES.append((key, time.monotonic(), sandbox.prepare(key[0], key[1])))
        except Exception:  # the match being played must not fail for a spare
            log.warning("could not prepare a spare sandbox for %s", key[0], exc_info=True)


def discard() -> None:
    """Close every spare (a process stopping, a test ending)."""
    while _SPARES:
        _SPARES.pop()[2].close()


def held() -> int:
    return len(_SPARES)


def _drop_stale() -> None:
    now = time.monotonic()
    for entry in [e for e in _SPARES if now - e[1] > MAX_AGE_S]:
        _SPARES.remove(entry)
        entry[2].close()


atexit.register(discard)
