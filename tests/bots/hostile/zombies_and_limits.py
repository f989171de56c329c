"""Leaves zombies, tries to raise its rlimits and to change uid; contained."""

import os
import resource

import arena_sdk


def attack():
    for _ in range(5):
        if os.fork() == 0:
            os._exit(0)
    for limit in (resource.RLIMIT_NPROC, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE):
        soft, hard = resource.getrlimit(limit)
        try:
            resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (ValueError, OSError):
            continue
        if hard != resource.RLIM_INFINITY:
            raise SystemExit(f"ESCAPED: raised rlimit {limit}")
    for uid in (0, 65534):
        try:
            os.setuid(uid)
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: setuid({uid})")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
