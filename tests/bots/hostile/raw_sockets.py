"""Tries netlink, packet and raw sockets and a listening loopback server; contained."""

import socket

import arena_sdk


def attack():
    families = [
        (socket.AF_NETLINK, socket.SOCK_RAW, 0),
        (socket.AF_PACKET, socket.SOCK_RAW, 0),
        (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
    ]
    for family, kind, proto in families:
        try:
            socket.socket(family, kind, proto).close()
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: opened a socket of family {family}")
    try:
        server = socket.socket()
        server.bind(("127.0.0.1", 9999))
        server.listen()
    except OSError:
        return
    raise SystemExit("ESCAPED: listening on 127.0.0.1:9999")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
