"""Teams of a competition: people who enter and manage bots together.

A person is in at most one team per competition (the database keeps it so). The team's
creator adds and removes members and gives the team bots they own; every member may then
upload versions of those bots, enter them and challenge with them (``bots.access``), while
the bot's owner stays its creator.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from bots.models import Bot
from tournaments.models import Competition, Team, TeamMember

MAX_TEAM_NAME = 60


def _open_for_teams(competition: Competition) -> None:
    if competition.phase == Competition.Phase.CLOSED:
        raise ValidationError("This competition is closed: its teams no longer change")


def _team_of(*, competition: Competition, user_id: int) -> Team | None:
    member = (
        TeamMember.objects.filter(competition=competition, user_id=user_id)
        .select_related("team")
        .first()
    )
    return member.team if member else None


@transaction.atomic
def create_team(*, competition: Competition, name: str, user: AbstractBaseUser) -> Team:
    """A new team of ``competition`` with ``user`` as its creator and first member."""
    _open_for_teams(competition)
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["Give the team a name"]})
    if len(name) > MAX_TEAM_NAME:
        raise ValidationError({"name": [f"A team's name has at most {MAX_TEAM_NAME} characters"]})
    if Team.objects.filter(competition=competition, name__iexact=name).exists():
        raise ValidationError({"name": [f"There is a team named {name} already: pick another"]})
    if (mine := _team_of(competition=competition, user_id=user.pk)) is not None:
        raise ValidationError(
            f"You are in the team {mine.name} already: one team per person per competition"
        )
    team = Team.objects.create(competition=competition, name=name, created_by=user)
    TeamMember.objects.create(team=team, user=user, competition=competition)
    return team


def _creator_only(team: Team, by: AbstractBaseUser, what: str) -> None:
    if by is None or not by.is_authenticated or by.pk != team.created_by_id:
        raise PermissionDenied(f"only the team's creator may {what}")


def add_team_member(*, team: Team, user: AbstractBaseUser, by: AbstractBaseUser) -> TeamMember:
    """The creator adds ``user`` to the team (who must be in no team of the competition)."""
    _creator_only(team, by, "add members")
    _open_for_teams(team.competition)
    other = _team_of(competition=team.competition, user_id=user.pk)
    if other is not None:
        where = "this team" if other.pk == team.pk else f"the team {other.name}"
        raise ValidationError(
            {"username": [f"{user.username} is in {where} already: one team per person"]}
        )
    try:
        with transaction.atomic():
            return TeamMember.objects.create(team=team, user=user, competition=team.competition)
    except IntegrityError:  # joined another team meanwhile
        raise ValidationError(
            {"username": [f"{user.username} is in a team already: one team per person"]}
        ) from None


def remove_team_member(*, team: Team, user: AbstractBaseUser, by: AbstractBaseUser) -> None:
    """The creator removes a member, or a member leaves; the creator stays (the team's
    bots are theirs)."""
    if by is None or not by.is_authenticated or by.pk not in (team.created_by_id, user.pk):
        raise PermissionDenied("only the team's creator may remove other members")
    if user.pk == team.created_by_id:
        raise ValidationError(
            {"username": ["The team's creator stays in the team: the team's bots are theirs"]}
        )
    removed, _ = TeamMember.objects.filter(team=team, user=user).delete()
    if not removed:
        raise ValidationError({"username": [f"{user.username} is not in this team"]})


def give_bot_to_team(*, team: Team, bot: Bot, by: AbstractBaseUser) -> Team:
    """The creator gives the team a bot they own (of the competition's game): every member
    may then upload its versions, enter it and challenge with it."""
    _creator_only(team, by, "give it bots")
    _open_for_teams(team.competition)
    if bot.owner_id != by.pk:
        raise PermissionDenied("you may give a team only a bot you own")
    if bot.game != team.competition.game:
        raise ValidationError(
            {"bot": [f"{bot.name} plays {bot.game}, not {team.competition.game}"]}
        )
    elsewhere = bot.teams.filter(competition=team.competition).exclude(pk=team.pk).first()
    if elsewhere is not None:
        raise ValidationError({"bot": [f"{bot.name} belongs to the team {elsewhere.name}"]})
    team.bots.add(bot)
    return team


def member_may_manage(user_id: int, bot: Bot) -> bool:
    """``bots.access`` grant: a member of a team that owns ``bot`` manages it."""
    return TeamMember.objects.filter(user_id=user_id, team__bots=bot).exists()


def bots_managed_by_member(user_id: int) -> list[int]:
    """``bots.access`` grant: the bots of the teams ``user_id`` is in."""
    return list(
        Team.bots.through.objects.filter(team__members__user_id=user_id).values_list(
            "bot_id", flat=True
        )
    )
