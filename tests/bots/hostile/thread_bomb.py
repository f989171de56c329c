"""Starts threads until it cannot: the pids limit stops it; verdict processes."""

import threading
import time

import arena_sdk


def act(observation, legal):
    while True:
        threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()


arena_sdk.run(act)
