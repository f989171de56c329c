"""Uploads as a real worker validates them, with a cold bot cache: a long file name still
unpacks by its kind, and a stored upload that can no longer be unpacked ends invalid with
its reason (not back to pending, requeued forever, leaving a staging folder behind each
time)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from bots.models import BotVersion
from bots.tasks import validate_bot_version
from tests.support import builders
from tests.support.archives import make_zip
from tests.support.servers import wait_for
from tests.support.user_journey import SDK_BOT, register, upload

pytestmark = [pytest.mark.integration]


@pytest.fixture(autouse=True)
def production_shape():
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def verdict(version_id: int) -> BotVersion | None:
    version = BotVersion.objects.get(pk=version_id)
    return version if version.status in ("active", "invalid") else None


def test_uploads_end_with_a_verdict_on_a_cold_worker(celery_worker_process, tmp_path: Path):
    worker = celery_worker_process
    client = register("long-names")
    long_py = "b" * 297 + ".py"
    _, py_version = upload(client, "long-py", long_py, SDK_BOT)
    _, zip_version = upload(client, "long-zip", "z" * 297 + ".zip", make_zip({"main.py": SDK_BOT}))

    # A version stored before the upload check refused file/folder clashes.
    clashing = make_zip({"main.py": SDK_BOT, "x": b"", "x/y.py": b""})
    stored = builders.version(
        bot=BotVersion.objects.get(pk=py_version).bot, number=2, source=clashing,
        filename="old.zip", kind="zip", status=BotVersion.Status.PENDING, announce=False,
    )  # fmt: skip
    validate_bot_version.delay(stored.pk)

    for version_id in (py_version, zip_version):
        version = wait_for(lambda v=version_id: verdict(v), 90, f"version {version_id}", worker)
        assert version.status == "active", version.reason
        assert len(version.filename) <= 200 and version.filename.endswith(f".{version.kind}")
    version = wait_for(lambda: verdict(stored.pk), 90, "the clashing version", worker)
    assert version.status == "invalid" and version.attempts == 1
    assert version.reason == "'x' is both a file and a folder in the zip"
    cache = tmp_path / "bot-cache"
    assert not [p.name for p in cache.iterdir() if p.name.startswith(".unpack-")]
