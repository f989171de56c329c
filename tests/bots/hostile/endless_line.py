"""Writes one line that never ends; verdict output (line too long)."""

import sys

import arena_sdk


def act(observation, legal):
    while True:
        sys.stdout.write("x" * 65536)
        sys.stdout.flush()


arena_sdk.run(act)
