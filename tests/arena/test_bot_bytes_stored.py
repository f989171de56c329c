"""Whatever bytes a bot writes on stderr or stdout (NUL, invalid UTF-8, JSON escapes of NUL
or of a lone surrogate), its match and its validation verdict are stored on PostgreSQL,
which refuses NUL in text and JSON and cannot encode a lone surrogate."""

from __future__ import annotations

import pytest

from bots import sandbox
from bots import services as bot_services
from bots.models import BotVersion
from tournaments import services
from tournaments.models import MatchSeat

# The raw protocol; ``on_act`` runs at each of its decisions (``n`` counts them).
RAW = """import json, sys
n = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "start":
        print(json.dumps({{"type": "ready"}}), flush=True)
    elif m["type"] == "act":
        n += 1
        if n == 2:
            {on_act}
        print(json.dumps({{"type": "action", "action": m["legal"][0]}}), flush=True)
"""
PLAYER = RAW.format(on_act="pass")
HOSTILE = {
    "stderr_then_crash": (
        r'sys.stderr.buffer.write(b"nul \x00 bad \xff\xfe\xed\xa0\x80 end\n"); '
        "sys.stderr.flush(); sys.exit(1)",
        "crashed",
    ),
    "stdout_not_utf8": (
        r'sys.stdout.buffer.write(b"\x00\xff\xfe\n"); sys.stdout.flush(); continue',
        "protocol",
    ),
    "stdout_not_json": (
        r'sys.stdout.buffer.write(b"nul \x00 here\n"); sys.stdout.flush(); continue',
        "protocol",
    ),
    "json_nul_and_surrogate_action": (
        r"sys.stdout.write('{\"type\":\"action\",\"action\":\"\\u0000\\ud800\"}\n'); "
        "sys.stdout.flush(); continue",
        "illegal",
    ),
    "json_surrogate_type": (
        r"sys.stdout.write('{\"type\":\"\\udc00\\u0000\"}\n'); sys.stdout.flush(); continue",
        "protocol",
    ),
    "stderr_only": (
        r'sys.stderr.buffer.write(b"\x00\xff log goes on\n"); sys.stderr.flush()',
        None,
    ),
}


@pytest.fixture
def needs_sandbox(settings, tmp_path):
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    settings.ARENA_BOT_CACHE = tmp_path / "bot-cache"


def storable(text: str) -> None:
    assert "\x00" not in text
    text.encode()  # no lone surrogate


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_match_with_any_bytes_is_stored(needs_sandbox, make_user, case):
    on_act, kind = HOSTILE[case]
    owner = make_user("owner")
    bots = []
    for name, source in (("hostile", RAW.format(on_act=on_act)), ("player", PLAYER)):
        bot = bot_services.create_bot(owner=owner, name=name, game="pairs")
        version = bot_services.upload_version(bot=bot, filename="main.py", data=source.encode())
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
        bots.append(bot)
    tournament = services.create_tournament(
        organiser=owner, name="bytes", game="pairs", bot_ids=[b.pk for b in bots],
        games_per_pairing=1, rotate_seats=False, seed=3,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)
    match = services.play_match(match_id=tournament.matches.get().pk)
    assert match.status == "finished", match.error
    seat = MatchSeat.objects.get(match=match, version__bot=bots[0])
    assert (seat.fault or {}).get("kind") == kind, seat.fault
    for text in (seat.log, seat.fault_detail, str(seat.fault)):
        storable(text)
    if kind == "crashed":
        assert "bad \ufffd" in seat.fault_detail and "end" in seat.fault_detail
    if case == "stderr_only":
        assert "log goes on" in seat.log


def test_a_validation_verdict_with_any_bytes_is_stored(needs_sandbox, make_user):
    source = 'import sys\nsys.stderr.buffer.write(b"\\x00 why \\xff\\n"); sys.exit(2)\n'
    bot = bot_services.create_bot(owner=make_user("owner"), name="bad", game="pairs")
    version = bot_services.upload_version(bot=bot, filename="main.py", data=source.encode())
    version = bot_services.validate_version(version_id=version.pk)
    assert version.status == BotVersion.Status.INVALID
    assert "exit code 2" in version.reason
    assert version.reason_detail == "\ufffd why \ufffd"
