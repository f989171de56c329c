"""Writes for bots and versions (HackSoft style: keyword-only, typed, one job each)."""

from __future__ import annotations

import logging
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

from bots import build, events, hooks, metrics, queueing, runner, sandbox, validation
from bots.models import Bot, BotVersion, BuildArtifact, OptionsValidation
from bots.selectors import current_version
from bots.wire import storable
from games import registry

log = logging.getLogger(__name__)


class UploadRefused(Exception):
    """An upload the arena will not take; the message says why."""


class DuplicateUpload(UploadRefused):
    """The same bytes as a version the bot already has (same SHA-256)."""

    def __init__(self, existing: BotVersion):
        super().__init__(
            f"this file is identical to {existing.label} ({existing.filename}, {existing.status}, "
            f"same SHA-256): nothing new to upload"
        )
        self.existing = existing


def create_bot(
    *,
    owner: AbstractBaseUser,
    name: str,
    game: str,
    description: str = "",
    accepts_entries: bool = True,
    accepts_challenges: str = "anyone",
) -> Bot:
    registry.get(game)  # unknown slug -> UnknownGame with the list of games
    bot = Bot(
        owner=owner,
        name=name,
        game=game,
        description=description,
        accepts_entries=accepts_entries,
        accepts_challenges=accepts_challenges,
    )
    bot.full_clean()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise ValidationError({"name": f"a bot named {name!r} already exists"}) from None
    return bot


def update_bot(
    *,
    bot: Bot,
    description: str | None = None,
    accepts_entries: bool | None = None,
    accepts_challenges: str | None = None,
) -> Bot:
    """Change what is given; None leaves a field as it is."""
    changed = []
    if description is not None:
        bot.description = description
        changed.append("description")
    if accepts_entries is not None:
        bot.accepts_entries = accepts_entries
        changed.append("accepts_entries")
    if accepts_challenges is not None:
        bot.accepts_challenges = accepts_challenges
        changed.append("accepts_challenges")
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
        # Lock the bot row so two uploads cannot take the same number (nor both be new).
        Bot.objects.select_for_update().get(pk=bot.pk)
        same = bot.versions.defer("upload").filter(sha256=checked.sha256).order_by("number")
        if existing := same.select_related("bot").first():
            raise DuplicateUpload(existing)
        number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        version = BotVersion.objects.create(
            bot=bot,
            number=number,
            filename=validation.display_filename(filename),
            kind=checked.kind,
            upload=data,
            sha256=checked.sha256,
            size=checked.size,
        )
        transaction.on_commit(lambda: _queue_validation(version.pk))
        transaction.on_commit(
            lambda: events.emit(
                "version.uploaded",
                f"{version.label} uploaded ({version.size} bytes)",
                version=version.pk,
                bot=bot.pk,
                number=number,
                size=version.size,
            )
        )
    return version


def _queue_validation(version_id: int) -> None:
    """Send the version's validation once the transaction commits (at once outside one).

    A broker that is down never turns the stored upload into an error: the failure is
    logged and ``requeue_stuck_validations`` sends the message later.
    """
    queueing.publish_after_commit(queueing.VALIDATE_BOT_VERSION, args=[version_id])


class NotBuilt(RuntimeError):
    """A version with a build step has no stored build (it has not been validated)."""


def version_dir(*, version: BotVersion) -> Path:
    """The version's files on this worker, unpacked once into a cache keyed by hash: the
    upload, or for an upload with a build step the tree its build left (``BuildArtifact``),
    so a match never builds.

    Raises ``validation.UploadRejected`` when the stored upload no longer passes the
    upload checks (stored before a check existed): no retry changes that; ``NotBuilt``
    when a build step's result is missing.
    """
    root = Path(settings.ARENA_BOT_CACHE)
    target = root / version.sha256
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    checked = validation.validate_upload(version.filename, bytes(version.upload), kind=version.kind)
    files, executables = checked.files, checked.executables
    if checked.needs_build:
        artifact = BuildArtifact.objects.filter(sha256=version.sha256).first()
        if artifact is None:
            raise NotBuilt(f"{version.label} has a build step and no stored build")
        files, executables = validation.unzip_tree(
            bytes(artifact.archive),
            max_entries=build.MAX_BUILT_ENTRIES,
            max_unpacked=build.MAX_BUILT_BYTES,
        )
    _unpack(files, executables, root, target)
    return target


