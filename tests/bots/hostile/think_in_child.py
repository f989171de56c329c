"""Forks a child that computes on the other seats' time: the freezer must stop it."""

import os

import arena_sdk


def act(observation, legal):
    if not hasattr(act, "started"):
        act.started = True
        if os.fork() == 0:
            while True:
                pass
    return legal[0]


arena_sdk.run(act)
