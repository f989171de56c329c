"""Bots and their immutable uploaded versions."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

bot_name_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$",
    "1-40 characters: letters, digits, '_', '.', '-', starting with a letter or digit.",
)


class Bot(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots"
    )
    name = models.CharField(max_length=40, unique=True, validators=[bot_name_validator])
    game = models.CharField(max_length=40, db_index=True)
    description = models.CharField(max_length=500, blank=True)
    # Entry policy: other organisers may enter this bot in their tournaments
    # unless the owner turns this off (their own tournaments always may).
    accepts_entries = models.BooleanField(default=True)
    # Who may challenge this bot (tournaments.services.challenges): anyone, nobody, or
    # anyone the owner accepts (each request waits in the owner's inbox, then expires).
    accepts_challenges = models.CharField(
        max_length=8,
        choices=[("anyone", "anyone"), ("nobody", "nobody"), ("ask", "ask me")],
        default="anyone",
        db_default="anyone",
    )
    # The version that plays, chosen by the owner (a rollback) or set when a version becomes
    # active; read it through bots.selectors.current_version, which falls back to the
    # latest active version when this one is unset or not active.
    current = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Gating: a new version plays its parent on paired duplicate deals and becomes
    # current only if an SPRT accepts "stronger by gate_elo1" (H1) over "gate_elo0" (H0).
    gating = models.BooleanField(default=False)
    gate_elo0 = models.FloatField(default=0.0)
    gate_elo1 = models.FloatField(default=20.0)
    gate_alpha = models.FloatField(default=0.05)
    gate_beta = models.FloatField(default=0.05)
    gate_max_games = models.PositiveIntegerField(default=1000)

    class Meta:
        ordering = ["name"]
        # The bot list's keyset order under its filters (a game's bots, an owner's).
        indexes = [
            models.Index(fields=["game", "name"], name="bot_game_name"),
            models.Index(fields=["owner", "name"], name="bot_owner_name"),
        ]

    def __str__(self) -> str:
        return self.name


class BotVersion(models.Model):
    """One upload. Never edited after creation except for its validation verdict."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALIDATING = "validating"
        ACTIVE = "active"
        INVALID = "invalid"
        # Taken out of play by staff (bots.services.disable_bot) or after faulting in
        # ARENA_CRASH_STREAK matches in a row; never validated again.
        DISABLED = "disabled"

    class Kind(models.TextChoices):
        PY = "py"
        ZIP = "zip"

    class Gating(models.TextChoices):
        NONE = "", "not gated"
        RUNNING = "running", "gate running"
        PASSED = "passed", "passed its gate"
        FAILED = "failed", "failed its gate"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # Display name only: how the upload is unpacked is ``kind``, decided at upload.
    filename = models.CharField(max_length=200)
    kind = models.CharField(max_length=3, choices=Kind.choices, default=Kind.PY)
    # The upload itself lives in the database so any worker can run it
    # without shared storage; the validator caps its size.
    upload = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    # Why it is invalid (or disabled, or not validated yet), for everyone to read: never
    # what the bot wrote, which is ``reason_detail`` (a failed test match's stderr tail,
    # a failed build's output), its owner's alone.
    reason = models.TextField(blank=True)
    reason_detail = models.TextField(blank=True, default="", db_default="")
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # When its validation message was last sent (lost-message detection).
    queued_at = models.DateTimeField(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    # The version that was current when this one became active: ratings start from
    # its rating, and a gate plays against it.
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="children"
    )
    # Only an ungated version or one that passed its gate can be the bot's current one.
    gating = models.CharField(max_length=8, choices=Gating.choices, default="", blank=True)

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="unique_version_number")
        ]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def label(self) -> str:
        return f"{self.bot.name}@v{self.number}"


class BuildArtifact(models.Model):
    """The tree an upload's build.sh left, as a zip, kept beside the upload (in the database,
    like the upload) and keyed by the upload's SHA-256: built once at validation, then every
    worker unpacks these bytes and no match ever builds (bots/build.py)."""

    sha256 = models.CharField(max_length=64, unique=True)
    archive = models.BinaryField()
    log = models.TextField(blank=True)  # the tail of build.sh's output
    seconds = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"build of {self.sha256[:12]}"


class OptionsValidation(models.Model):
    """A validation match of one version under a configuration it has not been validated
    under: a player count and options an event will play it at (a tournament's, a
    ladder's). A version's own validation plays its game's fewest players under the
    default options; an event asks for one of these for anything else, once per version
    and configuration, and a version that fails it is kept out of that event."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALIDATING = "validating"
        PASSED = "passed"
        FAILED = "failed"
        # The match could not be played (the host's failure, every attempt): no verdict,
        # so nothing holds the version out; a later event asks again.
        UNRUN = "unrun"

    version = models.ForeignKey(
        BotVersion, on_delete=models.CASCADE, related_name="options_validations"
    )
    # The configuration as the rating pools name it (tournaments.ratings.pools.pool_key):
    # the game, the player count and the options that differ from their defaults.
    key = models.CharField(max_length=200)
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    # The fault, for the version's owner only: it may quote the bot's stderr.
    reason = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["version", "key"]
        constraints = [
            models.UniqueConstraint(fields=["version", "key"], name="unique_options_validation")
        ]

    def __str__(self) -> str:
        return f"{self.version} under {self.key}"
