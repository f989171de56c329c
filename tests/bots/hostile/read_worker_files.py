"""Tries to read the worker's code, settings, database and secrets; contained."""

import glob
import os

import arena_sdk

TARGETS = [
    "__REPO__/arena/settings.py",
    "__REPO__/manage.py",
    "__REPO__/db.sqlite3",
    "__CANARY_DIR__/secret.txt",
    "/etc/passwd",
    "/etc/shadow",
    "/root/.bashrc",
    "/etc/hostname",
    "/var/run/secrets",
    "/proc/kcore",
]


def attack():
    for path in TARGETS + glob.glob("__REPO__/var/*"):
        try:
            with open(path, "rb") as handle:
                data = handle.read(100)
        except OSError:
            continue
        if data:
            raise SystemExit(f"ESCAPED: read {path}")
    if os.path.exists("__REPO__"):
        raise SystemExit("ESCAPED: the repository is visible")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
