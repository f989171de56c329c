"""Oversized and chunked request bodies against a real gunicorn (the production server): the
refusal reaches the client as an answer, and no byte of the body reaches the disk."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token

from bots import services as bot_services
from bots import validation
from bots.models import BotVersion
from tests.support.servers import start_gunicorn, stop_process_group, wait_for

BOUNDARY = "arena-test-boundary"
# Any well-formed value: with a CSRF cookie, CSRF middleware reads the form for its token.
CSRF_COOKIE = "csrftoken=" + "a" * 32


class Server:
    def __init__(self, process: subprocess.Popen, temp: Path):
        self.process, self.port, self.temp = process, process.port, temp

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=30)


@pytest.fixture
def gunicorn(transactional_db, tmp_path):
    """gunicorn as the Dockerfile runs it (sync workers), on a free loopback port, pointed
    at the test database, with its own temporary directory to watch."""
    temp = tmp_path / "server-tmp"
    temp.mkdir()
    process = start_gunicorn(tmp_path, env={"TMPDIR": str(temp)})
    try:
        # Its heartbeat file is created and unlinked at start; start from an empty folder.
        wait_for(lambda: not list(temp.iterdir()), 10, "gunicorn's start-up files", process)
        yield Server(process, temp)
    finally:
        stop_process_group(process)


@pytest.fixture
def owner(transactional_db):
    user = get_user_model().objects.create_user(username="big-sender", password="pw 12345678")
    bot = bot_services.create_bot(owner=user, name="big", game="pairs")
    browser = Client()
    browser.force_login(user)
    return {
        "bot": bot,
        "token": Token.objects.create(user=user).key,
        "session": browser.cookies["sessionid"].value,
    }


class TempWatcher:
    """Notes every file that appears in the server's temporary directory while it runs."""

    def __init__(self, folder: Path):
        self.folder, self.seen, self._stop = folder, set(), threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while not self._stop.is_set():
            self.seen.update(p.name for p in self.folder.iterdir())
            time.sleep(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.seen.update(p.name for p in self.folder.iterdir())


def multipart_head(filename: str, size: int) -> tuple[bytes, bytes, int]:
    """The parts around one file field: (before the content, after it, total length)."""
    before = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()
    after = f"\r\n--{BOUNDARY}--\r\n".encode()
    return before, after, len(before) + size + len(after)


def send_big_upload(
    server: Server, path: str, size: int, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    """POST a file of ``size`` bytes the way most clients do: the whole body is sent in a
    thread while the answer is read; returns (status, headers, body) of the answer."""
    before, after, length = multipart_head("big.py", size)
    sock = server.connect()
    head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {length}",
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}"]  # fmt: skip
    head += [f"{name}: {value}" for name, value in headers.items()]
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())

    def send_body():
        chunk = b"#" * (1 << 20)
        try:
            sock.sendall(before)
            for _ in range(size // len(chunk)):
                sock.sendall(chunk)
            sock.sendall(b"#" * (size % len(chunk)) + after)
        except OSError:
            pass  # the server stopped reading after its answer: expected for huge bodies

    sender = threading.Thread(target=send_body, daemon=True)
    sender.start()
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = response.read()
    sender.join(timeout=60)
    sock.close()
    return response.status, dict(response.getheaders()), body


@pytest.mark.parametrize("megabytes", [2, 16])
def test_an_oversized_api_upload_gets_its_answer_through_http_client(gunicorn, owner, megabytes):
    """http.client sends the whole body before it reads anything: the 413 must still arrive
    (no reset connection: 16 MB is more than the loopback's socket buffers hold, so the
    server has to take in and drop the body after answering), and nothing is stored."""
    size = megabytes << 20
    before, after, _ = multipart_head("big.py", size)
    body = before + b"#" * size + after
    with TempWatcher(gunicorn.temp) as watcher:
        connection = http.client.HTTPConnection("127.0.0.1", gunicorn.port, timeout=30)
        connection.request(
            "POST",
            f"/api/bots/{owner['bot'].pk}/versions/",
            body=body,
            headers={
                "Authorization": f"Token {owner['token']}",
                "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            },
        )
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
    assert response.status == 413, answer
    assert answer["code"] == "request_too_large" and answer["errors"] == {}
    assert f"uploads are limited to {validation.MAX_UPLOAD_BYTES} bytes" in answer["detail"]
    assert BotVersion.objects.count() == 0
    assert watcher.seen == set()


def test_a_100_mb_dashboard_upload_is_refused_before_it_is_read(gunicorn, owner):
    with TempWatcher(gunicorn.temp) as watcher:
        status, headers, body = send_big_upload(
            gunicorn, f"/bots/{owner['bot'].pk}/upload/", 100 << 20,
            {"Cookie": f"sessionid={owner['session']}; {CSRF_COOKIE}"},
        )  # fmt: skip
    assert status == 413
    assert headers["Content-Type"].startswith("text/html")
    assert b"uploads are limited to 1048576 bytes" in body
    assert BotVersion.objects.count() == 0
    assert watcher.seen == set()


def test_a_100_mb_anonymous_login_post_never_reaches_the_disk(gunicorn):
    """The CSRF refusal (403) comes before anything reads the body, so none is spooled to disk."""
    with TempWatcher(gunicorn.temp) as watcher:
        status, headers, body = send_big_upload(
            gunicorn, "/login/", 100 << 20, {"Cookie": CSRF_COOKIE}
        )
    assert status == 413
    assert headers["Content-Type"].startswith("text/html")
    assert b"this address accepts at most" in body
    assert watcher.seen == set()


@pytest.mark.parametrize("megabytes", [0, 16])
def test_a_chunked_upload_is_a_411_with_its_reason(gunicorn, owner, megabytes):
    """Django would see an empty body ("No file was submitted."): the answer says why, and
    arrives while (or after) the client sends its chunks."""
    before, after, _ = multipart_head("bot.py", 9)
    payload = before + b"print(1)\n" + b"#" * (megabytes << 20) + after
    sock = gunicorn.connect()
    sock.sendall(
        f"POST /api/bots/{owner['bot'].pk}/versions/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Token {owner['token']}\r\nTransfer-Encoding: chunked\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n".encode()
    )  # fmt: skip

    def send_chunks():
        try:
            for at in range(0, len(payload), 1 << 20):
                chunk = payload[at : at + (1 << 20)]
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass

    sender = threading.Thread(target=send_chunks, daemon=True)
    sender.start()
    response = http.client.HTTPResponse(sock)
    response.begin()
    answer = json.loads(response.read())
    sender.join(timeout=60)
    sock.close()
    assert response.status == 411, answer
    assert answer["code"] == "length_required"
    assert "Content-Length" in answer["detail"]
    assert BotVersion.objects.count() == 0


def test_an_upload_under_the_cap_is_still_taken(gunicorn, owner):
    before, after, _ = multipart_head("bot.py", 9)
    connection = http.client.HTTPConnection("127.0.0.1", gunicorn.port, timeout=30)
    connection.request(
        "POST",
        f"/api/bots/{owner['bot'].pk}/versions/",
        body=before + b"print(1)\n" + after,
        headers={
            "Authorization": f"Token {owner['token']}",
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        },
    )
    response = connection.getresponse()
    assert response.status == 201, response.read()
    connection.close()
    assert BotVersion.objects.get().filename == "bot.py"
