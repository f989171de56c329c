"""The broker down while the web stores things (real gunicorn, PostgreSQL, a closed port as
the broker): an upload still answers 201 and is stored once, starting a tournament still
succeeds; once a broker is back, the reapers send what was never published."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from bots import services as bot_services
from bots.models import BotVersion
from tests.integration.test_queues import QUICK_BOT, active_bots, needs_redis_and_postgres
from tests.support.servers import (
    ROOT,
    database_url,
    free_port,
    start_gunicorn,
    stop_process_group,
    wait_for,
)
from tests.support.workers import purge_broker, start_worker, stop_worker
from tournaments import services
from tournaments.models import Match

pytestmark = [pytest.mark.integration]


def broker_down_env() -> dict[str, str]:
    env = dict(os.environ)
    env["DATABASE_URL"] = database_url()
    env["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    return env


def upload(port: int, token: str, bot_id: int, data: bytes) -> tuple[int, dict]:
    boundary = "arena-test-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="quick.py"\r\n'
            f"Content-Type: text/x-python\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/bots/{bot_id}/versions/",
        data=body,
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {"body": error.read()[:2000].decode(errors="replace")}


def test_with_the_broker_down_writes_succeed_and_the_reapers_send_them_later(
    transactional_db, tmp_path
):
    needs_redis_and_postgres()
    owner = get_user_model().objects.create_user("broker-down")
    token = Token.objects.create(user=owner).key
    bot_ids = active_bots(owner, ["d-a", "d-b"])
    late = bot_services.create_bot(owner=owner, name="d-late", game="pairs")
    env = broker_down_env()

    server = start_gunicorn(tmp_path, env=env)
    try:
        began = time.monotonic()
        status, body = upload(server.port, token, late.pk, QUICK_BOT)
        print(f"\nupload with the broker down answered {status} in {time.monotonic() - began:.2f}s")
    finally:
        stop_process_group(server)
    assert status == 201, body
    assert list(BotVersion.objects.filter(bot=late).values_list("status", flat=True)) == ["pending"]

    # Starting a tournament (as the beat's task does) with the broker down also succeeds.
    tournament = services.create_tournament(
        organiser=owner, name="unsent", game="pairs", bot_ids=bot_ids, seed=4
    )
    start = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         f"from tournaments import services; services.start_tournament(tournament_id={tournament.pk})"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert start.returncode == 0, start.stderr[-3000:]
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.QUEUED}

    # A broker again: nothing was ever published, and the reapers notice.
    purge_broker()
    worker = start_worker(
        tmp_path, "after", ARENA_REAPER_SECONDS="1", ARENA_LOST_MESSAGE_SECONDS="1"
    )
    try:

        def sent_and_done():
            statuses = set(BotVersion.objects.filter(bot=late).values_list("status", flat=True))
            matches = set(tournament.matches.values_list("status", flat=True))
            return statuses == {"active"} and matches == {Match.Status.FINISHED}

        wait_for(sent_and_done, 90, "the reapers to send the validation and the match", worker)
    finally:
        stop_worker(worker)
