"""ARENA_LOG_JSON=1: one JSON object per line, and the events of an upload, its validation
and a match played by the worker's own service each carry their ids."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model

from arena.log_format import JsonFormatter
from bots import services as bot_services
from tests.integration.test_queues import QUICK_BOT
from tests.support import builders
from tests.support.servers import ROOT
from tournaments.services.playing import play_queued_match

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def json_events():
    """The arena.events lines of the test, as the JSON formatter writes them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("arena.events")
    logger.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)


def test_upload_validation_and_a_match_leave_one_line_each_with_their_ids(json_events):
    owner = get_user_model().objects.create_user("log-owner")
    bots, versions = [], []
    for name in ("log-a", "log-b"):
        bot = bot_services.create_bot(owner=owner, name=name, game="pairs")
        version = bot_services.upload_version(bot=bot, filename="quick.py", data=QUICK_BOT)
        assert bot_services.validate_version(version_id=version.pk).status == "active"
        bots.append(bot)
        versions.append(version)
    tournament = builders.started_tournament(organiser=owner, bots=bots, games_per_pairing=2)
    match = tournament.matches.order_by("pk").first()
    assert play_queued_match(match_id=match.pk)

    lines = json_events()
    by_event: dict[str, list[dict]] = {}
    for line in lines:
        assert {"time", "level", "logger", "message", "event"} <= set(line)
        by_event.setdefault(line["event"], []).append(line)
    assert [line["version"] for line in by_event["version.uploaded"]] == [v.pk for v in versions]
    validated = by_event["version.validated"]
    assert [(line["version"], line["status"]) for line in validated] == [
        (v.pk, "active") for v in versions
    ]
    assert all(line["seconds"] >= 0 and line["worker"] for line in validated)
    (claimed,) = by_event["match.claimed"]
    (finished,) = by_event["match.finished"]
    for line in (claimed, finished):
        assert (line["match"], line["attempt"]) == (match.pk, 1)
        assert line["worker"]
    assert claimed["versions"] == [seat.version_id for seat in match.seats.order_by("seat")]
    assert finished["moves"] > 0 and finished["faults"] == 0
    assert "match.faulted" not in by_event


def test_the_setting_turns_every_console_line_into_json():
    code = (
        "import logging; from bots import events;"
        "events.emit('match.requeued', 'match 123 queued again', match=123, attempt=2);"
        "logging.getLogger('arena.other').warning('plain %s', 'words')"
    )
    env = {**os.environ, "ARENA_LOG_JSON": "1"}
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == len(done.stderr.splitlines()), done.stderr
    requeued, other = lines
    assert requeued["event"] == "match.requeued"
    assert (requeued["match"], requeued["attempt"]) == (123, 2)
    assert requeued["message"] == "match 123 queued again"
    assert other["message"] == "plain words" and other["level"] == "WARNING"
    assert "event" not in other
