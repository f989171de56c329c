"""Reasons as releases before the owner-only details stored them, split into what everyone
may read and what the bot wrote (its owner's only), for the data migrations of
``bots.BotVersion.reason`` (0008) and of the seats' faults (tournaments 0016). Django's
loader skips modules whose name starts with "_", so this is no migration. Keep it as it
is: the migrations that call it are history."""

from __future__ import annotations

import re

_DURING = r"(?:on move \d+|before it was ready)"
# (fault kind, an older reason, the reason as it reads now): ``detail`` is what the bot wrote.
_FAULTS = [
    ("crashed", rf"(?P<what>.*? {_DURING}): (?P<detail>.*)", "{what}"),
    (
        "protocol",
        rf"wrote a line that is not JSON: (?P<detail>.*) (?P<during>{_DURING})",
        "wrote a line that is not JSON {during}",
    ),
    (
        "protocol",
        rf'wrote (?P<detail>.*), not an object with a "type" (?P<during>{_DURING})',
        'wrote JSON that is not an object with a "type" {during}',
    ),
    (
        "protocol",
        r'answered (?P<detail>.*) to "start" instead of \{"type":"ready"\}',
        'answered something other than {{"type":"ready"}} to "start"',
    ),
    (
        "protocol",
        rf'answered (?P<detail>.*) instead of \{{"type":"action","action":\.\.\.\}} '
        rf"(?P<during>{_DURING})",
        'answered something other than {{"type":"action","action":...}} {during}',
    ),
    (
        "illegal",
        rf"answered an action not in legal (?P<during>{_DURING}): (?P<detail>.*)",
        "answered an action not in legal {during}",
    ),
]
_FAULT_PATTERNS = [(kind, re.compile(old, re.DOTALL), new) for kind, old, new in _FAULTS]
_MOVE = re.compile(r"\bon move \d+")
_TEST_MATCH = re.compile(
    r"(?P<prefix>in a test match as seat \d+, the bot )(?P<fault>.*)", re.DOTALL
)
_BUILD = "; its output ends:\n"
_KINDS = ("crashed", "protocol", "illegal")


def split_fault_reason(kind: str, reason: str) -> tuple[str, str]:
    """(the public reason, what the bot wrote) of an older fault's reason; ("", "") kept as
    it is when nothing in it is the bot's."""
    for pattern_kind, pattern, new in _FAULT_PATTERNS:
        if kind != pattern_kind:
            continue
        found = pattern.fullmatch(reason)
        if found is not None:
            parts = found.groupdict()
            return new.format(**parts), parts["detail"].strip()
    return reason, ""


def public_fault(fault: dict) -> tuple[dict, str]:
    """An older seat's fault as it is stored now, and what the bot wrote: the reason
    without it, its move numbered as the replay viewer numbers moves (``move`` + 1)."""
    reason = str(fault.get("reason") or "")
    public, detail = split_fault_reason(str(fault.get("kind")), reason)
    move = fault.get("move")
    if isinstance(move, int):
        public = _MOVE.sub(f"on move {move + 1}", public, count=1)
    return {**fault, "reason": public}, detail


def split_version_reason(reason: str) -> tuple[str, str]:
    """(the public reason, what the bot wrote) of an older version's reason: a failed test
    match's fault, or a failed build with the end of its output."""
    if _BUILD in reason:
        public, _, detail = reason.partition(_BUILD)
        return public, detail.strip()
    found = _TEST_MATCH.fullmatch(reason)
    if found is None:
        return reason, ""
    for kind in _KINDS:
        public, detail = split_fault_reason(kind, found["fault"])
        if detail:
            return found["prefix"] + public, detail
    return reason, ""
