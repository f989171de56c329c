"""Arena's Python SDK for bots: write ``act(observation, legal)``, call ``run(act)``.

::

    import arena_sdk

    def act(observation, legal):
        return legal[0]

    arena_sdk.run(act)

``run`` speaks the JSON-lines wire protocol on stdin/stdout (docs/bots.md) so you never
see it: it answers ``start`` with ``ready`` (calling ``on_start(info)`` first if you pass
one), each ``act`` with ``{"type": "action", "action": act(observation, legal)}``, and
returns after ``end`` (calling ``on_end(result)`` if given). ``clock`` is available as
``arena_sdk.clock`` (``{"move_ms": ..., "bank_ms": ...}``) while ``act`` runs.
Print logs to stderr (``arena_sdk.log(...)``): stdout belongs to the protocol.
This file depends on nothing but the standard library, so it runs inside the sandbox.
"""

from __future__ import annotations

import json
import sys

# Names for the annotations only, which are never evaluated: importing typing would add
# to every bot's start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

clock: dict = {}
info: dict = {}


def log(*args: Any) -> None:
    """Write a line to stderr (the arena keeps its tail for crash reports)."""
    print(*args, file=sys.stderr, flush=True)


def _send(message: dict) -> None:
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def run(
    act: Callable[[dict, list], Any],
    on_start: Callable[[dict], None] | None = None,
    on_end: Callable[[dict], None] | None = None,
) -> None:
    """Serve one match: returns when the arena sends ``end`` or closes stdin."""
    global clock, info
    for line in sys.stdin:  # buffered: fast for large observations
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            info = message
            clock = message.get("clock", {})
            if on_start is not None:
                on_start(message)
            _send({"type": "ready"})
        elif kind == "act":
            clock = message.get("clock", {})
            _send({"type": "action", "action": act(message["observation"], message["legal"])})
        elif kind == "end":
            if on_end is not None:
                on_end(message.get("result", {}))
            return
