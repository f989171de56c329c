"""Reads of competitions: lists, details, entrants, teams, announcements, and their results
as the release lets the reader see them (``tournaments.release``: the one place that says).
"""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from tournaments import release
from tournaments.models import Announcement, Competition, CompetitionEntry, Team

Status = CompetitionEntry.Status
# Entries everyone sees; pending and refused ones only the organiser, staff and the
# entrant themselves.
SHOWN = (Status.ACCEPTED, Status.DISQUALIFIED)


def _signed_in(user) -> bool:
    return user is not None and user.is_authenticated


def may_organise(*, competition: Competition, user) -> bool:
    """The organiser, and staff, run the competition."""
    return _signed_in(user) and (user.is_staff or user.pk == competition.organiser_id)


def competition_list(*, user) -> QuerySet[Competition]:
    """Every competition, newest opening first, with its counts of accepted entries and
    teams (competitions are public; only their held-back results are not)."""
    return Competition.objects.select_related("organiser", "final").annotate(
        entrant_count=Count("entries", filter=Q(entries__status=Status.ACCEPTED), distinct=True),
        team_count=Count("teams", distinct=True),
    )


def seed_shown(*, competition: Competition, user) -> bool:
    """The ladder's seed deals every ladder game: revealed once the competition has closed,
    and to its organiser and staff before."""
    return competition.phase == Competition.Phase.CLOSED or may_organise(
        competition=competition, user=user
    )


def next_date(*, competition: Competition, now=None) -> dict | None:
    """The next date the competition moves at (for countdowns): what happens and when."""
    now = now or timezone.now()
    for name, when in (
        ("opens", competition.opens_at),
        ("deadline", competition.deadline),
        ("final", competition.final_at),
    ):
        if when > now:
            return {"event": name, "at": when}
    return None


def competition_detail(*, competition: Competition, user) -> dict:
    """What the competition's page and API show beyond its fields: who the reader is to
    it, whether they see its held-back results, the next date, the final's state."""
    final = competition.final
    return {
        "may_organise": may_organise(competition=competition, user=user),
        "is_participant": release.is_participant(competition=competition, user=user),
        "results_visible": release.results_visible(competition=competition, user=user),
        "next": next_date(competition=competition),
        "final": None if final is None else {"id": final.pk, "status": final.status},
        "team": my_team(competition=competition, user=user),
    }


def my_team(*, competition: Competition, user) -> dict | None:
    if not _signed_in(user):
        return None
    team = competition.teams.filter(members__user_id=user.pk).first()
    return None if team is None else {"id": team.pk, "name": team.name}


def competition_entrants(*, competition: Competition, user) -> list[dict]:
    """The entries in the order they came: accepted and disqualified ones for everyone
    (a disqualification's reason is public); pending and refused ones also for the
    organiser and for whoever may manage the bot."""
    entries = competition.entries.select_related("bot__owner", "team", "frozen_version").order_by(
        "pk"
    )
    if not may_organise(competition=competition, user=user):
        mine = Q(status__in=SHOWN)
        if _signed_in(user):
            mine |= Q(bot__owner_id=user.pk) | Q(team__members__user_id=user.pk)
        entries = entries.filter(mine).distinct()
    return [
        {
            "id": e.pk,
            "bot": e.bot_id,
            "bot_name": e.bot.name,
            "owner": e.bot.owner.username,
            "team": e.team.name if e.team_id else None,
            "status": e.status,
            "reason": e.reason,
            "division": e.division,
            "frozen_version": e.frozen_version.number if e.frozen_version_id else None,
            "created_at": e.created_at,
        }
        for e in entries
    ]


def participants_of(*, competition: Competition) -> set[int]:
    """The user ids of the participants (owners of entered bots, members of entered
    teams): those a "participants" release shows results to."""
    return release.participant_ids(competition=competition)


def competition_teams(*, competition: Competition) -> list[dict]:
    """The teams with their members and bots, by name."""
    teams = competition.teams.select_related("created_by").prefetch_related("members__user", "bots")
    return [
        {
            "id": t.pk,
            "name": t.name,
            "created_by": t.created_by.username,
            "members": [m.user.username for m in t.members.all()],
            "bots": [{"id": b.pk, "name": b.name} for b in t.bots.all()],
            "created_at": t.created_at,
        }
        for t in teams
    ]


def team_of(*, competition: Competition, team_id: int) -> Team | None:
    return competition.teams.select_related("competition").filter(pk=team_id).first()


def competition_announcements(*, competition: Competition) -> QuerySet[Announcement]:
    return competition.announcements.all()


def ladder_results_held(*, competition: Competition, user, now=None) -> bool:
    """Whether the ladder's standings are held back from ``user`` now: from
    ``ladder_hidden_from`` on, under a release that does not show them to ``user``."""
    now = now or timezone.now()
    if competition.ladder_hidden_from is None or now < competition.ladder_hidden_from:
        return False
    return not release.results_visible(competition=competition, user=user)


def competition_results(*, competition: Competition, user) -> dict:
    """The division tables and the overall order, or ``hidden`` with the note saying why,
    as the release lets ``user`` see them."""
    if ladder_results_held(competition=competition, user=user):
        return {"hidden": True, "note": release.HIDDEN_NOTE, "divisions": [], "standings": []}
    from tournaments.selectors import competition_standings

    return {
        "hidden": False,
        "note": "",
        "divisions": competition_standings.division_tables(competition=competition),
        "standings": competition_standings.competition_standings(competition=competition),
    }
