"""Writes for bots and versions (HackSoft style: keyword-only, typed, one job each)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from bots import queueing, sandbox, validation
from bots.models import Bot, BotVersion
from games import registry

log = logging.getLogger(__name__)


class UploadRefused(Exception):
    """An upload the arena will not take; the message says why."""


def create_bot(*, owner: AbstractBaseUser, name: str, game: str, description: str = "") -> Bot:
    registry.get(game)  # unknown slug -> UnknownGame with the list of games
    bot = Bot(owner=owner, name=name, game=game, description=description)
    bot.full_clean()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise ValidationError({"name": f"a bot named {name!r} already exists"}) from None
    return bot


def update_bot(*, bot: Bot, description: str) -> Bot:
    bot.description = description
    bot.full_clean()
    bot.save(update_fields=["description"])
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
    """Send the version's validation once the transaction commits (at once outside one).

    A broker that is down never turns the stored upload into an error: the failure is
    logged and ``requeue_stuck_validations`` sends the message later.
    """
    queueing.publish_after_commit(queueing.VALIDATE_BOT_VERSION, args=[version_id])


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
        # queued_at becomes the delivery time: the reaper judges "validating" by it.
        status=BotVersion.Status.VALIDATING,
        attempts=F("attempts") + 1,
        queued_at=timezone.now(),
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


def requeue_stuck_validations() -> int:
    """The validation reaper; returns how many validation messages it sent.

    A version ``validating`` for longer than ARENA_STALE_VALIDATION_SECONDS (counted from
    its delivery, which stamps ``queued_at``) lost its worker: it goes back to pending and
    is sent again. A pending version is sent again only when the broker no longer holds
    its message (see ``tournaments.services.playing._resend_lost_match_messages``), so a
    backlog is never re-sent; ``validate_version`` caps the attempts, so no version comes
    back forever.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_STALE_VALIDATION_SECONDS)
    count = 0
    abandoned = BotVersion.objects.filter(
        Q(queued_at__lt=stale) | Q(queued_at__isnull=True, created_at__lt=stale),
        status=BotVersion.Status.VALIDATING,
    )
    for version_id in abandoned.values_list("pk", flat=True):
        with transaction.atomic():
            if abandoned.filter(pk=version_id).update(
                status=BotVersion.Status.PENDING, queued_at=now
            ):
                _queue_validation(version_id)
                count += 1
    sent_before = now - timedelta(seconds=settings.ARENA_LOST_MESSAGE_SECONDS)
    waiting = BotVersion.objects.filter(
        Q(queued_at__lt=sent_before) | Q(queued_at__isnull=True, created_at__lt=sent_before),
        status=BotVersion.Status.PENDING,
    )
    candidates = list(waiting.values_list("pk", flat=True))
    if not candidates:
        return count
    held = queueing.held_first_args(
        task_name=queueing.VALIDATE_BOT_VERSION,
        queue=queueing.VALIDATIONS,
        delivered_within=settings.ARENA_STALE_VALIDATION_SECONDS,
    )
    if held is None:  # a transport that cannot be asked: judge by age alone
        candidates = list(
            waiting.filter(
                Q(queued_at__lt=stale) | Q(queued_at__isnull=True, created_at__lt=stale)
            ).values_list("pk", flat=True)
        )
        held = set()
    for version_id in candidates:
        if version_id in held:
            continue
        with transaction.atomic():
            if waiting.filter(pk=version_id).update(queued_at=now):
                _queue_validation(version_id)
                count += 1
    return count
