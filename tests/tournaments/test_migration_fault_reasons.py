"""Reasons stored before the owner-only details: the data migrations (bots 0008,
tournaments 0016) take what the bot wrote out of the public reasons, into
``reason_detail`` and ``fault_detail``, and number a fault's move as the viewer does."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bots.migrations._old_reasons import public_fault, split_version_reason

BEFORE = [("bots", "0007_version_reason_detail"), ("tournaments", "0015_seat_fault_detail")]
AFTER = [("bots", "0008_split_version_reasons"), ("tournaments", "0016_split_fault_reasons")]
TAIL = "Traceback (most recent call last):\n  File x\nKeyError: 'secret k=1.0'"

# (older fault, as stored now, its detail)
FAULTS = [
    (
        {"kind": "crashed", "reason": f"crashed with exit code 1 on move 2: {TAIL}", "move": 5},
        {"kind": "crashed", "reason": "crashed with exit code 1 on move 6", "move": 5},
        TAIL,
    ),
    (
        {"kind": "crashed", "reason": "crashed with exit code 4 before it was ready: bye", "move": None},
        {"kind": "crashed", "reason": "crashed with exit code 4 before it was ready", "move": None},
        "bye",
    ),
    (
        {"kind": "crashed", "reason": "closed its stdout on move 3: see: on move 9: x", "move": 7},
        {"kind": "crashed", "reason": "closed its stdout on move 8", "move": 7},
        "see: on move 9: x",
    ),
    (
        {"kind": "crashed", "reason": "crashed with signal SIGSEGV on move 1", "move": 0},
        {"kind": "crashed", "reason": "crashed with signal SIGSEGV on move 1", "move": 0},
        "",
    ),
    (
        {"kind": "protocol", "reason": "wrote a line that is not JSON: 'k=1.0 on move 1' on move 2", "move": 3},
        {"kind": "protocol", "reason": "wrote a line that is not JSON on move 4", "move": 3},
        "'k=1.0 on move 1'",
    ),
    (
        {"kind": "protocol", "reason": 'wrote ["k=1.0"], not an object with a "type" on move 1', "move": 0},
        {"kind": "protocol", "reason": 'wrote JSON that is not an object with a "type" on move 1', "move": 0},
        '["k=1.0"]',
    ),
    (
        {"kind": "protocol", "reason": 'answered {"type":"k=1.0"} to "start" instead of {"type":"ready"}', "move": None},
        {"kind": "protocol", "reason": 'answered something other than {"type":"ready"} to "start"', "move": None},
        '{"type":"k=1.0"}',
    ),
    (
        {"kind": "protocol", "reason": 'answered {"type":"move"} instead of {"type":"action","action":...} on move 2', "move": 2},
        {"kind": "protocol", "reason": 'answered something other than {"type":"action","action":...} on move 3', "move": 2},
        '{"type":"move"}',
    ),
    (
        {"kind": "illegal", "reason": 'answered an action not in legal on move 5: "k=1.0"', "move": 8},
        {"kind": "illegal", "reason": "answered an action not in legal on move 9", "move": 8},
        '"k=1.0"',
    ),
    (
        {"kind": "timeout", "reason": "timed out on move 4 after 1000 ms", "move": 9},
        {"kind": "timeout", "reason": "timed out on move 10 after 1000 ms", "move": 9},
        "",
    ),
    (
        {"kind": "protocol", "reason": "wrote a message nobody asked for (replied twice?) on move 1", "move": 1},
        {"kind": "protocol", "reason": "wrote a message nobody asked for (replied twice?) on move 2", "move": 1},
        "",
    ),
]  # fmt: skip
# (older version reason, as stored now, its detail)
VERSIONS = [
    (
        f"in a test match as seat 1, the bot crashed with exit code 2 on move 3: {TAIL}",
        "in a test match as seat 1, the bot crashed with exit code 2 on move 3",
        TAIL,
    ),
    (
        'in a test match as seat 0, the bot answered an action not in legal on move 1: "k=1.0"',
        "in a test match as seat 0, the bot answered an action not in legal on move 1",
        '"k=1.0"',
    ),
    (
        "bot.zip: build.sh failed with exit code 1; its output ends:\ncompiling\nk=1.0 error",
        "bot.zip: build.sh failed with exit code 1",
        "compiling\nk=1.0 error",
    ),
    ("'x' is both a file and a folder in the zip", "'x' is both a file and a folder in the zip", ""),
    ("validation could not run after 3 attempts: x: y", "validation could not run after 3 attempts: x: y", ""),
]  # fmt: skip


@pytest.mark.parametrize("old, new, detail", FAULTS)
def test_an_older_fault_is_split(old, new, detail):
    assert public_fault(old) == (new, detail)


@pytest.mark.parametrize("old, new, detail", VERSIONS)
def test_an_older_version_reason_is_split(old, new, detail):
    assert split_version_reason(old) == (new, detail)


@pytest.mark.django_db(transaction=True)
def test_the_migrations_move_what_the_bots_wrote_to_their_owners_fields():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="old")
    Bot, Version = old.get_model("bots", "Bot"), old.get_model("bots", "BotVersion")
    Match = old.get_model("tournaments", "Match")
    bot = Bot.objects.create(owner=user, name="old", game="pairs")
    versions = [
        Version.objects.create(
            bot=bot, number=n, filename="m.py", upload=b"", sha256=str(n), size=0,
            status="invalid", reason=reason,
        )
        for n, (reason, _, _) in enumerate(VERSIONS, start=1)
    ]  # fmt: skip
    matches = []
    for seq, (fault, _, _) in enumerate(FAULTS):
        seats = [{"score": 0, "rank": 2, "fault": fault}, {"score": 1, "rank": 1, "fault": None}]
        match = Match.objects.create(
            game="pairs", engine_version=1, seed=seq, status="finished",
            result={"seats": seats, "teams": []},
        )  # fmt: skip
        match.seats.create(seat=0, version_id=versions[0].pk, rank=2, fault=fault)
        match.seats.create(seat=1, version_id=versions[1].pk, rank=1, fault=None)
        matches.append(match)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    Version = new.get_model("bots", "BotVersion")
    Match, Seat = new.get_model("tournaments", "Match"), new.get_model("tournaments", "MatchSeat")
    for version, (_, reason, detail) in zip(versions, VERSIONS):
        stored = Version.objects.get(pk=version.pk)
        assert (stored.reason, stored.reason_detail) == (reason, detail)
    for match, (_, fault, detail) in zip(matches, FAULTS):
        seat = Seat.objects.get(match_id=match.pk, seat=0)
        assert (seat.fault, seat.fault_detail) == (fault, detail)
        result = Match.objects.get(pk=match.pk).result
        assert result["seats"] == [
            {"score": 0, "rank": 2, "fault": fault},
            {"score": 1, "rank": 1, "fault": None},
        ]
        assert Seat.objects.get(match_id=match.pk, seat=1).fault is None
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
