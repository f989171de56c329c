"""Grows its memory 16 MB at a time, touching every page; verdict memory."""

import arena_sdk

hoard = []


def act(observation, legal):
    while True:
        hoard.append(b"x" * (16 << 20))


arena_sdk.run(act)
