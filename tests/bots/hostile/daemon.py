"""Double-forks a daemon that outlives the match if it can; contained (killed at the end)."""

import os
import time

import arena_sdk


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(0.01)
            os._exit(0)
        os.wait()
    return legal[0]


arena_sdk.run(act)
