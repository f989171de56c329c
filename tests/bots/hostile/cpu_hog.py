"""Burns 0.6 s of CPU on every move, under the move clock but over the match's CPU limit
(the test sets it to 1 s); verdict cpu."""

import time

import arena_sdk


def act(observation, legal):
    end = time.process_time() + 0.6
    while time.process_time() < end:
        pass
    return legal[0]


arena_sdk.run(act)
