"""Closes its stdout and keeps running; verdict crashed (closed its stdout)."""

import os
import time

import arena_sdk


def act(observation, legal):
    os.close(1)
    time.sleep(100)


arena_sdk.run(act)
