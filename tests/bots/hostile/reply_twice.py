"""Answers every act twice; verdict protocol."""

import sys

for line in sys.stdin:
    if '"start"' in line:
        print('{"type":"ready"}', flush=True)
    else:
        print('{"type":"action","action":0}\n{"type":"action","action":1}', flush=True)
