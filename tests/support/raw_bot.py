"""A bot speaking the raw line protocol (no SDK), with chosen code run at its start and at
each of its moves; it answers the last legal action."""

from __future__ import annotations

RAW_TEMPLATE = """
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
moves = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "start":
        {on_start}
        send({{"type": "ready"}})
    elif m["type"] == "act":
        moves += 1
        {on_act}
        send({{"type": "action", "action": m["legal"][-1]}})
"""


def raw_bot(make_bot, on_act="pass", on_start="pass", name="bot"):
    """The raw bot's folder, made by the ``make_bot`` fixture."""
    return make_bot(RAW_TEMPLATE.format(on_act=on_act, on_start=on_start), name=name)


def option_shy_source(option: str, message: str = "this bot cannot play with that option") -> bytes:
    """A raw bot's main.py that plays normally unless the start message's options set
    ``option`` (to anything true), and then raises at its start with ``message`` on its
    stderr: what a bot that was only ever tried under the defaults can hide."""
    on_start = f'if m["options"].get({option!r}): raise RuntimeError({message!r})'
    return RAW_TEMPLATE.format(on_act="pass", on_start=on_start).encode()
