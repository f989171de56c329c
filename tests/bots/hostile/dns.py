"""Tries to resolve names (DNS, /etc/hosts, nscd); contained."""

import socket

import arena_sdk


def attack():
    for name in ("example.com", "redis", "postgres", "db"):
        try:
            socket.getaddrinfo(name, 80)
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: resolved {name}")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