def _unpack(files: dict[str, bytes], executables, root: Path, target: Path) -> None:
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".unpack-"))
    try:
        validation.materialize(files, staging / "bot", executables)
        try:
            (staging / "bot").rename(target)
        except OSError:
            if not target.is_dir():
                raise
            # Another process unpacked the same hash first: theirs is identical.
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def build_version(*, version: BotVersion) -> tuple[str, str]:
    """Run the version's build step once, unless its upload's hash was built before; store
    the built tree. Returns ("", "") when there is a build (or nothing to build), else why
    the build failed, naming the upload as its owner named it, and the end of the build's
    output (its owner's only)."""
    checked = validation.validate_upload(version.filename, bytes(version.upload), kind=version.kind)
    if not checked.needs_build or BuildArtifact.objects.filter(sha256=version.sha256).exists():
        return "", ""
    with tempfile.TemporaryDirectory(prefix="arena-build-") as work:
        source = Path(work) / "bot"
        validation.materialize(checked.files, source, checked.executables)
        limits = build.build_limits(
            seconds=settings.ARENA_BUILD_SECONDS,
            memory_mb=settings.ARENA_BUILD_MEMORY_MB,
            tmp_mb=settings.ARENA_BUILD_TMP_MB,
        )
        result = build.build(source, limits=limits)
    if not result.ok:
        return f"{version.filename}: {result.reason}", result.log
    try:
        with transaction.atomic():
            BuildArtifact.objects.create(
                sha256=version.sha256, archive=result.archive, log=result.log,
                seconds=round(result.seconds, 3),
            )  # fmt: skip
    except IntegrityError:
        pass  # another worker built the same upload first: either build serves
    return "", ""


def set_current_version(*, bot: Bot, number: int) -> BotVersion:
    """The owner's choice of the version that plays (a rollback, or forward again): any
    active version of the bot. Entries already pinned to a version keep it."""
    version = bot.versions.defer("upload").filter(number=number).first()
    if version is None:
        raise ValidationError({"current_version": f"{bot.name} has no version {number}"})
    if version.status != BotVersion.Status.ACTIVE:
        raise ValidationError(
            {"current_version": f"v{number} is {version.status}; only an active version can play"}
        )
    if version.gating in (BotVersion.Gating.RUNNING, BotVersion.Gating.FAILED):
        raise ValidationError(
            {"current_version": f"v{number}'s gate is {version.gating}: it plays once it passes"}
        )
    with transaction.atomic():
        Bot.objects.filter(pk=bot.pk).update(current=version)
        hooks.bot_changed(bot.pk)
    bot.current = version
    return version


def validate_version(*, version_id: int) -> BotVersion:
    """Play the validation match; the version becomes active or invalid with a reason.

    A stored upload that no longer unpacks is invalid at once. A validation that cannot
    run (this worker or the sandbox failed: not the bot's fault) goes back to pending with
    the error as its reason, for the reaper to queue again, until
    ARENA_MAX_VALIDATION_ATTEMPTS claims have been made; then it is invalid, with the last
    error.
    """
    max_attempts = settings.ARENA_MAX_VALIDATION_ATTEMPTS
    claimed = BotVersion.objects.filter(
        pk=version_id, status=BotVersion.Status.PENDING, attempts__lt=max_attempts
    ).update(
        # queued_at becomes the delivery time: the reaper judges "validating" by it.
        status=BotVersion.Status.VALIDATING,
        attempts=F("attempts") + 1,
        queued_at=timezone.now(),
    )
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if not claimed:
        if version.status == BotVersion.Status.PENDING:  # past the cap
            return _give_up(version=version, status=BotVersion.Status.PENDING)
        return version
    try:
        failed, output = build_version(version=version)
        if failed:  # the bot's own build failed: a verdict, no retry changes it
            return _record_verdict(version=version, ok=False, reason=failed, detail=output)
        ok, reason, detail = runner.validation_match(
            version_dir(version=version),
            game_slug=version.bot.game,
            limits=sandbox.Limits(),
            clock=_validation_clock(),
        )
    except validation.UploadRejected as exc:  # the stored upload: no retry can change it
        return _record_verdict(version=version, ok=False, reason=exc.reason)
    except Exception as exc:  # this worker or the sandbox failed: not the bot's fault
        log.exception("validation of %s could not run", version)
        error = str(exc) or type(exc).__name__
        if version.attempts >= max_attempts:
            version.reason = error
            return _give_up(version=version, status=BotVersion.Status.VALIDATING)
        BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.VALIDATING).update(
            status=BotVersion.Status.PENDING, reason=error
        )
        raise RuntimeError(f"validation could not run: {exc}") from exc
    return _record_verdict(version=version, ok=ok, reason=reason, detail=detail)


