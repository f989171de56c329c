"""Writes megabytes to stderr on every move but plays correctly; contained, no fault
(the host drains stderr, keeps a tail, and the bot never blocks on it)."""

import sys

import arena_sdk


def act(observation, legal):
    for _ in range(200):
        sys.stderr.write("log " * 4096 + "\n")
    sys.stderr.flush()
    return legal[0]


arena_sdk.run(act)
