"""Competitions: creating and editing them, entries, release of results and announcements
(docs/competitions.md); the phases at their dates, the freeze and the final are
``tournaments.services.competition_phases``.

Refusals are ValidationErrors by field (as ``tournaments.services.refusals`` words them)
or PermissionDenied (403): nothing is stored when one is raised. Who may organise is the
caller's check (``tournaments.selectors.competitions.may_organise``).
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from bots import access
from bots.models import Bot
from games import registry
from games.protocol import InvalidOptions
from tournaments.format_inputs import event_of
from tournaments.models import (
    Announcement,
    Competition,
    CompetitionEntry,
    Entry,
    Team,
    Tournament,
)
from tournaments.services import refusals, scheduling, telling

logger = logging.getLogger(__name__)

Phase = Competition.Phase
Status = CompetitionEntry.Status

MAX_NAME = 100
MAX_ANNOUNCEMENT = 5000
MAX_INVITE_CODE = 64
MAX_DIVISION_SIZE = 64
MAX_CYCLE_MINUTES = 60 * 24 * 30
# The final tournament's settings a competition may give (create_tournament's keywords),
# and ``challengers``: a gauntlet's number of challengers, the top of the standings.
FINAL_SETTINGS = {
    "format": str,
    "games_per_pairing": int,
    "rotate_seats": bool,
    "rounds": int,
    "advance": int,
    "third_place": bool,
    "grand_final_reset": bool,
    "record_visibility": str,
    "challengers": int,
}
# What the organiser may change, by the service's argument names; the pool only while
# nothing has been entered, the deadline and the final's settings only while open.
EDITABLE = (
    "name",
    "description",
    "game",
    "players",
    "options",
    "move_ms",
    "bank_ms",
    "opens_at",
    "deadline",
    "final_at",
    "final_settings",
    "release",
    "ladder_hidden_from",
    "eligibility",
    "invite_code",
    "division_size",
    "promote",
    "cycle_minutes",
)
POOL = ("game", "players", "options", "move_ms", "bank_ms")
UNTIL_FROZEN = ("opens_at", "deadline", "final_settings", "division_size", "promote")


# --- checking ------------------------------------------------------------------------------


def _final_refusals(
    found: refusals.Refusals, *, final: dict, players: int | None, move_ms: int, bank_ms: int
) -> None:
    """The final's settings checked as create_tournament checks them, under
    ``final_settings.<name>``; how many entrants it will have is known only at the freeze,
    so the format is asked about a field it can play (``players`` None: the seats are
    refused already, so the format is not asked)."""
    if not isinstance(final, dict):
        found.add("final_settings", 'The final\'s settings are an object: {"format": ...}')
        return
    wrong = False
    for key, value in final.items():
        kind = FINAL_SETTINGS.get(key)
        if kind is None:
            known = ", ".join(FINAL_SETTINGS)
            found.add(
                f"final_settings.{key}", f"There is no final setting {key!r}: give only {known}"
            )
            wrong = True
        elif value is not None and type(value) is not kind:
            word = {str: "text", int: "a whole number", bool: "true or false"}[kind]
            found.add(
                f"final_settings.{key}", f"{key.replace('_', ' ').capitalize()} must be {word}"
            )
            wrong = True
    if wrong or players is None:
        return
    format = final.get("format") or Tournament.Format.ROUND_ROBIN
    rotate = final.get("rotate_seats", True)
    games = final.get("games_per_pairing") or (players if rotate else 1)
    challengers = final.get("challengers") or (1 if format == Tournament.Format.GAUNTLET else 0)
    if challengers < 0:
        found.add("final_settings.challengers", "Challengers must be 0 or more")
        return
    advance = final.get("advance") or 1
    field = players * 4 + challengers
    if format == Tournament.Format.SINGLE_ELIMINATION and players > 2 and 1 <= advance < players:
        field = players + 3 * (players - advance)  # a field whose tables come out even
    bot_ids = list(range(1, field + 1))
    inner = refusals.Refusals()
    refusals.setting_refusals(
        inner,
        format=format,
        players=players,
        games_per_pairing=games,
        rotate_seats=rotate,
        move_ms=move_ms,
        bank_ms=bank_ms,
        rounds=final.get("rounds"),
        record_visibility=final.get("record_visibility") or Tournament.RecordVisibility.FINISHED,
        bot_ids=bot_ids,
        challengers=bot_ids[:challengers],
    )
    if not inner:
        unsaved = Tournament(
            format=format,
            players_per_match=players,
            games_per_pairing=games,
            rotate_seats=rotate,
            rounds=final.get("rounds"),
            advance=advance,
            third_place=final.get("third_place", False),
            grand_final_reset=final.get("grand_final_reset", True),
        )
        event = event_of(unsaved, entrants=field, challengers=tuple(range(challengers)))
        refusals.format_refusals(inner, format=format, event=event)
    for key, messages in inner.as_dict().items():
        if key in ("move_ms", "bank_ms"):
            continue  # the competition's own fields say it
        name = {"players_per_match": "format", "bots": "format"}.get(key, key)
        for message in messages:
            found.add(f"final_settings.{name}", message)


def _refusals(wanted: dict, *, now: datetime, changed: set[str]) -> refusals.Refusals:
    """Every refusal of a competition's settings (``changed``: the fields given anew, whose
    dates must not be past)."""
    found = refusals.Refusals()
    name = (wanted["name"] or "").strip()
    if not name:
        found.add("name", "Give the competition a name")
    elif len(name) > MAX_NAME:
        found.add("name", f"A name has at most {MAX_NAME} characters")
    try:
        engine = registry.get(wanted["game"])
    except registry.UnknownGame:
        known = ", ".join(registry.slugs())
        found.add("game", f"There is no game {wanted['game']!r}: pick one of {known}")
        engine = None
    players = wanted["players"]
    if engine is not None:
        players = players or engine.min_players
        wanted["players"] = players
        if message := refusals.players_refusal(engine, players):
            found.add("players", message)
        options = wanted["options"]
        if not isinstance(options, dict):
            found.add("options", "The options are an object of option name to value")
        else:
            try:
                wanted["options"] = engine.resolve_options(options)
            except InvalidOptions as exc:
                found.add(*refusals.option_refusal(engine, exc))
            else:
                if "players" not in found:
                    try:
                        engine.state_class.check_players_with_options(players, wanted["options"])
                    except InvalidOptions as exc:
                        field, message = refusals.option_refusal(engine, exc)
                        found.add("players" if field == "options" else field, message)
    if not 10 <= wanted["move_ms"] <= refusals.MAX_MOVE_MS:
        found.add("move_ms", f"Give a move time from 10 to {refusals.MAX_MOVE_MS} ms")
    if not 0 <= wanted["bank_ms"] <= refusals.MAX_BANK_MS:
        found.add("bank_ms", f"Give a time bank from 0 to {refusals.MAX_BANK_MS} ms")
    opens_at, deadline, final_at = wanted["opens_at"], wanted["deadline"], wanted["final_at"]
    if deadline <= opens_at:
        found.add("deadline", "The deadline comes after the opening: give a later deadline")
    if final_at < deadline:
        found.add("final_at", "The final starts at the deadline or after it: give a later time")
    for field in ("deadline", "final_at"):
        if field in changed and field not in found:
            if (refusal := scheduling.past_start_refusal(wanted[field], now=now)) is not None:
                found.add(field, refusal.replace("leave the start empty to start now, or ", ""))
    hidden_from = wanted["ladder_hidden_from"]
    if hidden_from is not None and hidden_from > final_at:
        found.add(
            "ladder_hidden_from",
            "The ladder's results are held back from a time before the final: give an "
            "earlier time, or leave it empty to show them always",
        )
    if wanted["release"] not in Competition.Release.values:
        known = ", ".join(Competition.Release.values)
        found.add("release", f"There is no release {wanted['release']!r}: pick one of {known}")
    if wanted["eligibility"] not in Competition.Eligibility.values:
        known = ", ".join(Competition.Eligibility.values)
        found.add(
            "eligibility", f"There is no eligibility {wanted['eligibility']!r}: pick one of {known}"
        )
    code = wanted["invite_code"] or ""
    if wanted["eligibility"] == Competition.Eligibility.INVITE and not code.strip():
        found.add("invite_code", "An invite-only competition needs an invite code to hand out")
    if len(code) > MAX_INVITE_CODE:
        found.add("invite_code", f"An invite code has at most {MAX_INVITE_CODE} characters")
    size, promote = wanted["division_size"], wanted["promote"]
    if size is not None:
        least = max(2, players or 2, 2 * (promote or 1))
        if not least <= size <= MAX_DIVISION_SIZE:
            found.add(
                "division_size",
                f"A division holds from {least} to {MAX_DIVISION_SIZE} entrants (at least a "
                "table, and room for those who move up and down), or leave it empty for one table",
            )
    if not isinstance(promote, int) or promote < 1:
        found.add("promote", "Promote at least 1 a cycle")
    if not 1 <= wanted["cycle_minutes"] <= MAX_CYCLE_MINUTES:
        found.add("cycle_minutes", f"A cycle lasts from 1 to {MAX_CYCLE_MINUTES} minutes")
    _final_refusals(
        found,
        final=wanted["final_settings"],
        players=players if engine is not None and "players" not in found else None,
        move_ms=wanted["move_ms"],
        bank_ms=wanted["bank_ms"],
    )
    return found


# --- creating and editing ---------------------------------------------------------------------


def create_competition(
    *,
    organiser: AbstractBaseUser,
    name: str,
    game: str,
    players: int | None,
    options: dict | None,
    opens_at: datetime | None,
    deadline: datetime,
    final_at: datetime,
    final_settings: dict | None,
    description: str = "",
    move_ms: int = 1000,
    bank_ms: int = 10000,
    release: str = Competition.Release.PUBLIC,
    ladder_hidden_from: datetime | None = None,
    eligibility: str = Competition.Eligibility.OPEN,
    invite_code: str = "",
    division_size: int | None = None,
    promote: int = 1,
    cycle_minutes: int = 60,
    seed: int | None = None,
) -> Competition:
    """A competition, checked whole before anything is stored; its ladder's seed is
    committed now (SHA-256 of "salt:seed") and revealed when it closes."""
    now = timezone.now()
    wanted = {
        "name": name,
        "description": description or "",
        "game": game,
        "players": players,
        "options": options if options is not None else {},
        "move_ms": move_ms,
        "bank_ms": bank_ms,
        "opens_at": opens_at or now,
        "deadline": deadline,
        "final_at": final_at,
        "final_settings": final_settings if final_settings is not None else {},
        "release": release,
        "ladder_hidden_from": ladder_hidden_from,
        "eligibility": eligibility,
        "invite_code": invite_code or "",
        "division_size": division_size,
        "promote": promote,
        "cycle_minutes": cycle_minutes,
    }
    found = _refusals(wanted, now=now, changed={"deadline", "final_at"})
    if found:
        raise ValidationError(found.as_dict())
    wanted["name"] = wanted["name"].strip()
    seed = seed if seed is not None else secrets.randbits(62)
    salt = secrets.token_hex(16)
    return Competition.objects.create(
        organiser=organiser,
        seed=seed,
        seed_salt=salt,
        seed_commitment=scheduling.seed_commitment(seed=seed, salt=salt),
        **wanted,
    )


@transaction.atomic
def update_competition(*, competition: Competition, **changes) -> Competition:
    """Change a competition's settings, checked whole as at creation. The pool (game,
    players, options, times) only while nothing is entered; the dates before the freeze and
    the final's settings only while open; the final's start moves with ``final_at`` until
    it starts."""
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise TypeError(f"not editable: {', '.join(unknown)}")
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    current = {name: getattr(competition, name) for name in EDITABLE}
    changed = {name for name, value in changes.items() if value != current[name]}
    found = refusals.Refusals()
    if competition.phase == Phase.CLOSED and changed - {"name", "description", "release"}:
        found.add(
            "non_field_errors",
            "This competition is closed: only its name, description and release change",
        )
    if changed & set(POOL) and competition.entries.exists():
        for name in sorted(changed & set(POOL)):
            found.add(name, "Bots have entered already: the pool they entered stays")
    if competition.phase != Phase.OPEN:
        for name in sorted(changed & set(UNTIL_FROZEN)):
            found.add(
                name, f"The competition is {competition.phase}: this is fixed since the freeze"
            )
    if "final_at" in changed and competition.final is not None:
        if competition.final.status != Tournament.Status.SCHEDULED:
            found.add("final_at", "The final has started: its start stays")
    if "game" in changed and "options" not in changes:
        changes["options"] = {}  # one game's options mean nothing to another
    if found:
        raise ValidationError(found.as_dict())
    wanted = {**current, **changes}
    wanted["invite_code"] = wanted["invite_code"] or ""
    wanted["description"] = wanted["description"] or ""
    found = _refusals(wanted, now=timezone.now(), changed=changed)
    if found:
        raise ValidationError(found.as_dict())
    wanted["name"] = wanted["name"].strip()
    for name in EDITABLE:
        setattr(competition, name, wanted[name])
    if "release" in changed and competition.release == Competition.Release.PUBLIC:
        competition.revealed_at = timezone.now()
    competition.save()
    if "release" in changed and competition.release == Competition.Release.PUBLIC:
        transaction.on_commit(lambda: telling.competition_revealed(competition))
    if "final_at" in changed and competition.final is not None:
        Tournament.objects.filter(
            pk=competition.final_id, status=Tournament.Status.SCHEDULED
        ).update(start_at=competition.final_at)
    return competition


# --- entries ------------------------------------------------------------------------------------


def _place(entry: CompetitionEntry) -> None:
    """An accepted entry starts in the bottom division (the ladder's placement)."""
    from tournaments.services import competition_ladder

    competition_ladder.place_entry(entry=entry)


def enter_competition(
    *,
    competition: Competition,
    bot: Bot,
    user: AbstractBaseUser,
    invite_code: str = "",
    team: Team | None = None,
    now: datetime | None = None,
) -> CompetitionEntry:
    """Enter ``bot`` (its owner, or a member of a team that owns it). Open competitions
    accept at once; invite-only ones want the code (else PermissionDenied); approval ones
    keep the entry pending until the organiser decides. Entries close at the deadline."""
    now = now or timezone.now()
    if not access.may_manage(user, bot):
        raise PermissionDenied("you may enter only your own bots (or your team's)")
    if competition.phase != Phase.OPEN or now >= competition.deadline:
        raise ValidationError("Entries are closed: the deadline has passed")
    if bot.game != competition.game:
        raise ValidationError({"bot": [f"{bot.name} plays {bot.game}, not {competition.game}"]})
    owning = bot.teams.filter(competition=competition).first()
    if team is not None:
        if team.competition_id != competition.pk:
            raise ValidationError({"team": ["That team is of another competition"]})
        if not team.members.filter(user_id=user.pk).exists():
            raise PermissionDenied("you may enter for a team only as one of its members")
        if owning is None or owning.pk != team.pk:
            raise ValidationError(
                {"team": [f"{bot.name} is not the team's: its creator gives it to the team first"]}
            )
    team = team or owning
    organiser = user.pk == competition.organiser_id
    if competition.eligibility == Competition.Eligibility.INVITE and not organiser:
        if not secrets.compare_digest(
            (invite_code or "").strip().encode(), competition.invite_code.strip().encode()
        ):
            raise PermissionDenied("the invite code does not match: ask the organiser for it")
    pending = competition.eligibility == Competition.Eligibility.APPROVAL and not organiser
    try:
        with transaction.atomic():
            # Under the competition's lock, so no entry slips in beside the freeze.
            locked = Competition.objects.select_for_update().get(pk=competition.pk)
            if locked.phase != Phase.OPEN or now >= locked.deadline:
                raise ValidationError("Entries are closed: the deadline has passed")
            entry = CompetitionEntry.objects.create(
                competition=competition,
                bot=bot,
                team=team,
                status=Status.PENDING if pending else Status.ACCEPTED,
            )
            if entry.status == Status.ACCEPTED:
                _place(entry)
    except IntegrityError:
        raise ValidationError(
            {"bot": [f"{bot.name} has entered this competition already"]}
        ) from None
    return entry


@transaction.atomic
def decide_entry(*, entry: CompetitionEntry, accept: bool, reason: str = "") -> CompetitionEntry:
    """The organiser accepts or refuses a pending entry (refused: ``reason`` is public)."""
    entry = (
        CompetitionEntry.objects.select_for_update().select_related("competition").get(pk=entry.pk)
    )
    if entry.status != Status.PENDING:
        raise ValidationError(f"This entry is {entry.status}: only a pending one is decided")
    if entry.competition.phase != Phase.OPEN:
        raise ValidationError("Entries are closed: the deadline has passed")
    entry.status = Status.ACCEPTED if accept else Status.REFUSED
    entry.reason = "" if accept else (reason or "").strip()
    entry.save(update_fields=["status", "reason"])
    if accept:
        _place(entry)
    return entry


@transaction.atomic
def disqualify_entry(*, entry: CompetitionEntry, reason: str) -> CompetitionEntry:
    """Out of the standings and the final, with a public reason; its matches stay (the
    archive keeps them). A final not started loses its entry; a started one withdraws it."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": ["Say why the entry is disqualified: everyone reads it"]})
    entry = (
        CompetitionEntry.objects.select_for_update().select_related("competition").get(pk=entry.pk)
    )
    if entry.status == Status.DISQUALIFIED:
        raise ValidationError("This entry is disqualified already")
    entry.status = Status.DISQUALIFIED
    entry.reason = reason
    entry.save(update_fields=["status", "reason"])
    final = entry.competition.final
    if final is not None:
        entries = Entry.objects.filter(tournament=final, bot_id=entry.bot_id)
        if final.status == Tournament.Status.SCHEDULED:
            entries.delete()
        else:
            entries.update(withdrawn=True, withdrawal_reason=f"disqualified: {reason}"[:500])
    return entry


# --- release and announcements ------------------------------------------------------------


def set_release(*, competition: Competition, release: str) -> Competition:
    """Who sees the held-back results: hidden, participants or public."""
    if release not in Competition.Release.values:
        known = ", ".join(Competition.Release.values)
        raise ValidationError(
            {"release": [f"There is no release {release!r}: pick one of {known}"]}
        )
    competition = Competition.objects.get(pk=competition.pk)
    competition.release = release
    fields = ["release"]
    if release == Competition.Release.PUBLIC:
        competition.revealed_at = timezone.now()
        fields.append("revealed_at")
    competition.save(update_fields=fields)  # saved, not updated: the read cache follows
    return competition


def reveal_results(*, competition: Competition) -> Competition:
    """Show every result to everyone, in one step; the final's places, held back from the
    notifications until now, are told once it commits."""
    competition = set_release(competition=competition, release=Competition.Release.PUBLIC)
    transaction.on_commit(lambda: telling.competition_revealed(competition))
    return competition


def announce(*, competition: Competition, text: str) -> Announcement:
    """An announcement from the organiser, on the competition's page and in its API."""
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": ["Write the announcement"]})
    if len(text) > MAX_ANNOUNCEMENT:
        raise ValidationError(
            {"text": [f"An announcement has at most {MAX_ANNOUNCEMENT} characters"]}
        )
    return publish(competition=competition, text=text, by_organiser=True)


def publish(*, competition: Competition, text: str, by_organiser: bool = False) -> Announcement:
    """An announcement on the page and in the API, told to the entrants (and to the
    organiser when the competition wrote it) once it commits."""
    announcement = Announcement.objects.create(competition=competition, text=text)
    telling.competition_announced(announcement, by_organiser=by_organiser)
    return announcement
