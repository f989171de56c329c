"""Creating, starting and cancelling tournaments."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from bots.models import Bot, OptionsValidation
from bots.selectors import current_version
from games import registry
from games.protocol import InvalidOptions
from tournaments import formats
from tournaments.format_inputs import event_of, tournament_event
from tournaments.formats import Event, swiss
from tournaments.models import Entry, Match, Rating, Tournament
from tournaments.ratings import pools
from tournaments.read_models import reset_totals
from tournaments.services import admission, telling
from tournaments.services.advancing import advance_tournament

MAX_MATCHES = 5000
MAX_MOVE_MS = 60_000
MAX_BANK_MS = 600_000
MAX_ROUNDS = 100


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
) -> Tournament:
    """A tournament of any format, checked whole before anything is stored.

    With seat rotation, the games of a pairing must cover every rotation of its
    seats, so games_per_pairing defaults to the number of seats and must be a
    multiple of it.
    """
    engine = registry.get(game)
    players = players_per_match or engine.min_players
    try:
        engine.check_players(players)
        resolved = engine.resolve_options(options)
        engine.state_class.check_players_with_options(players, resolved)
    except InvalidOptions as exc:
        raise ValidationError(str(exc)) from None
    if games_per_pairing is None:
        games_per_pairing = players if rotate_seats else 1
    challengers = list(challengers or [])
    errors = _entrant_errors(organiser=organiser, game=game, bot_ids=bot_ids)
    if format not in Tournament.Format.values:
        errors.append(f"unknown format {format!r}; one of: {', '.join(Tournament.Format.values)}")
    if record_visibility not in Tournament.RecordVisibility.values:
        known = ", ".join(Tournament.RecordVisibility.values)
        errors.append(f"unknown record visibility {record_visibility!r}; one of: {known}")
    if not 1 <= games_per_pairing <= 100:
        errors.append("games per pairing must be between 1 and 100")
    elif rotate_seats and games_per_pairing % players:
        errors.append(
            f"with seat rotation, games per pairing must be a multiple of {players} "
            f"(one game per seat rotation), not {games_per_pairing}"
        )
    if not 10 <= move_ms <= MAX_MOVE_MS:
        errors.append(f"move time must be between 10 and {MAX_MOVE_MS} ms")
    if not 0 <= bank_ms <= MAX_BANK_MS:
        errors.append(f"time bank must be between 0 and {MAX_BANK_MS} ms")
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        errors.append(f"rounds must be between 1 and {MAX_ROUNDS}")
    if format == Tournament.Format.GAUNTLET:
        if not challengers:
            errors.append("a gauntlet needs at least one challenger (challengers: bot ids)")
        strangers = [c for c in challengers if c not in bot_ids]
        if strangers:
            errors.append(f"challengers must be entrants: {strangers} are not among the bots")
        if len(set(challengers)) != len(challengers):
            errors.append("a challenger is named twice")
    elif challengers:
        errors.append("challengers apply to the gauntlet format only")
    if not errors:
        event = event_of(
            _unsaved(
                format,
                players,
                games_per_pairing,
                rotate_seats,
                rounds,
                advance,
                third_place,
                grand_final_reset,
            ),
            entrants=len(bot_ids),
            challengers=tuple(bot_ids.index(c) for c in challengers),
        )
        try:
            planned = planned_games(format, event)
        except ValueError as exc:
            errors.append(f"{format.replace('_', ' ')}: {exc}")
        else:
            if planned > MAX_MATCHES:
                errors.append(f"that makes up to {planned} matches; the limit is {MAX_MATCHES}")
    if errors:
        raise ValidationError(errors)
    seed = seed if seed is not None else secrets.randbits(62)
    salt = secrets.token_hex(16)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            organiser=organiser,
            name=name,
            game=game,
            options=resolved,
            format=format,
            players_per_match=players,
            games_per_pairing=games_per_pairing,
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
        )
        Entry.objects.bulk_create(
            [Entry(tournament=tournament, bot_id=b, challenger=b in challengers) for b in bot_ids]
        )
        entry_validations(tournament=tournament)  # under way before the start, if need be
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


def _entrant_errors(*, organiser: AbstractBaseUser, game: str, bot_ids: list[int]) -> list[str]:
    errors = []
    twice = sorted({b for b in bot_ids if bot_ids.count(b) > 1})
    if twice:
        errors.append(f"each bot may be entered once; entered twice: {twice}")
    bots = {bot.pk: bot for bot in Bot.objects.filter(pk__in=bot_ids)}
    for bot_id in dict.fromkeys(bot_ids):
        bot = bots.get(bot_id)
        if bot is None:
            errors.append(f"no bot with id {bot_id}")
        elif bot.game != game:
            errors.append(f"{bot.name} plays {bot.game}, not {game}")
        elif bot.owner_id != organiser.pk and not bot.accepts_entries:
            errors.append(
                f"{bot.name}'s owner does not accept entries in other organisers' tournaments"
            )
        elif current_version(bot=bot) is None:
            errors.append(f"{bot.name} has no active version yet")
    return errors


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
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, start_at__lte=now)
    started = []
    for tournament in due:
        validations = entry_validations(tournament=tournament)
        if admission.still_waiting(validations, start_at=tournament.start_at, now=now):
            continue
        if start_tournament(tournament_id=tournament.pk):
            started.append(tournament.pk)
    return started


def entry_validations(*, tournament: Tournament) -> dict:
    """The validation of each entrant's current version under the tournament's player
    count and options, by version id, asked for where there is none yet."""
    versions = [
        v
        for entry in tournament.entries.select_related("bot")
        if (v := current_version(bot=entry.bot)) is not None
    ]
    return admission.validations_for(
        game=tournament.game,
        players=tournament.players_per_match,
        options=tournament.options,
        versions=versions,
    )


@transaction.atomic
def start_tournament(*, tournament_id: int) -> bool:
    """Claim a scheduled tournament (conditional UPDATE), pin versions, seed, queue round one.

    Returns False when someone else already started it. An entry whose version failed its
    validation under the tournament's options is withdrawn (``start_due_tournaments``
    waits for those validations first; one not ended by now does not hold the entry out).
    A tournament left with too few playable entrants for its format is cancelled, saying so.
    """
    claimed = Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.SCHEDULED
    ).update(status=Tournament.Status.RUNNING, started_at=timezone.now())
    if not claimed:
        return False
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    entries = list(tournament.entries.select_related("bot"))
    for entry in entries:
        entry.version = current_version(bot=entry.bot)
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
