"""Writes one file larger than the file size limit: SIGXFSZ; verdict crashed."""

import arena_sdk


def act(observation, legal):
    with open("/tmp/big", "wb") as out:
        for _ in range(64):
            out.write(b"\0" * (1 << 20))
    return legal[0]


arena_sdk.run(act)
