"""A version's validation ends in a verdict: active, or invalid with a reason. A failure that
no retry can change makes it invalid at once; one that might pass later is retried, at most
ARENA_MAX_VALIDATION_ATTEMPTS times; nothing is left behind in the bot cache."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bots import services, validation
from bots.models import Bot, BotVersion
from tests.support import builders
from tests.support.archives import make_zip

# A zip the upload check now refuses, stored as it was before the check existed.
CLASHING_ZIP = make_zip({"main.py": b"print(1)\n", "x": b"", "x/y.py": b""})


@pytest.fixture
def bot(db):
    owner = get_user_model().objects.create_user(username="validator")
    return services.create_bot(owner=owner, name="v1", game="pairs")


@pytest.fixture
def cache(settings, tmp_path):
    settings.ARENA_BOT_CACHE = tmp_path / "bot-cache"
    return settings.ARENA_BOT_CACHE


def stored_version(bot: Bot, data: bytes, *, kind: str = "zip", **fields) -> BotVersion:
    """A version row as an older release stored it, without today's upload check."""
    number = bot.versions.count() + 1
    fields.setdefault("status", BotVersion.Status.PENDING)
    return builders.version(
        bot=bot, number=number, source=data, filename=f"v{number}.{kind}", kind=kind,
        announce=False, **fields,
    )  # fmt: skip


def leftovers(cache) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_a_stored_upload_that_no_longer_unpacks_becomes_invalid(bot, cache):
    version = stored_version(bot, CLASHING_ZIP)
    version = services.validate_version(version_id=version.pk)
    assert version.status == BotVersion.Status.INVALID
    assert version.reason == "'x' is both a file and a folder in the zip"
    assert version.attempts == 1 and version.validated_at is not None
    assert leftovers(cache) == []


def test_staging_is_removed_whatever_fails_while_unpacking(bot, cache, monkeypatch):
    """Even when the files cannot be written (here the clash the upload check now catches,
    let through), the .unpack-* staging folder goes."""
    monkeypatch.setattr(validation, "_check_tree", lambda files, folders: None, raising=False)
    version = stored_version(bot, CLASHING_ZIP)
    with pytest.raises(OSError):
        services.version_dir(version=version)
    assert leftovers(cache) == []


def retired_game_version(bot: Bot, **fields) -> BotVersion:
    """Its validation cannot run: its game is no longer on this server."""
    Bot.objects.filter(pk=bot.pk).update(game="retired-game")
    return stored_version(bot, b"print(1)\n", kind="py", **fields)


def test_a_validation_that_cannot_run_is_retried_up_to_the_cap(bot, cache):
    """Three attempts by default."""
    version = retired_game_version(bot)
    for attempt in (1, 2):
        with pytest.raises(RuntimeError, match="validation could not run"):
            services.validate_version(version_id=version.pk)
        version.refresh_from_db()
        assert (version.status, version.attempts) == (BotVersion.Status.PENDING, attempt)
        assert "retired-game" in version.reason  # the last error, for the owner to read
    version = services.validate_version(version_id=version.pk)
    assert (version.status, version.attempts) == (BotVersion.Status.INVALID, 3)
    assert version.reason.startswith("validation could not run after 3 attempts: ")
    assert "retired-game" in version.reason
    assert leftovers(cache) == [version.sha256]  # the unpacked bot, no staging folder


def test_the_claim_refuses_a_version_past_the_cap(bot, cache, settings):
    """Its workers died mid-validation (no error recorded) until the cap was reached: the
    next delivery ends it instead of trying again."""
    settings.ARENA_MAX_VALIDATION_ATTEMPTS = 2
    version = stored_version(bot, b"print(1)\n", kind="py", attempts=2)
    version = services.validate_version(version_id=version.pk)
    assert (version.status, version.attempts) == (BotVersion.Status.INVALID, 2)
    assert version.reason == (
        "validation could not run after 2 attempts: a worker stopped during each of them"
    )
    assert leftovers(cache) == []


def test_a_cache_that_cannot_be_written_is_not_the_bots_fault(bot, settings, tmp_path):
    """An unpacking failure of this worker (here its cache folder cannot be created) sends
    the version back to pending with the error, not to invalid, and never leaves it
    'validating'."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    settings.ARENA_BOT_CACHE = blocker / "bot-cache"
    version = stored_version(bot, b"print(1)\n", kind="py")
    with pytest.raises(RuntimeError, match="validation could not run"):
        services.validate_version(version_id=version.pk)
    version.refresh_from_db()
    assert (version.status, version.attempts) == (BotVersion.Status.PENDING, 1)
    assert "not-a-folder" in version.reason
