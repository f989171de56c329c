"""Looks at /proc for other processes (the worker, other bots); contained: it sees itself."""

import os

import arena_sdk


def attack():
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    if pids != ["1"]:
        raise SystemExit(f"ESCAPED: sees processes {pids}")
    for path in (
        "/proc/__WORKER_PID__/environ",
        "/proc/__WORKER_PID__/mem",
        "/proc/1/root/__REPO__",
        "/proc/self/root/__REPO__",
    ):
        if os.path.exists(path):
            raise SystemExit(f"ESCAPED: {path} exists")
    with open("/proc/self/status") as handle:
        status = handle.read()
    if "CapEff:\t0000000000000000" not in status or "NoNewPrivs:\t1" not in status:
        raise SystemExit("ESCAPED: has capabilities or may gain privileges")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
