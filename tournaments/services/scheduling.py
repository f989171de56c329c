"""Creating, starting and cancelling tournaments."""

from __future__ import annotations

import secrets
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from bots.models import Bot
from bots.selectors import current_version
from games import registry
from games.protocol import InvalidOptions
from games.rng import derive_seed
from tournaments.formats import round_robin
from tournaments.models import Entry, Match, Tournament
from tournaments.services.queueing import queue_match_after_commit

MAX_MATCHES = 5000
MAX_MOVE_MS = 60_000
MAX_BANK_MS = 600_000


def create_tournament(
    *,
    organiser: AbstractBaseUser,
    name: str,
    game: str,
    bot_ids: list[int],
    options: dict | None = None,
    players_per_match: int | None = None,
    games_per_pairing: int = 1,
    rotate_seats: bool = True,
    move_ms: int = 1000,
    bank_ms: int = 10000,
    start_at: datetime | None = None,
    seed: int | None = None,
    rated: bool = True,
) -> Tournament:
    """A round-robin tournament, checked whole before anything is stored."""
    engine = registry.get(game)
    players = players_per_match or engine.min_players
    try:
        engine.check_players(players)
        resolved = engine.resolve_options(options)
        engine.state_class.check_players_with_options(players, resolved)
    except InvalidOptions as exc:
        raise ValidationError(str(exc)) from None
    bot_ids = list(dict.fromkeys(bot_ids))
    bots = {bot.pk: bot for bot in Bot.objects.filter(pk__in=bot_ids)}
    errors = []
    for bot_id in bot_ids:
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
    if len(bot_ids) < players:
        errors.append(f"a {players}-player round robin needs at least {players} entrants")
    if not 1 <= games_per_pairing <= 100:
        errors.append("games per pairing must be between 1 and 100")
    if not 10 <= move_ms <= MAX_MOVE_MS:
        errors.append(f"move time must be between 10 and {MAX_MOVE_MS} ms")
    if not 0 <= bank_ms <= MAX_BANK_MS:
        errors.append(f"time bank must be between 0 and {MAX_BANK_MS} ms")
    if not errors:
        planned = len(round_robin(len(bot_ids), players, games_per_pairing, rotate_seats))
        if planned > MAX_MATCHES:
            errors.append(f"that makes {planned} matches; the limit is {MAX_MATCHES}")
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            organiser=organiser,
            name=name,
            game=game,
            options=resolved,
            players_per_match=players,
            games_per_pairing=games_per_pairing,
            rotate_seats=rotate_seats,
            move_ms=move_ms,
            bank_ms=bank_ms,
            rated=rated,
            seed=seed if seed is not None else secrets.randbits(62),
            start_at=start_at or timezone.now(),
        )
        Entry.objects.bulk_create([Entry(tournament=tournament, bot_id=b) for b in bot_ids])
    return tournament


def start_due_tournaments(*, now: datetime | None = None) -> list[int]:
    now = now or timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, start_at__lte=now)
    return [t.pk for t in due if start_tournament(tournament_id=t.pk)]


@transaction.atomic
def start_tournament(*, tournament_id: int) -> bool:
    """Claim a scheduled tournament (conditional UPDATE), pin versions, create and queue matches.

    Returns False when someone else already started it.
    """
    claimed = Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.SCHEDULED
    ).update(status=Tournament.Status.RUNNING, started_at=timezone.now())
    if not claimed:
        return False
    tournament = Tournament.objects.get(pk=tournament_id)
    entries = list(tournament.entries.select_related("bot"))
    playable = []
    for entry in entries:
        entry.version = current_version(bot=entry.bot)
        if entry.version is not None:
            entry.save(update_fields=["version"])
            playable.append(entry)
    engine = registry.get(tournament.game)
    if len(playable) < tournament.players_per_match:
        Tournament.objects.filter(pk=tournament_id).update(
            status=Tournament.Status.CANCELLED, finished_at=timezone.now()
        )
        return True
    planned = round_robin(
        len(playable),
        tournament.players_per_match,
        tournament.games_per_pairing,
        tournament.rotate_seats,
    )
    for number, plan in enumerate(planned, start=1):
        match = Match.objects.create(
            tournament=tournament,
            round=plan.round,
            number=number,
            game=tournament.game,
            engine_version=engine.version,
            options=tournament.options,
            seed=derive_seed(tournament.seed, "group", plan.group, "deal", plan.deal) >> 2,
            move_ms=tournament.move_ms,
            bank_ms=tournament.bank_ms,
            status=Match.Status.QUEUED,
            queued_at=timezone.now(),
        )
        match.seats.bulk_create(
            [
                match.seats.model(match=match, seat=seat, version=playable[index].version)
                for seat, index in enumerate(plan.entrants)
            ]
        )
        queue_match_after_commit(match.pk)
    return True


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