def _record_verdict(*, version: BotVersion, ok: bool, reason: str, detail: str = "") -> BotVersion:
    """Store the verdict: ``reason`` for everyone, ``detail`` (what the bot wrote) for its
    owner. An active version's parent is the bot's current version at that moment; with
    gating on (and a parent to beat) it must pass its gate to become current."""
    decided_at = timezone.now()
    if not ok:
        refused = BotVersion.objects.filter(
            pk=version.pk, status=BotVersion.Status.VALIDATING
        ).update(
            status=BotVersion.Status.INVALID,
            reason=storable(reason),
            reason_detail=storable(detail),
            validated_at=decided_at,
        )
        if refused:
            _count_verdict(version, decided_at, BotVersion.Status.INVALID)
        version.refresh_from_db()
        if refused:
            _tell_verdict(version)
        return version
    with transaction.atomic():
        bot = Bot.objects.select_for_update().get(pk=version.bot_id)
        parent = current_version(bot=bot)
        gated = bot.gating and parent is not None
        activated = BotVersion.objects.filter(
            pk=version.pk, status=BotVersion.Status.VALIDATING
        ).update(
            status=BotVersion.Status.ACTIVE,
            reason=storable(reason),
            reason_detail=storable(detail),
            validated_at=decided_at,
            parent=parent,
            gating=BotVersion.Gating.RUNNING if gated else BotVersion.Gating.NONE,
        )
        if activated and not gated:
            # A new active version plays from now on (the owner may roll back); a gated
            # one only once it passes its gate.
            Bot.objects.filter(pk=bot.pk).update(current=version)
        if activated:
            hooks.bot_changed(bot.pk)
            transaction.on_commit(lambda: hooks.version_became_active(version.pk))
            _count_verdict(version, decided_at, BotVersion.Status.ACTIVE)
    version.refresh_from_db()
    if activated:
        _tell_verdict(version)
    return version


def _tell_verdict(version: BotVersion) -> None:
    """The owner hears of the verdict: active (and whether a gate decides if it plays) or
    refused, with the reason."""
    bot = version.bot
    data = {"bot_id": bot.pk, "bot": bot.name, "version_id": version.pk}
    data.update(number=version.number, status=version.status, reason=version.reason)
    if version.status == BotVersion.Status.ACTIVE:
        gated = version.gating == BotVersion.Gating.RUNNING
        text = f"{version.label} passed its validation" + (
            " and plays its gate against the current version" if gated else " and plays now"
        )
        kind = "version.validated"
    else:
        text = f"{version.label} was refused: {version.reason}"
        kind = "version.refused"
    hooks.emit(
        hooks.Event(
            kind=kind,
            user_ids=(bot.owner_id,),
            text=text,
            link=f"/bots/{bot.pk}/",
            data=data,
        )
    )


def request_options_validation(
    *, version: BotVersion, key: str, players: int, options: dict
) -> OptionsValidation:
    """The version's validation under ``players`` seats and ``options`` (the configuration
    ``key`` names), asked for once: a new one is queued on the validations queue once the
    transaction commits; one asked for before is returned as it stands."""
    validation_row, created = OptionsValidation.objects.get_or_create(
        version=version,
        key=key,
        defaults={"players": players, "options": options, "queued_at": timezone.now()},
    )
    if created:
        queueing.publish_after_commit(queueing.VALIDATE_OPTIONS, args=[validation_row.pk])
    return validation_row


