"""Spins on its second move; verdict timeout."""

import arena_sdk

moves = 0


def act(observation, legal):
    global moves
    moves += 1
    while moves == 2:
        pass
    return legal[0]


arena_sdk.run(act)
