"""Forks without end on its first move: the pids limit stops it; verdict processes."""

import os

import arena_sdk


def act(observation, legal):
    while True:
        os.fork()


arena_sdk.run(act)
