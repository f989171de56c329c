"""Fills /tmp (its only writable place) until it is full, then plays on; contained."""

import os

import arena_sdk

written = 0


def fill():
    global written
    for i in range(1000):
        try:
            with open(f"/tmp/fill{i}", "wb") as out:
                for _ in range(64):
                    out.write(b"\0" * (1 << 20))
                    written += 1 << 20
        except OSError:
            break
    if written > 17 << 20:  # /tmp is a 16 MB tmpfs
        raise SystemExit(f"ESCAPED: wrote {written} bytes")


def act(observation, legal):
    if not os.path.exists("/tmp/fill0"):
        fill()
    return legal[0]


arena_sdk.run(act)
