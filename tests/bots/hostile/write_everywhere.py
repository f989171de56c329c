"""Tries to write in every place it can name, outside /tmp; contained (all refused)."""

import os

import arena_sdk

TARGETS = [
    "/",
    "/bot",
    "/sdk",
    "/usr",
    "/usr/lib",
    "/etc",
    "/dev",
    "/proc",
    "/proc/sys/kernel",
    "/bin",
    "/var",
    "/root",
    "__REPO__",
    "__CANARY_DIR__",
    "/sys",
    "/dev/shm",
    "/dev/mqueue",
    "/var/tmp",
    "/run",
]


def attack():
    for place in TARGETS:
        path = os.path.join(place, "pwned")
        try:
            with open(path, "w") as out:
                out.write("pwned")
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: wrote {path}")
    for path in ("/dev/null", "/dev/zero"):
        try:
            os.chmod(path, 0o777)
            os.unlink(path)
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: removed {path}")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
