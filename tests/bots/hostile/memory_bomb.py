"""Allocates far more than the memory limit at once; verdict memory."""

import arena_sdk


def act(observation, legal):
    hog = bytearray(2 << 30)
    return legal[len(hog) % len(legal)]


arena_sdk.run(act)
