"""Sleeps forever on its first move; verdict timeout."""

import time

import arena_sdk


def act(observation, legal):
    time.sleep(10**6)


arena_sdk.run(act)
