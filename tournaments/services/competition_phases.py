"""A competition's clock: the phases its dates and its final move it through, the freeze
at the deadline (each entry's version fixed) and the final created among the entries, in
the standings' order (docs/competitions.md). A pause holds all of it."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bots.models import BotVersion
from bots.selectors import NOT_CURRENT
from tournaments.models import Competition, CompetitionEntry, Tournament
from tournaments.services import scheduling
from tournaments.services.competitions import MAX_ANNOUNCEMENT, publish

logger = logging.getLogger(__name__)

Phase = Competition.Phase
Status = CompetitionEntry.Status


def set_competition_paused(*, competition: Competition, paused: bool) -> Competition:
    """Paused: no phase changes at their dates, no ladder matches queued and the final does
    not start; what is queued still plays. A date passed meanwhile takes effect at the resume."""
    Competition.objects.filter(pk=competition.pk).update(paused=paused)
    competition.refresh_from_db()
    return competition


def advance_competitions(*, now: datetime | None = None) -> list[int]:
    """Move every competition not paused into the phase its dates and its final say: frozen
    at the deadline, final once the final runs, closed once it is over. Returns the ids of
    those that changed."""
    now = now or timezone.now()
    moved = []
    live = Competition.objects.filter(paused=False).exclude(phase=Phase.CLOSED)
    for competition in live.select_related("final").order_by("pk"):
        # One competition's failure must not hold the others back (it is tried again on
        # the next tick).
        try:
            if competition.phase == Phase.OPEN:
                if now >= competition.deadline and freeze_competition(
                    competition=competition, now=now
                ):
                    moved.append(competition.pk)
            elif _follow_final(competition=competition, now=now):
                moved.append(competition.pk)
        except Exception:
            logger.exception("competition %s could not move on", competition.pk)
    return moved


def _follow_final(*, competition: Competition, now: datetime) -> bool:
    final = competition.final
    if final is None:
        phase = Phase.CLOSED  # the final was deleted: nothing is left to play
    elif final.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        phase = Phase.CLOSED
    elif final.status == Tournament.Status.RUNNING:
        phase = Phase.FINAL
    else:
        return False
    if phase == competition.phase:
        return False
    fields = {"phase": phase}
    if phase == Phase.CLOSED:
        fields["closed_at"] = now
    changed = Competition.objects.filter(pk=competition.pk, phase=competition.phase).update(
        **fields
    )
    return bool(changed)


WAITING = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)


def frozen_version(*, bot_id: int, deadline: datetime) -> BotVersion | None:
    """The version that counts: the bot's last version created before ``deadline`` that is
    active and may be current."""
    return (
        BotVersion.objects.filter(
            bot_id=bot_id, created_at__lt=deadline, status=BotVersion.Status.ACTIVE
        )
        .exclude(gating__in=NOT_CURRENT)
        .defer("upload")
        .order_by("-created_at", "-number")
        .first()
    )


def _still_deciding(*, bot_ids: list[int], deadline: datetime) -> bool:
    """Whether a version uploaded before the deadline is still being validated or gated."""
    return BotVersion.objects.filter(
        Q(status__in=WAITING) | Q(gating=BotVersion.Gating.RUNNING),
        bot_id__in=bot_ids,
        created_at__lt=deadline,
    ).exists()


def freeze_competition(*, competition: Competition, now: datetime) -> bool:
    """At the deadline: fix each accepted entry's version, create the final among those
    with one (seeded by the standings, versions pinned, unrated, its seed committed) and
    move to frozen. Waits (returns False) while a version uploaded before the deadline is
    still being decided, for up to ARENA_COMPETITION_FREEZE_GRACE_SECONDS."""
    with transaction.atomic():
        competition = Competition.objects.select_for_update().get(pk=competition.pk)
        if competition.phase != Phase.OPEN or now < competition.deadline:
            return False
        entries = list(competition.entries.filter(status=Status.ACCEPTED).order_by("pk"))
        grace = timedelta(seconds=settings.ARENA_COMPETITION_FREEZE_GRACE_SECONDS)
        if now < competition.deadline + grace and _still_deciding(
            bot_ids=[e.bot_id for e in entries], deadline=competition.deadline
        ):
            return False
        for entry in entries:
            entry.frozen_version = frozen_version(
                bot_id=entry.bot_id, deadline=competition.deadline
            )
        CompetitionEntry.objects.bulk_update(entries, ["frozen_version"])
        competition.phase = Phase.FROZEN
        competition.frozen_at = now
        competition.save(update_fields=["phase", "frozen_at"])
        _create_final(competition=competition, now=now)
    return True


def _standings_order(
    competition: Competition, entries: list[CompetitionEntry]
) -> list[CompetitionEntry]:
    """The eligible entries in the order of the competition's standings (division first,
    then the standing within it); those the standings do not list after, by entry."""
    from tournaments.selectors.competition_standings import competition_standings

    rank = {}
    for place, row in enumerate(competition_standings(competition=competition)):
        rank.setdefault(row["entry_id"], place)
    return sorted(entries, key=lambda e: (rank.get(e.pk, len(rank)), e.pk))


def _create_final(*, competition: Competition, now: datetime) -> None:
    """The final tournament among the eligible entries; if no field can play it, the
    competition closes and says why in an announcement."""
    eligible = [
        e
        for e in competition.entries.filter(status=Status.ACCEPTED, frozen_version__isnull=False)
        .select_related("bot")
        .order_by("pk")
    ]
    ordered = _standings_order(competition, eligible)
    final = dict(competition.final_settings or {})
    challengers = final.pop("challengers", None)
    if final.get("format") == Tournament.Format.GAUNTLET and not challengers:
        challengers = 1
    refused: dict = {}
    # A format that needs a field of a given size plays the top of the standings that fits.
    for size in range(len(ordered), 1, -1):
        field = ordered[:size]
        bot_ids = [e.bot_id for e in field]
        try:
            tournament = scheduling.create_tournament(
                organiser=competition.organiser,
                name=f"{competition.name}: final"[:100],
                game=competition.game,
                bot_ids=bot_ids,
                options=competition.options,
                players_per_match=competition.players,
                move_ms=competition.move_ms,
                bank_ms=competition.bank_ms,
                start_at=max(competition.final_at, now),
                rated=False,
                seeding=Tournament.Seeding.ENTRY,
                challengers=bot_ids[: challengers or 0],
                pinned={e.bot_id: e.frozen_version_id for e in field},
                **final,
            )
        except ValidationError as exc:
            refused = exc.message_dict
            if set(refused) <= {"bots", "challengers"}:
                continue
            break
        competition.final = tournament
        competition.save(update_fields=["final"])
        if size < len(ordered):
            publish(
                competition=competition,
                text=f"The final's format plays a field of {size}: the top {size} of the "
                f"standings play it, of {len(ordered)} eligible entrants.",
            )
        return
    why = "; ".join(m for messages in refused.values() for m in messages) or (
        f"too few eligible entrants ({len(ordered)}) for any final"
    )
    publish(competition=competition, text=f"No final could be played: {why}"[:MAX_ANNOUNCEMENT])
    competition.phase = Phase.CLOSED
    competition.closed_at = now
    competition.save(update_fields=["phase", "closed_at"])
