"""Looks for the worker's environment anywhere (os.environ, every /proc/*/environ and
cmdline); contained: only PYTHONPATH, HOME, LANG, PATH (and PWD, LC_CTYPE) and the
languages' variables exist."""

import os

import arena_sdk

# NODE_PATH and JAVA_TOOL_OPTIONS: the offered languages' own (bots/sandbox/languages.py).
ALLOWED = {
    "PYTHONPATH",
    "HOME",
    "LANG",
    "PATH",
    "PWD",
    "LC_CTYPE",
    "NODE_PATH",
    "JAVA_TOOL_OPTIONS",
}


def attack():
    extra = set(os.environ) - ALLOWED
    if extra:
        raise SystemExit(f"ESCAPED: environment has {sorted(extra)}")
    for entry in os.listdir("/proc"):
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{entry}/{name}", "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if b"ARENA_CANARY" in data or b"DJANGO" in data or b"DATABASE_URL" in data:
                raise SystemExit(f"ESCAPED: /proc/{entry}/{name} shows the worker's environment")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
