"""Recurses without end; verdict crashed (RecursionError)."""

import arena_sdk


def deep(n):
    return deep(n + 1) + 1


def act(observation, legal):
    return legal[deep(0) % len(legal)]


arena_sdk.run(act)