def validate_options(*, validation_id: int) -> OptionsValidation:
    """Play a version's validation match under another configuration: passed, or failed
    with the fault as its reason (for the owner only: it may quote the bot's stderr).

    A match that cannot run (this worker or the sandbox failed) goes back to pending for
    the reaper, as ``validate_version``'s does, up to ARENA_MAX_VALIDATION_ATTEMPTS
    claims; then it is ``unrun``, which holds nothing against the version.
    """
    max_attempts = settings.ARENA_MAX_VALIDATION_ATTEMPTS
    Status = OptionsValidation.Status
    claimed = OptionsValidation.objects.filter(
        pk=validation_id, status=Status.PENDING, attempts__lt=max_attempts
    ).update(status=Status.VALIDATING, attempts=F("attempts") + 1, queued_at=timezone.now())
    row = OptionsValidation.objects.select_related("version__bot").get(pk=validation_id)
    if not claimed:
        if row.status == Status.PENDING:  # past the cap
            return _options_verdict(
                row=row, status=Status.UNRUN, reason=row.reason, over=Status.PENDING
            )
        return row
    version = row.version
    try:
        ok, reason, detail = runner.validation_match(
            version_dir(version=version),
            game_slug=version.bot.game,
            limits=sandbox.Limits(),
            clock=_validation_clock(),
            players=row.players,
            options=row.options,
        )
    except Exception as exc:  # this worker, the sandbox or the stored upload failed
        log.exception("validation of %s under %s could not run", version, row.key)
        error = str(exc) or type(exc).__name__
        if row.attempts >= max_attempts:
            return _options_verdict(row=row, status=Status.UNRUN, reason=error)
        OptionsValidation.objects.filter(pk=row.pk, status=Status.VALIDATING).update(
            status=Status.PENDING, reason=error
        )
        raise RuntimeError(f"validation could not run: {exc}") from exc
    # The row is the owner's alone: what the bot wrote goes beside what happened.
    reason = f"{reason}\n{detail}" if detail else reason
    return _options_verdict(row=row, status=Status.PASSED if ok else Status.FAILED, reason=reason)


def _options_verdict(
    *,
    row: OptionsValidation,
    status: str,
    reason: str,
    over: str = OptionsValidation.Status.VALIDATING,
) -> OptionsValidation:
    OptionsValidation.objects.filter(pk=row.pk, status=over).update(
        status=status, reason=storable(reason), validated_at=timezone.now()
    )
    row.refresh_from_db()
    return row


def update_gating(
    *,
    bot: Bot,
    gating: bool | None = None,
    elo0: float | None = None,
    elo1: float | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    max_games: int | None = None,
) -> Bot:
    """The owner's gating settings; None leaves a field as it is. Applies to new versions."""
    values = {
        "gating": gating,
        "gate_elo0": elo0,
        "gate_elo1": elo1,
        "gate_alpha": alpha,
        "gate_beta": beta,
        "gate_max_games": max_games,
    }
    changed = [name for name, value in values.items() if value is not None]
    for name in changed:
        setattr(bot, name, values[name])
    errors = {}
    if not bot.gate_elo0 < bot.gate_elo1:
        errors["gate_elo1"] = "elo1 must be greater than elo0"
    if not -1000 <= bot.gate_elo0 <= 1000 or not -1000 <= bot.gate_elo1 <= 1000:
        errors["gate_elo0"] = "elo0 and elo1 must be between -1000 and 1000"
    for name in ("gate_alpha", "gate_beta"):
        if not 0.001 <= getattr(bot, name) <= 0.5:
            errors[name] = "error rates must be between 0.001 and 0.5"
    if not 2 <= bot.gate_max_games <= 20000:
        errors["gate_max_games"] = "the game cap must be between 2 and 20000"
    if errors:
        bot.refresh_from_db()
        raise ValidationError(errors)
    if changed:
        bot.save(update_fields=changed)
    return bot


def _give_up(*, version: BotVersion, status: str) -> BotVersion:
    """Invalid after its last allowed attempt; ``version.reason`` holds the last error (empty
    when every attempt ended with its worker)."""
    last_error = version.reason or "a worker stopped during each of them"
    decided_at = timezone.now()
    refused = BotVersion.objects.filter(pk=version.pk, status=status).update(
        status=BotVersion.Status.INVALID,
        reason=f"validation could not run after {version.attempts} attempts: {last_error}",
        validated_at=decided_at,
    )
    if refused:
        _count_verdict(version, decided_at, BotVersion.Status.INVALID)
    version.refresh_from_db()
    if refused:
        _tell_verdict(version)
    return version


