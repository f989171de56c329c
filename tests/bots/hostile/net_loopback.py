"""Tries to reach 127.0.0.1:8000 (and ::1, and the host's other addresses, and
abstract Unix sockets of the host); contained."""

import socket

import arena_sdk


def attack():
    for host in ("127.0.0.1", "::1", "localhost", "172.17.0.1", "10.0.2.2"):
        try:
            with socket.create_connection((host, 8000), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: connected to {host}:8000")
    # Abstract Unix sockets belong to the network namespace: the test listens on one.
    for name in (b"\0arena-canary-__WORKER_PID__", b"\0/org/freedesktop/systemd1/notify"):
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.connect(name)
        except OSError:
            continue
        raise SystemExit(f"ESCAPED: connected to the abstract socket {name!r}")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
