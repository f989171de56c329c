"""The `arena` command against a live server (gunicorn) and a real worker, as an author
uses it from a script: log in, upload (waiting for the validation), see the versions,
challenge, follow the challenge, read a match's logs, save its record; exit codes for a
refused version, a refused request, a server not there and a bad command line. Beside it,
the author's Discord-style webhook hears that the version validated and how its first
challenge went, without the dashboard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.authtoken.models import Token

from arena.integrations import services, tokens
from arena.integrations.models import ApiToken, Notification, Webhook
from bots.models import Bot
from tests.support.builders import bot_with_version, user
from tests.support.receiver import start_receiver
from tests.support.servers import ROOT, free_port, start_gunicorn, stop_process_group, wait_for
from tests.support.user_journey import CHEATER_BOT, SDK_BOT
from tests.support.workers import purge_broker, start_worker, stop_worker

pytestmark = [pytest.mark.integration]

FIRST_LEGAL_BOT = b"""from arena_sdk import run

run(lambda observation, legal: legal[0])
"""
WEBHOOK_ENV = {
    "ARENA_WEBHOOK_PRIVATE_ADDRESSES": "1",  # the receivers are on this machine
    "ARENA_WEBHOOK_BACKOFF_SECONDS": "1",
    "ARENA_WEBHOOK_DISABLE_AFTER": "3",
}


def needs_production_shape() -> None:
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


@pytest.fixture(autouse=True)
def production_shape():
    needs_production_shape()


@pytest.fixture(scope="module")
def live_processes(django_db_setup, tmp_path_factory):
    """gunicorn and a worker on the test database, for both tests: started alike for each,
    they cost some 9 s a test to start and stop. Neither test stops them or reads their
    logs; each hears only its own receivers, and the flush between tests keeps the
    sequences, so nothing either process kept stands for the next test's rows."""
    needs_production_shape()
    tmp_path = tmp_path_factory.mktemp("client-worker")
    purge_broker()
    worker = start_worker(tmp_path, **WEBHOOK_ENV)
    try:
        server = start_gunicorn(tmp_path, env=WEBHOOK_ENV)
    except BaseException:
        stop_worker(worker)
        raise
    yield worker, server
    stop_process_group(server)
    stop_worker(worker)


@pytest.fixture
def live(live_processes, transactional_db, settings):
    """The module's gunicorn and worker, both still alive at the end of the test; the
    server's URL. The broker's queues are emptied first: the test's messages only."""
    settings.ARENA_WEBHOOK_PRIVATE_ADDRESSES = True
    purge_broker()
    worker, server = live_processes
    yield f"http://127.0.0.1:{server.port}"
    for process, what in ((worker, "worker"), (server, "server")):
        if process.poll() is not None:
            pytest.fail(f"the {what} died:\n" + process.log_path.read_text()[-3000:])


