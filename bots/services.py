"""Writes for bots and versions (HackSoft style: keyword-only, typed, one job each)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from bots import sandbox, validation
from bots.models import Bot, BotVersion
from games import registry

log = logging.getLogger(__name__)


class UploadRefused(Exception):
    """An upload the arena will not take; the message says why."""


def create_bot(
    *,
    owner: AbstractBaseUser,
    name: str,
    game: str,
    description: str = "",
    accepts_entries: bool = True,
) -> Bot:
    registry.get(game)  # unknown slug -> UnknownGame with the list of games
    bot = Bot(
        owner=owner,
        name=name,
        game=game,
        description=description,
        accepts_entries=accepts_entries,
    )
    bot.full_clean()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise ValidationError({"name": f"a bot named {name!r} already exists"}) from None
    return bot


def update_bot(
    *, bot: Bot, description: str | None = None, accepts_entries: bool | None = None
) -> Bot:
    """Change what is given; None leaves a field as it is."""
    changed = []
    if description is not None:
        bot.description = description
        changed.append("description")
    if accepts_entries is not None:
        bot.accepts_entries = accepts_entries
        changed.append("accepts_entries")
    bot.full_clean()
    if changed:
        bot.save(update_fields=changed)
    return bot


def delete_bot(*, bot: Bot) -> None:
    if bot.versions.filter(seats__isnull=False).exists():
        raise ValidationError("this bot has played matches; its results must stay readable")
    bot.delete()


def check_untrusted_code_allowed() -> None:
    if not sandbox.sandbox_available() and not settings.ARENA_TRUSTED_BOTS_ONLY:
        raise UploadRefused(
            "this server has no sandbox (bubblewrap is missing), so it does not run uploaded "
            "code; ask the operator to install bubblewrap"
        )


def upload_version_file(*, bot: Bot, upload: UploadedFile) -> BotVersion:
    """``upload_version`` for a file Django received: the size is checked before any read."""
    if upload.size > validation.MAX_UPLOAD_BYTES:
        raise validation.UploadRejected(
            f"the upload is {upload.size} bytes; the limit is {validation.MAX_UPLOAD_BYTES} bytes"
        )
    return upload_version(bot=bot, filename=upload.name or "", data=upload.read())


def upload_version(*, bot: Bot, filename: str, data: bytes) -> BotVersion:
    """Validate an upload and store it as a new pending version; queue its validation match.

    Refusals raise ``UploadRefused`` (or ``validation.UploadRejected``) and store nothing.
    """
    check_untrusted_code_allowed()
    checked = validation.validate_upload(filename, data)
    with transaction.atomic():
        # Lock the bot row so two uploads cannot take the same number.
        Bot.objects.select_for_update().get(pk=bot.pk)
        number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        version = BotVersion.objects.create(
            bot=bot,
            number=number,
            filename=os.path.basename(filename)[:200],
            upload=data,
            sha256=checked.sha256,
            size=checked.size,
        )
        transaction.on_commit(lambda: _queue_validation(version.pk))
    return version


def _queue_validation(version_id: int) -> None:
    from bots.tasks import validate_bot_version

    validate_bot_version.delay(version_id)


def version_dir(*, version: BotVersion) -> Path:
    """The version's files on this worker, unpacked once into a cache keyed by hash."""
    root = Path(settings.ARENA_BOT_CACHE)
    target = root / version.sha256
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    checked = validation.validate_upload(version.filename, bytes(version.upload))
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".unpack-")) / "bot"
    validation.materialize(checked.files, staging)
    try:
        staging.rename(target)
    except OSError:
        # Another process unpacked the same hash first: theirs is identical.
        pass
    shutil.rmtree(staging.parent, ignore_errors=True)
    return target


def validate_version(*, version_id: int) -> BotVersion:
    """Play the validation match; the version becomes active or invalid with a reason."""
    claimed = BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(
        status=BotVersion.Status.VALIDATING, attempts=F("attempts") + 1
    )
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if not claimed:
        return version
    try:
        ok, reason = validation.validation_match(
            version_dir(version=version),
            game_slug=version.bot.game,
            limits=sandbox.Limits(),
            clock=_validation_clock(),
        )
    except Exception as exc:  # the sandbox itself failed: not the bot's fault
        log.exception("validation of %s could not run", version)
        BotVersion.objects.filter(pk=version_id).update(status=BotVersion.Status.PENDING)
        raise RuntimeError(f"validation could not run: {exc}") from exc
    status = BotVersion.Status.ACTIVE if ok else BotVersion.Status.INVALID
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.VALIDATING).update(
        status=status, reason=reason, validated_at=timezone.now()
    )
    version.refresh_from_db()
    return version


def _validation_clock():
    from bots.runner import Clock

    return Clock(move_ms=1000, bank_ms=10000)


def requeue_stuck_validations(*, older_than_seconds: int = 600) -> int:
    """Versions left 'validating' by a dead worker go back to pending and are queued again."""
    cutoff = timezone.now() - timezone.timedelta(seconds=older_than_seconds)
    stuck = list(
        BotVersion.objects.filter(
            status=BotVersion.Status.VALIDATING, created_at__lt=cutoff
        ).values_list("pk", flat=True)
    )
    stuck += list(
        BotVersion.objects.filter(
            status=BotVersion.Status.PENDING, created_at__lt=cutoff
        ).values_list("pk", flat=True)
    )
    for pk in stuck:
        BotVersion.objects.filter(pk=pk, status=BotVersion.Status.VALIDATING).update(
            status=BotVersion.Status.PENDING
        )
        _queue_validation(pk)
    return len(stuck)
