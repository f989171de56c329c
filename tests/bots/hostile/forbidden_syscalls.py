"""Calls mount, unshare, setns, keyctl, bpf, io_uring_setup, perf_event_open, userfaultfd
and clone with namespace flags; each must be refused; contained."""

import ctypes
import os

import arena_sdk

libc = ctypes.CDLL(None, use_errno=True)
CALLS = {
    "mount": (165, 0, 0, 0),
    "unshare": (272, 0x10000000, 0, 0),
    "setns": (308, 0, 0, 0),
    "keyctl": (250, 0, 0, 0),
    "bpf": (321, 0, 0, 0),
    "io_uring_setup": (425, 1, 0, 0),
    "perf_event_open": (298, 0, 0, 0),
    "userfaultfd": (323, 0, 0, 0),
    "clone_newuser": (56, 0x10000000 | 17, 0, 0),
    "chroot": (161, 0, 0, 0),
}


def attack():
    for name, (nr, *args) in CALLS.items():
        result = libc.syscall(nr, *args)
        if result >= 0:
            if result == 0 and name.startswith("clone"):
                os._exit(0)  # the child of a clone that should not have happened
            raise SystemExit(f"ESCAPED: {name} returned {result}")


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
