"""Containment for uploaded bots: the half of ``bots`` that imports no Django.

- ``jail``: decides what containment is in force and launches a program (``launch``), or
  builds its sandbox ahead of time and holds the program back (``prepare``);
- ``spawn``: bubblewrap's command line and the steps around fork and exec of one launch;
- ``limits``: the bounds a bot lives under (``Limits``) and their defaults;
- ``botprocess``: the launched program (pause/resume, CPU time, limit verdicts, kill-all);
- ``slots``: an unprivileged uid per concurrent sandbox, and staging a bot's files;
- ``orphans``: ending what a worker that died while starting a sandbox left of it
  (``sweep_orphans``);
- ``cgroups``: one sandbox's control group (its memory, pids, freezer and CPU files), which
  backend is in force, creating a group per sandbox, sweeping those of dead workers;
- ``seccomp``: the system-call filter.

The names below are what the rest of the project uses (``from bots import sandbox``,
``from bots.sandbox import Limits``).
"""

from bots.sandbox import cgroups, orphans, seccomp, slots
from bots.sandbox.botprocess import BotProcess
from bots.sandbox.jail import (
    SandboxUnavailable,
    bot_python,
    describe_enforcement,
    describe_memory,
    enforcement_mode,
    launch,
    prepare,
    sandbox_available,
    trusted_only,
    wait_gone,
)
from bots.sandbox.limits import Limits
from bots.sandbox.orphans import sweep as sweep_orphans
from bots.sandbox.slots import BotTooLarge, SlotsExhausted
from bots.sandbox.spawn import SANDBOX_UID, bwrap_path

__all__ = [
    "SANDBOX_UID",
    "BotProcess",
    "BotTooLarge",
    "Limits",
    "SandboxUnavailable",
    "SlotsExhausted",
    "bot_python",
    "bwrap_path",
    "cgroups",
    "describe_enforcement",
    "describe_memory",
    "enforcement_mode",
    "launch",
    "orphans",
    "prepare",
    "sandbox_available",
    "seccomp",
    "slots",
    "sweep_orphans",
    "trusted_only",
    "wait_gone",
]
