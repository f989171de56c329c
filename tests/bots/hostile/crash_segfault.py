"""Dereferences NULL on its second move; verdict crashed with SIGSEGV."""

import ctypes

import arena_sdk

moves = 0


def act(observation, legal):
    global moves
    moves += 1
    if moves == 2:
        ctypes.string_at(0)
    return legal[0]


arena_sdk.run(act)
