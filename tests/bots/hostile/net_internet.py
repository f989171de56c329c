"""Tries to reach the internet (IPv4 and IPv6, TCP and UDP); contained."""

import socket

import arena_sdk


def attack():
    for family, address in (
        (socket.AF_INET, ("1.1.1.1", 53)),
        (socket.AF_INET6, ("2606:4700::1111", 53)),
    ):
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            try:
                sock = socket.socket(family, kind)
                sock.settimeout(1)
                sock.connect(address)
                sock.send(b"x")
            except OSError:
                continue
            raise SystemExit(f"ESCAPED: reached {address}")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