def _count_verdict(version: BotVersion, decided_at, status: str) -> None:
    """Once the verdict is stored for good: the time from upload to verdict in
    ``arena_validation_seconds``, and the event ``version.validated``."""
    seconds = (decided_at - version.created_at).total_seconds()

    def announce() -> None:
        metrics.validation_decided(seconds=seconds)
        events.emit(
            "version.validated",
            f"{version.label} validated: {status}",
            version=version.pk,
            bot=version.bot_id,
            status=status,
            seconds=round(seconds, 3),
            attempts=version.attempts,
            worker=events.worker_id(),
        )

    transaction.on_commit(announce)


def _validation_clock() -> runner.Clock:
    return runner.Clock(move_ms=1000, bank_ms=10000)


def requeue_stuck_validations() -> int:
    """The validation reaper; returns how many validation messages it sent, for versions
    and for validations under other options alike.

    A validation ``validating`` for longer than ARENA_STALE_VALIDATION_SECONDS (counted from
    its delivery, which stamps ``queued_at``) lost its worker: it goes back to pending and
    is sent again. A pending one is sent again only when the broker no longer holds its
    message (see ``tournaments.services.playing._resend_lost_match_messages``), so a
    backlog is never re-sent; the services cap the attempts, so none comes back forever.
    """
    return _requeue(
        BotVersion.objects.all(), BotVersion.Status, queueing.VALIDATE_BOT_VERSION
    ) + _requeue(
        OptionsValidation.objects.all(), OptionsValidation.Status, queueing.VALIDATE_OPTIONS
    )


def _requeue(rows, Status, task_name: str) -> int:
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_STALE_VALIDATION_SECONDS)
    count = 0
    abandoned = rows.filter(
        Q(queued_at__lt=stale) | Q(queued_at__isnull=True, created_at__lt=stale),
        status=Status.VALIDATING,
    )
    for row_id in abandoned.values_list("pk", flat=True):
        with transaction.atomic():
            if abandoned.filter(pk=row_id).update(status=Status.PENDING, queued_at=now):
                queueing.publish_after_commit(task_name, args=[row_id])
                count += 1
    sent_before = now - timedelta(seconds=settings.ARENA_LOST_MESSAGE_SECONDS)
    waiting = rows.filter(
        Q(queued_at__lt=sent_before) | Q(queued_at__isnull=True, created_at__lt=sent_before),
        status=Status.PENDING,
    )
    candidates = list(waiting.values_list("pk", flat=True))
    if not candidates:
        return count
    held = queueing.held_first_args(
        task_name=task_name,
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
    return count + queueing.resend_missing(waiting, candidates, held, task_name=task_name, now=now)


def take_out_of_play(*, version_id: int, reason: str) -> BotVersion | None:
    """One active version disabled with ``reason`` (its bot falls back to its latest other
    active version); None when it was not active. In the caller's transaction."""
    with transaction.atomic():
        changed = BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.ACTIVE).update(
            status=BotVersion.Status.DISABLED, reason=reason
        )
        if not changed:
            return None
        version = BotVersion.objects.select_related("bot").defer("upload").get(pk=version_id)
        hooks.bot_changed(version.bot_id)
    return version


def disable_bot(*, bot: Bot, reason: str) -> int:
    """Take every version of ``bot`` out of play (staff's switch); returns how many changed.

    Its versions become ``disabled`` with ``reason``: none is current any more, so the bot
    enters no new tournament and leaves the leaderboard, while its past matches and
    ratings stay. A validation still running cannot bring a version back (its verdict is
    recorded only over ``validating``). Uploading a new version is how it comes back.
    """
    if not reason.strip():
        raise ValidationError({"reason": "say why the bot is disabled"})
    with transaction.atomic():
        changed = BotVersion.objects.filter(
            bot=bot,
            status__in=[
                BotVersion.Status.PENDING,
                BotVersion.Status.VALIDATING,
                BotVersion.Status.ACTIVE,
            ],
        ).update(status=BotVersion.Status.DISABLED, reason=reason.strip())
        hooks.bot_changed(bot.pk)
    return changed
