"""Creating, starting and cancelling tournaments."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from bots.models import OptionsValidation
from bots.selectors import current_version
from games import registry
from games.protocol import InvalidOptions
from tournaments import formats
from tournaments.format_inputs import event_of, tournament_event
from tournaments.formats import Event, swiss
from tournaments.models import Entry, Match, Rating, Tournament
from tournaments.ratings import pools
from tournaments.read_models import reset_totals
from tournaments.services import admission, refusals, telling
from tournaments.services.advancing import advance_tournament

# A start this far in the past is the minute the organiser typed while filling the form:
# it means now. Further back it is a mistake (a wrong year, a wrong day), refused.
PAST_START_GRACE_SECONDS = 300


def past_start_refusal(start_at: datetime, *, now: datetime | None = None) -> str | None:
    """Why ``start_at`` cannot be a new tournament's start (it is past), or None."""
    now = now or timezone.now()
    if (now - start_at).total_seconds() <= PAST_START_GRACE_SECONDS:
        return None
    return (
        f"{start_at:%Y-%m-%d %H:%M} UTC has passed (it is now {now:%Y-%m-%d %H:%M} UTC): "
        "leave the start empty to start now, or give a later time"
    )


def create_tournament(
    *,
    organiser: AbstractBaseUser,
    name: str,
    game: str,
    bot_ids: list[int],
    format: str = Tournament.Format.ROUND_ROBIN,
    options: dict | None = None,
    players_per_match: int | None = None,
    games_per_pairing: int | None = None,
    rotate_seats: bool = True,
    move_ms: int = 1000,
    bank_ms: int = 10000,
    start_at: datetime | None = None,
    seed: int | None = None,
    rated: bool = True,
    rounds: int | None = None,
    challengers: list[int] | None = None,
    advance: int = 1,
    third_place: bool = False,
    grand_final_reset: bool = True,
    seeding: str = Tournament.Seeding.RATING,
    record_visibility: str = Tournament.RecordVisibility.FINISHED,
    pinned: dict[int, int] | None = None,
) -> Tournament:
    """A tournament of any format, checked whole before anything is stored.

    ``pinned``: bot id -> the version that plays for it (a competition's frozen versions),
    kept at the start instead of the bot's current version; its owner entered it already,
    so neither the bot's entry policy nor its current version is asked.

    With seat rotation, the games of a pairing must cover every rotation of its
    seats, so games_per_pairing defaults to the number of seats and must be a
    multiple of it. A refusal is a ValidationError whose messages are by field
    (``tournaments.services.refusals``).
    """
    challengers = list(challengers or [])
    pinned = dict(pinned or {})
    checked = _checked_settings(
        organiser=organiser,
        pinned=frozenset(pinned),
        game=game,
        bot_ids=bot_ids,
        format=format,
        options=options,
        players_per_match=players_per_match,
        games_per_pairing=games_per_pairing,
        rotate_seats=rotate_seats,
        move_ms=move_ms,
        bank_ms=bank_ms,
        rounds=rounds,
        challengers=challengers,
        advance=advance,
        third_place=third_place,
        grand_final_reset=grand_final_reset,
        record_visibility=record_visibility,
    )
    seed = seed if seed is not None else secrets.randbits(62)
    salt = secrets.token_hex(16)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            organiser=organiser,
            name=name,
            game=game,
            format=format,
            rotate_seats=rotate_seats,
            move_ms=move_ms,
            bank_ms=bank_ms,
            rated=rated,
            rounds=rounds,
            advance=advance,
            third_place=third_place,
            grand_final_reset=grand_final_reset,
            seeding=seeding,
            record_visibility=record_visibility,
            seed=seed,
            seed_salt=salt,
            seed_commitment=seed_commitment(seed=seed, salt=salt),
            start_at=start_at or timezone.now(),
            **checked,
        )
        Entry.objects.bulk_create(
            [
                Entry(
                    tournament=tournament,
                    bot_id=b,
                    challenger=b in challengers,
                    version_id=pinned.get(b),
                )
                for b in bot_ids
            ]
        )
        entry_validations(tournament=tournament)  # under way before the start, if need be
    return tournament


def settings_refusals(**settings) -> dict[str, list[str]]:
    """Every refusal of these settings by field (empty when they would do): what a form
    shows beside inputs it could read while others of its inputs are refused."""
    try:
        _checked_settings(**settings)
    except ValidationError as exc:
        return exc.message_dict
    return {}


