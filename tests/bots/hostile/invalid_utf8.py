"""Answers with bytes that are not UTF-8; verdict protocol."""

import sys

import arena_sdk


def act(observation, legal):
    sys.stdout.buffer.write(b'{"type":"action","action":"\xff\xfe"}\n')
    sys.stdout.buffer.flush()
    sys.stdin.readline()


arena_sdk.run(act)
