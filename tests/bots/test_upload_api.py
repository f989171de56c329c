"""Every bad upload, through the API: a 4xx with the reason, and nothing stored."""

from __future__ import annotations

import stat
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots import sandbox, services, validation
from bots.models import BotVersion
from tests.support.archives import make_zip
from tests.support.user_journey import post_version


@pytest.fixture(autouse=True)
def no_throttle_history():
    """The upload throttle counts in the process-wide cache; start each test from zero."""
    cache.clear()


@pytest.fixture
def owner_client(db):
    user = get_user_model().objects.create_user(username="author", password="correct horse 1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    bot = client.post("/api/bots/", {"name": "b1", "game": "pairs"}, format="json").json()
    return client, bot["id"]


def non_utf8_name_zip() -> bytes:
    return make_zip({"main.py": b"", "NAME.py": b""}).replace(b"NAME.py", b"N\xffME.py")


def encrypted_zip() -> bytes:
    data = bytearray(make_zip({"main.py": b"", "s.txt": b"x"}, compression=zipfile.ZIP_STORED))
    for marker, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = -1
        while (at := data.find(marker, at + 1)) >= 0:
            data[at + offset] |= 1
    return bytes(data)


BAD = {
    "too big": ("bot.py", b"#" * (validation.MAX_UPLOAD_BYTES + 1), "the limit is 1048576"),
    "syntax error": ("bot.py", b"def f(:\n", "bot.py: SyntaxError line 1"),
    "not UTF-8": ("bot.py", b"print('\xff')\n", "not UTF-8"),
    "NUL bytes": ("bot.py", b"x = 1\x00\n", "null bytes"),
    "other type": ("bot.exe", b"MZ", "upload a .py file or a .zip"),
    "not a zip": ("bot.zip", b"PK but not really", "not a valid zip"),
    "no main.py": ("bot.zip", make_zip({"helper.py": b""}), "no main.py"),
    "absolute path": ("bot.zip", make_zip({"main.py": b"", "/etc/x.py": b""}), "absolute"),
    "dot dot": ("bot.zip", make_zip({"main.py": b"", "a/../../x.py": b""}), "'..'"),
    "symlink": (
        "bot.zip",
        make_zip({"main.py": b"", "l": (b"/etc/passwd", stat.S_IFLNK | 0o777)}),
        "symbolic links",
    ),
    "device": ("bot.zip", make_zip({"main.py": b"", "d": (b"", stat.S_IFCHR | 0o644)}), "devices"),
    "too many entries": (
        "bot.zip",
        make_zip({"main.py": b"", **{f"f{i}": b"" for i in range(validation.MAX_ENTRIES)}}),
        "the limit is 200",
    ),
    "zip bomb": ("bot.zip", make_zip({"main.py": b"", "z": b"\0" * (4 << 20)}), "ratio"),
    "unpacked size": (
        "bot.zip",
        make_zip({"main.py": b"", **{f"r{i}": bytes(range(256)) * 4096 for i in range(9)}}),
        "the limit is 8388608",
    ),
    "non-UTF-8 name": ("bot.zip", non_utf8_name_zip(), "not UTF-8"),
    "encrypted": ("bot.zip", encrypted_zip(), "encrypted"),
    "bad helper": ("bot.zip", make_zip({"main.py": b"", "h.py": b"def (:"}), "h.py: SyntaxError"),
    "file and folder": (
        "bot.zip",
        make_zip({"main.py": b"", "x/y.py": b"", "x": b""}),
        "'x' is both a file and a folder",
    ),
    "deeply nested": ("bot.py", b"x = " + b"-" * 3000 + b"1", "bot.py: too deeply nested"),
    "deeply nested helper": (
        "bot.zip",
        make_zip(
            {"main.py": b"", "h.py": b"x = " + b"-" * 100_000 + b"1"},
            compression=zipfile.ZIP_STORED,
        ),
        "h.py: too deeply nested",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_upload_is_a_400_with_its_reason_and_stores_nothing(owner_client, case):
    client, bot_id = owner_client
    filename, content, reason = BAD[case]
    response = post_version(client, bot_id, filename, content)
    assert response.status_code == 400, response.content
    assert reason in response.json()["detail"], response.json()
    assert BotVersion.objects.count() == 0


def test_an_oversized_body_is_refused_before_it_is_parsed(owner_client):
    client, bot_id = owner_client
    response = client.post(
        f"/api/bots/{bot_id}/versions/", b"x" * 10, content_type="multipart/form-data; boundary=b",
        CONTENT_LENGTH=str(validation.MAX_UPLOAD_BYTES * 4),
    )  # fmt: skip
    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"
    assert "uploads are limited to 1048576 bytes" in response.json()["detail"]
    assert BotVersion.objects.count() == 0


def test_good_upload_is_stored(owner_client):
    client, bot_id = owner_client
    response = post_version(client, bot_id, "bot.zip", make_zip({"main.py": b"print(1)\n"}))
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "pending"
    assert BotVersion.objects.count() == 1


def test_no_sandbox_no_upload(owner_client, monkeypatch, settings):
    """Without bubblewrap an upload is refused with a clear reason, unless the operator set
    the trusted-only mode (which the worker logs loudly)."""
    client, bot_id = owner_client
    monkeypatch.setattr(sandbox.jail, "_AVAILABLE", False)
    settings.ARENA_TRUSTED_BOTS_ONLY = False
    response = post_version(client, bot_id, "bot.py", b"print(1)\n")
    assert response.status_code == 400
    assert "no sandbox (bubblewrap is missing)" in response.json()["detail"]
    assert BotVersion.objects.count() == 0
    settings.ARENA_TRUSTED_BOTS_ONLY = True
    assert post_version(client, bot_id, "bot.py", b"print(1)\n").status_code == 201


@pytest.mark.parametrize("value, expected", [("1", True), ("true", True), ("yes", True),
                                             ("0", False), ("", False), ("no", False)])  # fmt: skip
def test_trusted_only_reads_like_the_setting(monkeypatch, value, expected):
    monkeypatch.setenv("ARENA_TRUSTED_BOTS_ONLY", value)
    assert sandbox.trusted_only() is expected


@pytest.mark.parametrize("suffix, content", [(".py", b"print(1)\n"),
                                             (".zip", make_zip({"main.py": b"print(1)\n"}))],
                         ids=["py", "zip"])  # fmt: skip
def test_a_long_name_keeps_its_kind_and_unpacks_on_a_cold_cache(
    owner_client, settings, tmp_path, suffix, content
):
    """297 characters and an extension: the display name is shortened keeping the extension,
    and the version unpacks by its recorded kind on a worker that never saw it."""
    client, bot_id = owner_client
    response = post_version(client, bot_id, "b" * 297 + suffix, content)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == suffix[1:]
    assert len(body["filename"]) <= 200 and body["filename"].endswith(suffix)
    version = BotVersion.objects.get(pk=body["id"])
    assert version.kind == suffix[1:]
    settings.ARENA_BOT_CACHE = tmp_path / "cold-cache"
    folder = services.version_dir(version=version)
    assert (folder / "main.py").read_bytes() == b"print(1)\n"


def test_a_version_unpacks_by_its_kind_not_its_display_name(owner_client, settings, tmp_path):
    client, bot_id = owner_client
    response = post_version(client, bot_id, "bot.zip", make_zip({"main.py": b"print(2)\n"}))
    version = BotVersion.objects.get(pk=response.json()["id"])
    BotVersion.objects.filter(pk=version.pk).update(filename="renamed.py")
    version.refresh_from_db()
    settings.ARENA_BOT_CACHE = tmp_path / "cold-cache"
    assert (services.version_dir(version=version) / "main.py").read_bytes() == b"print(2)\n"