def arena(*args: str, env: dict | None = None, timeout: float = 300):
    """Run the client as its console script does (``python -m arena_client``), from the
    repository's client/ folder whether or not it is installed."""
    return subprocess.run(
        [sys.executable, "-m", "arena_client", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT / "client"), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_client_drives_a_live_server_and_a_webhook_tells_the_author(live, tmp_path):
    config = {"ARENA_CONFIG": str(tmp_path / "client.json")}
    alice = user(name="alice", password="a long password 42")
    bot = Bot.objects.create(owner=alice, name="cli-bot", game="pairs")
    rival, _ = bot_with_version(name="rival", owner=user(name="bob"), source=FIRST_LEGAL_BOT)
    chat = start_receiver()
    hook = services.create_webhook(
        user=alice, url=chat.url, events=["version.validated", "challenge.finished"],
        format="discord",
    )  # fmt: skip
    _, key = services.create_token(user=alice, name="ci", scopes=["read", "upload", "challenge"])
    (tmp_path / "bot.py").write_bytes(SDK_BOT)
    (tmp_path / "cheater.py").write_bytes(CHEATER_BOT)

    # login stores a scoped token (not the account's key, which keeps every right) for
    # the next commands, in a file only its owner can read.
    done = arena(
        "--url", live, "login", "--username", "alice",
        env={**config, "ARENA_PASSWORD": "a long password 42"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    saved = json.loads(Path(config["ARENA_CONFIG"]).read_text())
    assert saved["url"] == live
    assert Path(config["ARENA_CONFIG"]).stat().st_mode & 0o077 == 0
    account_key = Token.objects.get(user=alice).key
    assert saved["token"] != account_key and saved["token"].startswith("arena_")
    made = ApiToken.objects.get(key_hash=tokens.key_hash(saved["token"]))
    assert made.user == alice and sorted(made.scopes) == ["challenge", "read", "upload"]
    # Logging in again replaces the stored token and revokes the one it held.
    done = arena(
        "--url", live, "login", "--username", "alice", "--scopes", "read",
        env={**config, "ARENA_PASSWORD": "a long password 42"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    again = json.loads(Path(config["ARENA_CONFIG"]).read_text())
    assert again["token"] != saved["token"]
    made.refresh_from_db()
    assert made.revoked_at is not None
    assert ApiToken.objects.get(key_hash=tokens.key_hash(again["token"])).scopes == ["read"]
    done = arena(
        "--url", live, "login", "--username", "alice", "--scopes", "read,upload,challenge",
        env={**config, "ARENA_PASSWORD": "a long password 42"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    # upload: exit 0 once the version is active; the progress goes to stderr.
    done = arena("--url", live, "--token", key, "upload", str(bot.pk), str(tmp_path / "bot.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cli-bot v1 is active" in done.stdout
    assert "cli-bot v1:" in done.stderr  # the progress lines

    # A refused version: non-zero, with the reason.
    done = arena(
        "--url", live, "--token", key, "upload", str(bot.pk), str(tmp_path / "cheater.py"),
        "--json",
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    refused = json.loads(done.stdout)
    assert refused["kind"] == "refused" and refused["data"]["status"] == "invalid"
    assert refused["data"]["reason"] and refused["data"]["reason"] in done.stderr

    # versions, from the stored login this time.
    done = arena("versions", str(bot.pk), "--json", env=config)
    assert done.returncode == 0, done.stderr
    assert [(v["number"], v["status"]) for v in json.loads(done.stdout)] == [
        (2, "invalid"),
        (1, "active"),
    ]
    table = arena("versions", str(bot.pk), env=config).stdout
    assert table.splitlines()[0].split()[:3] == ["ID", "NUMBER", "STATUS"]

    # challenge, waiting for the score, then its status.
    done = arena(
        "--token", key, "challenge", str(bot.pk), str(rival.pk), "--games", "2", "--wait",
        "--json", env=config,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    challenge = json.loads(done.stdout)
    assert challenge["status"] == "finished" and challenge["played"] == challenge["total"] >= 2
    done = arena("--token", key, "status", "challenge", str(challenge["id"]), env=config)
    assert done.returncode == 0 and f"challenge {challenge['id']} (finished)" in done.stdout

    # logs and record of one of its matches.
    match_id = challenge["matches"][0]
    done = arena("--token", key, "logs", str(match_id), "--json", env=config)
    assert done.returncode == 0, done.stderr
    assert list(json.loads(done.stdout)["logs"])  # alice's seat only: bob's is not hers
    saved = tmp_path / "record.json"
    done = arena("--token", key, "record", str(match_id), "-o", str(saved), env=config)
    assert done.returncode == 0, done.stderr
    assert json.loads(saved.read_text())["id"] == match_id
    replay = subprocess.run(
        [sys.executable, "manage.py", "replay", str(saved)], cwd=ROOT, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stdout + replay.stderr

    # Exit codes: a request the server refuses (3), no server (4), a bad command line (2).
    done = arena("--token", key, "status", "tournament", "999999", "--json", env=config)
    assert done.returncode == 3 and json.loads(done.stdout)["data"]["status"] == 404
    done = arena("--url", f"http://127.0.0.1:{free_port()}", "versions", "1", env=config)
    assert done.returncode == 4 and "cannot reach" in done.stderr
    assert arena("upload", env=config).returncode == 2
    done = arena("--token", "arena_not-a-token", "versions", str(bot.pk), env=config)
    assert done.returncode == 3 and "401" in done.stderr

    # The author's chat heard of both, in Discord's format.
    messages = [json.loads(r.body)["content"] for r in chat.wait_for(2, timeout=60)]
    assert any("cli-bot@v1 passed its validation" in m for m in messages), messages
    assert any(f"Challenge {challenge['id']} finished" in m for m in messages), messages
    assert not any("cheater" in m or "refused" in m for m in messages)  # not subscribed
    delivered = hook.deliveries.filter(status="delivered")
    wait_for(lambda: delivered.count() == 2, 30, "both deliveries to be logged")
    chat.server.shutdown()


def test_a_webhook_that_fails_is_retried_with_backoff_then_turned_off(live, tmp_path):
    """On the worker: each failed attempt comes back after its backoff, doubling
    (ARENA_WEBHOOK_BACKOFF_SECONDS=1), and the hook is turned off at the third failure in a
    row (ARENA_WEBHOOK_DISABLE_AFTER=3), its owner told."""
    alice = user(name="alice")
    failing = start_receiver([503])
    hook = services.create_webhook(user=alice, url=failing.url, events=[])
    services.send_test(webhook=hook)
    got = failing.wait_for(3, timeout=120)
    gaps = [later.at - earlier.at for earlier, later in zip(got, got[1:])]
    assert gaps[0] >= 0.9 and gaps[1] >= 1.9, gaps
    wait_for(lambda: not Webhook.objects.get(pk=hook.pk).active, 30, "the hook to be turned off")
    delivery = hook.deliveries.get()
    assert (delivery.status, delivery.attempts, delivery.status_code) == ("failed", 3, 503)
    # Its owner is told just after the commit that turned it off.
    told = Notification.objects.filter(user=alice, kind="webhook.disabled")
    wait_for(told.exists, 30, "the owner to be told")
    time.sleep(5)  # a fourth attempt would have come 4 s after the third
    assert len(failing.requests) == 3
    failing.server.shutdown()
