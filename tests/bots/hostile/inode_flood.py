"""Creates empty files in /tmp until refused (inodes and dentries are kernel memory, which
the byte size of the tmpfs does not bound); contained if refused with ENOSPC below the limit.
"""

import errno
import os
import sys
import time

import arena_sdk

LIMIT = int("__TMPFS_INODES__")  # the sandbox's file limit, filled in by the test
ATTEMPTS = 100_000


def flood():
    start, created = time.monotonic(), 0
    try:
        while created < ATTEMPTS:
            os.close(os.open(f"/tmp/f{created}", os.O_CREAT | os.O_WRONLY, 0o600))
            created += 1
    except OSError as exc:
        seconds = time.monotonic() - start
        print(f"inode_flood: {created} files in {seconds:.3f} s, then {exc}", file=sys.stderr)
        if exc.errno != errno.ENOSPC:
            raise SystemExit(f"ESCAPED: refused with {exc!r}, not ENOSPC") from None
    if created >= LIMIT:
        raise SystemExit(f"ESCAPED: created {created} files (limit {LIMIT})")


def act(observation, legal):
    if not os.path.exists("/tmp/f0"):
        flood()
    return legal[0]


arena_sdk.run(act)
