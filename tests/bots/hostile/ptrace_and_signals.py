"""ptrace, process_vm_readv and signals against everything it can name; contained."""

import ctypes
import os
import signal

import arena_sdk

libc = ctypes.CDLL(None, use_errno=True)
WORKER_PID = int("__WORKER_PID__")  # filled in by the test


def attack():
    for pid in (0, 1, os.getppid(), WORKER_PID):
        if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
            raise SystemExit(f"ESCAPED: ptrace attached to {pid}")
    for pid in (WORKER_PID, -1):
        try:
            os.kill(pid, signal.SIGKILL if pid != -1 else signal.SIGTERM)
        except OSError:
            pass


def act(observation, legal):
    if not hasattr(act, "done"):
        act.done = True
        attack()
    return legal[0]


arena_sdk.run(act)
