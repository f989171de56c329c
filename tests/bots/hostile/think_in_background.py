"""Answers at once, then computes in a thread on the other seats' time; it must be paused
(the test checks its CPU stays far below the other seat's thinking time)."""

import threading

import arena_sdk


def spin():
    while True:
        pass


def act(observation, legal):
    if not hasattr(act, "started"):
        act.started = True
        threading.Thread(target=spin, daemon=True).start()
    return legal[0]


arena_sdk.run(act)
