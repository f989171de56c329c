"""Plants symlinks to host paths where a careless harness might follow them, and tries to
escape through /proc/*/root and /proc/*/cwd; contained."""

import os

import arena_sdk


def attack():
    for name, target in (
        ("/tmp/result.json", "__CANARY_DIR__/secret.txt"),
        ("/tmp/main.py", "/etc/shadow"),
        ("/tmp/root", "/proc/1/root"),
    ):
        try:
            os.symlink(target, name)
        except OSError:
            pass
    for path in ("/tmp/root/__REPO__", "/proc/1/cwd/../../__REPO__", "/tmp/result.json"):
        try:
            with open(path, "rb") as handle:
                handle.read(1)
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: read through {path}")
    try:
        os.link("/bot/main.py", "/tmp/hardlink")
    except OSError:
        pass


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
