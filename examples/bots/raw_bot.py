"""An Arena bot speaking the wire protocol directly (no SDK): JSON lines on stdin/stdout.

Any language can do the same: read a line, parse JSON, write one JSON line back, flush.
It always plays the first legal action.
"""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # without it the answer sits in a buffer and the bot times out


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        send({"type": "ready"})
    elif message["type"] == "act":
        send({"type": "action", "action": message["legal"][0]})
    elif message["type"] == "end":
        print("final result:", message["result"], file=sys.stderr)
        break
