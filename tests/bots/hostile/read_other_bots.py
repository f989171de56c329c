"""Searches every visible file for another bot's code (its secret token); contained."""

import os

import arena_sdk

TOKEN = "NEIGHBOUR" + "_SECRET_TOKEN"
SKIP = ("/proc", "/sys", "/usr")


def attack():
    for root, dirs, files in os.walk("/"):
        if root.startswith(SKIP):
            dirs[:] = []
            continue
        for name in files:
            path = os.path.join(root, name)
            # /etc/alternatives links into /usr: hundreds of system binaries, read cold
            # from disk in seconds on a machine just booted (the move's clock ran out).
            if os.path.realpath(path).startswith(SKIP):
                continue
            try:
                with open(path, "rb") as handle:
                    if TOKEN.encode() in handle.read(1 << 20):
                        if path != "/bot/main.py":
                            raise SystemExit(f"ESCAPED: found another bot's code in {path}")
            except OSError:
                continue
    for path in ("/tmp/arena-sandbox", "__REPO__/examples", "__REPO__/var"):
        if os.path.exists(path):
            raise SystemExit(f"ESCAPED: {path} is visible")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
