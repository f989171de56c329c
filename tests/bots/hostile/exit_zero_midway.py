"""Exits cleanly (status 0) in the middle of the match; verdict crashed with exit code 0."""

import os

import arena_sdk


def act(observation, legal):
    os._exit(0)


arena_sdk.run(act)