def _checked_settings(
    *,
    organiser: AbstractBaseUser,
    game: str,
    bot_ids: list[int],
    format: str,
    options: dict | None,
    players_per_match: int | None,
    games_per_pairing: int | None,
    rotate_seats: bool,
    move_ms: int,
    bank_ms: int,
    rounds: int | None,
    challengers: list[int],
    advance: int,
    third_place: bool,
    grand_final_reset: bool,
    record_visibility: str,
    kept: frozenset[int] = frozenset(),
    pinned: frozenset[int] = frozenset(),
) -> dict:
    """The resolved options, players and games per pairing of valid settings; else a
    ValidationError with every refusal found, by field."""
    engine = registry.get(game)
    players = players_per_match or engine.min_players
    found = refusals.Refusals()
    resolved = dict(options or {})
    if message := refusals.players_refusal(engine, players):
        found.add("players_per_match", message)
    try:
        resolved = engine.resolve_options(options)
    except InvalidOptions as exc:
        found.add(*refusals.option_refusal(engine, exc))
    else:
        if not found:
            try:
                engine.state_class.check_players_with_options(players, resolved)
            except InvalidOptions as exc:
                field, message = refusals.option_refusal(engine, exc)
                found.add("players_per_match" if field == "options" else field, message)
    if games_per_pairing is None:
        # One game per rotation of a table the game can seat (else the seats' own refusal
        # says all there is to say).
        seated = "players_per_match" not in found
        games_per_pairing = players if rotate_seats and seated else 1
    refusals.entrant_refusals(
        found, organiser=organiser, game=game, bot_ids=bot_ids, kept=kept, pinned=pinned
    )
    refusals.setting_refusals(
        found,
        format=format,
        players=players,
        games_per_pairing=games_per_pairing,
        rotate_seats=rotate_seats,
        move_ms=move_ms,
        bank_ms=bank_ms,
        rounds=rounds,
        record_visibility=record_visibility,
        bot_ids=bot_ids,
        challengers=challengers,
    )
    # The format's checks read the seats, the entrants and the challengers: with those
    # sound they run even when other settings are refused, so one answer says it all.
    if not {"format", "players_per_match", "bots"} & set(found.by_field):
        event = event_of(
            _unsaved(
                format,
                players,
                max(games_per_pairing, 1),
                rotate_seats,
                rounds if rounds is None or rounds >= 1 else 1,
                advance,
                third_place,
                grand_final_reset,
            ),
            entrants=len(bot_ids),
            challengers=tuple(bot_ids.index(c) for c in challengers if c in bot_ids),
        )
        refusals.format_refusals(found, format=format, event=event)
        if not found:
            planned = planned_games(format, event)
            if planned > refusals.MAX_MATCHES:
                found.add(
                    "bots",
                    f"That makes up to {planned} matches; the limit is {refusals.MAX_MATCHES}: "
                    "pick fewer bots, fewer games per pairing or fewer rounds",
                )
    if found:
        raise ValidationError(found.as_dict())
    return {
        "options": resolved,
        "players_per_match": players,
        "games_per_pairing": games_per_pairing,
    }


class TournamentStarted(Exception):
    """A change to a tournament that has started (or ended): only a scheduled one changes."""


# What an organiser may change before the start, by the service's argument names.
EDITABLE = (
    "name",
    "game",
    "bot_ids",
    "challengers",
    "format",
    "options",
    "players_per_match",
    "games_per_pairing",
    "rotate_seats",
    "move_ms",
    "bank_ms",
    "start_at",
    "seed",
    "rated",
    "rounds",
    "advance",
    "third_place",
    "grand_final_reset",
    "seeding",
    "record_visibility",
)
# Changing only these keeps the seed: they do not shape a single game.
KEEPS_THE_SEED = ("name", "start_at", "rated", "record_visibility")


