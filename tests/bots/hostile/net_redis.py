"""Tries to reach 127.0.0.1:6379 (and ::1, and the host's other addresses, and
its Unix socket); contained."""

import socket

import arena_sdk


def attack():
    for host in ("127.0.0.1", "::1", "localhost", "172.17.0.1", "10.0.2.2"):
        try:
            with socket.create_connection((host, 6379), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: connected to {host}:6379")
    for path in [
        "/var/run/redis/redis-server.sock",
        "/run/redis/redis.sock",
        "/tmp/redis.sock",
    ]:  # its Unix socket, if the server has one
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.connect(path)
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: connected to {path}")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
