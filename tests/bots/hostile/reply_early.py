"""Sends an action right after "ready", before being asked; verdict protocol."""

import sys

for line in sys.stdin:
    if '"start"' in line:
        print('{"type":"ready"}\n{"type":"action","action":0}', flush=True)
    else:
        print('{"type":"action","action":0}', flush=True)