@transaction.atomic
def update_tournament(*, tournament_id: int, editor: AbstractBaseUser, **changes) -> Tournament:
    """Change a scheduled tournament's settings, checked whole as at creation.

    Any change to what shapes the games (entrants, format, options, seats, rounds...)
    draws a new seed and salt and publishes their new commitment: the old seed, which the
    organiser knew, must not be kept while the games it would deal change. Refused with
    ``TournamentStarted`` once it has started; the row is locked, so the start waits for an
    edit under way (and then starts with it).
    """
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise TypeError(f"not editable: {', '.join(unknown)}")
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.organiser_id != editor.pk:
        raise PermissionDenied("only the organiser may edit this tournament")
    if tournament.status != Tournament.Status.SCHEDULED:
        raise TournamentStarted(
            f"This tournament is {tournament.status}: only a scheduled one can be edited"
        )
    entries = list(tournament.entries.order_by("id"))
    # Versions pinned before the start (a competition's final) stay pinned through an edit.
    pinned = {e.bot_id: e.version_id for e in entries if e.version_id is not None}
    current = {
        "name": tournament.name,
        "game": tournament.game,
        "bot_ids": [e.bot_id for e in entries],
        "challengers": [e.bot_id for e in entries if e.challenger],
        **{name: getattr(tournament, name) for name in EDITABLE[4:] if name != "bot_ids"},
    }
    if "game" in changes and changes["game"] != tournament.game and "options" not in changes:
        changes["options"] = {}  # one game's options mean nothing to another
    if changes.get("format", tournament.format) != Tournament.Format.GAUNTLET:
        if "challengers" not in changes:
            changes["challengers"] = []
    wanted = {**current, **changes}
    wanted["challengers"] = list(wanted["challengers"] or [])
    found: dict[str, list[str]] = {}
    start_at = changes.get("start_at")
    if start_at is not None and start_at != tournament.start_at:
        if refusal := past_start_refusal(start_at):
            found["start_at"] = [refusal]
    if wanted["start_at"] is None:
        wanted["start_at"] = timezone.now()
    try:
        checked = _checked_settings(
            organiser=tournament.organiser,
            kept=frozenset(current["bot_ids"]),  # entered, they stay whatever their policy
            pinned=frozenset(pinned),
            **{
                name: wanted[name]
                for name in EDITABLE
                if name not in ("name", "start_at", "seed", "rated", "seeding")
            },
        )
    except ValidationError as exc:
        raise ValidationError({**found, **exc.message_dict}) from None
    if found:
        raise ValidationError(found)
    wanted.update(checked)
    changed = {name for name in EDITABLE if wanted[name] != current[name]}
    renew = "seed" in changes or bool(changed - set(KEEPS_THE_SEED))
    for name in EDITABLE:
        if name not in ("bot_ids", "challengers", "seed"):
            setattr(tournament, name, wanted[name])
    if renew:
        chosen = changes.get("seed")
        tournament.seed = chosen if chosen is not None else secrets.randbits(62)
        tournament.seed_salt = secrets.token_hex(16)
        tournament.seed_commitment = seed_commitment(
            seed=tournament.seed, salt=tournament.seed_salt
        )
    tournament.save()
    if {"bot_ids", "challengers"} & changed:
        tournament.entries.all().delete()
        challengers = wanted["challengers"]
        Entry.objects.bulk_create(
            [
                Entry(
                    tournament=tournament,
                    bot_id=b,
                    challenger=b in challengers,
                    version_id=pinned.get(b),
                )
                for b in wanted["bot_ids"]
            ]
        )
    entry_validations(tournament=tournament)
    tournament.refresh_from_db()
    return tournament


def seed_commitment(*, seed: int, salt: str) -> str:
    """SHA-256 of "salt:seed" in hex: published at creation, checkable once both are revealed."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def _unsaved(format, players, games, rotate, rounds, advance, third, reset) -> Tournament:
    return Tournament(
        format=format,
        players_per_match=players,
        games_per_pairing=games,
        rotate_seats=rotate,
        rounds=rounds,
        advance=advance,
        third_place=third,
        grand_final_reset=reset,
    )


def planned_games(format: str, event: Event) -> int:
    """How many games the event can take at most (deciders included); ValueError if unplayable."""
    first = formats.next_matches(format, event, [])  # checks the event
    assert not isinstance(first, formats.Finished)
    n, seats, games = event.entrants, event.players_per_match, event.games_per_pairing
    if format in ("round_robin", "gauntlet"):
        return len(first)
    if format == "swiss":
        return (event.rounds or swiss.default_rounds(n)) * (n // seats) * games
    if seats > 2:  # elimination tables: each but the last removes (seats - advance)
        tables = (n - seats) // (seats - event.advance) + 1
        return tables * (games + seats)
    series = 2 * n - 1 if format == "double_elimination" else n
    return series * (games + 2)


def start_due_tournaments(*, now: datetime | None = None) -> list[int]:
    """Start every scheduled tournament whose time has come, unless it still waits for
    validation matches of its entrants under its options (``admission``: a bounded wait)."""
    now = now or timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, start_at__lte=now).exclude(
        competition__paused=True
    )  # a paused competition's final waits for the resume
    started = []
    for tournament in due:
        validations = entry_validations(tournament=tournament)
        if admission.still_waiting(validations, start_at=tournament.start_at, now=now):
            continue
        if start_tournament(tournament_id=tournament.pk, due_by=now):
            started.append(tournament.pk)
    return started


def entry_validations(*, tournament: Tournament) -> dict:
    """The validation of each entrant's version (pinned, else current) under the
    tournament's player count and options, by version id, asked for where there is none yet."""
    versions = [
        v
        for entry in tournament.entries.select_related("bot", "version")
        if (v := entry.version or current_version(bot=entry.bot)) is not None
    ]
    return admission.validations_for(
        game=tournament.game,
        players=tournament.players_per_match,
        options=tournament.options,
        versions=versions,
    )


