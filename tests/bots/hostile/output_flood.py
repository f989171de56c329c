"""Answers, then floods stdout with valid-looking lines; verdict output (flood)."""

import sys

import arena_sdk


def act(observation, legal):
    line = '{"type":"action","action":0}\n' * 1000
    sys.stdout.write('{"type":"action","action":0}\n')
    sys.stdout.flush()
    while True:
        sys.stdout.write(line)
        sys.stdout.flush()


arena_sdk.run(act)
