"""Calls abort() (SIGABRT); verdict crashed with SIGABRT."""

import os
import sys

import arena_sdk


def act(observation, legal):
    print("about to abort", file=sys.stderr, flush=True)
    os.abort()


arena_sdk.run(act)