@transaction.atomic
def start_tournament(*, tournament_id: int, due_by: datetime | None = None) -> bool:
    """Claim a scheduled tournament (conditional UPDATE), pin versions, seed, queue round one.

    Returns False when someone else already started it (or, with ``due_by``, when its
    start has been moved past that time). An entry whose version failed its
    validation under the tournament's options is withdrawn (``start_due_tournaments``
    waits for those validations first; one not ended by now does not hold the entry out).
    A tournament left with too few playable entrants for its format is cancelled, saying so.
    """
    due = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.SCHEDULED)
    if due_by is not None:  # an edit may have moved the start later since it was read
        due = due.filter(start_at__lte=due_by)
    claimed = due.update(status=Tournament.Status.RUNNING, started_at=timezone.now())
    if not claimed:
        return False
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    entries = list(tournament.entries.select_related("bot"))
    for entry in entries:
        # A version pinned before the start (a competition's frozen one) is kept.
        entry.version = entry.version or current_version(bot=entry.bot)
    key = admission.configuration_key(
        game=tournament.game, players=tournament.players_per_match, options=tournament.options
    )
    failed = dict(
        OptionsValidation.objects.filter(
            key=key,
            version__in=[e.version_id for e in entries if e.version_id],
            status=OptionsValidation.Status.FAILED,
        ).values_list("version_id", "reason")
    )
    playable = []
    for entry in entries:
        if entry.version_id in failed:
            entry.withdrawn = True
            entry.withdrawal_reason = failed[entry.version_id]
        elif entry.version is not None:
            playable.append(entry)
    if tournament.seeding == Tournament.Seeding.RATING:
        pool = pools.pool_key(tournament.game, tournament.players_per_match, tournament.options)
        elo = ratings_of(pool=pool, version_ids=[e.version_id for e in playable])
        # Unrated versions after rated ones; the organiser's order breaks ties.
        playable.sort(key=lambda e: (e.version_id not in elo, -elo.get(e.version_id, 0), e.pk))
    for number, entry in enumerate(playable):
        entry.seed_number = number
    Entry.objects.bulk_update(entries, ["version", "seed_number", "withdrawn", "withdrawal_reason"])
    reset_totals(tournament_id=tournament_id)  # the standings start from the seeding
    try:
        formats.next_matches(tournament.format, tournament_event(tournament, playable), [])
    except ValueError as exc:
        Tournament.objects.filter(pk=tournament_id).update(
            status=Tournament.Status.CANCELLED,
            finished_at=timezone.now(),
            cancel_reason=_too_few(entries, playable, exc),
        )
        return True
    telling.tournament_started(tournament)
    advance_tournament(tournament_id=tournament_id)
    return True


def _too_few(entries: list[Entry], playable: list[Entry], problem: ValueError) -> str:
    """Why a tournament could not start with the entrants it had left, for everyone."""
    withdrawn = sum(1 for e in entries if e.withdrawn)
    absent = sum(1 for e in entries if not e.withdrawn and e.version is None)
    left = [f"{len(playable)} of {len(entries)} entrants could play"]
    if withdrawn:
        left.append(f"{withdrawn} failed validation under this event's options")
    if absent:
        left.append(f"{absent} had no active version")
    return f"cancelled at the start: {'; '.join(left)} ({problem})"[:500]


def ratings_of(*, pool: str, version_ids: list[int]) -> dict[int, float]:
    """The live Elo of each version rated in ``pool``."""
    return dict(
        Rating.objects.filter(pool=pool, version_id__in=version_ids).values_list(
            "version_id", "elo"
        )
    )


@transaction.atomic
def cancel_tournament(*, tournament: Tournament) -> Tournament:
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise ValidationError(f"the tournament is already {tournament.status}")
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.CANCELLED, finished_at=timezone.now()
    )
    tournament.matches.filter(status__in=[Match.Status.SCHEDULED, Match.Status.QUEUED]).update(
        status=Match.Status.CANCELLED
    )
    tournament.refresh_from_db()
    return tournament
