"""Teams of a competition: one per person per competition, only the creator changes the
team, and a team's members manage its bots (enter them, challenge with them, upload) as
their owner does while nobody else may."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from bots import access
from bots.models import Bot
from tests.support.builders import bot_with_version, user
from tournaments.models import Challenge, TeamMember
from tournaments.services import competitions, teams
from tournaments.services.challenges import Asked, ChallengeRefused, create_challenge

pytestmark = pytest.mark.django_db


@pytest.fixture
def competition():
    now = timezone.now()
    return competitions.create_competition(
        organiser=user(name="org"),
        name="League",
        game="pairs",
        players=2,
        options={},
        opens_at=None,
        deadline=now + timedelta(days=1),
        final_at=now + timedelta(days=2),
        final_settings={},
    )


@pytest.fixture
def team(competition):
    creator, mate = user(name="creator"), user(name="mate")
    team = teams.create_team(competition=competition, name="Owls", user=creator)
    teams.add_team_member(team=team, user=mate, by=creator)
    return team


def test_one_team_per_person_per_competition(competition, team):
    mate = user(name="mate")
    with pytest.raises(ValidationError):
        teams.create_team(competition=competition, name="Larks", user=mate)
    other = teams.create_team(competition=competition, name="Larks", user=user(name="lark"))
    with pytest.raises(ValidationError):
        teams.add_team_member(team=other, user=mate, by=user(name="lark"))
    # The database keeps it so too.
    with pytest.raises(IntegrityError), transaction.atomic():
        TeamMember.objects.create(team=other, user=mate, competition=competition)
    with pytest.raises(ValidationError):  # the same name twice
        teams.create_team(competition=competition, name="owls", user=user(name="newcomer"))


def test_only_the_creator_changes_the_team(competition, team):
    mate, stranger = user(name="mate"), user(name="stranger")
    with pytest.raises(PermissionDenied):
        teams.add_team_member(team=team, user=stranger, by=mate)
    with pytest.raises(PermissionDenied):
        teams.remove_team_member(team=team, user=user(name="creator"), by=mate)
    mates_bot, _ = bot_with_version(name="mates-bot", owner=mate, announce=False)
    with pytest.raises(PermissionDenied):  # not the creator
        teams.give_bot_to_team(team=team, bot=mates_bot, by=mate)
    strangers_bot, _ = bot_with_version(name="strangers", owner=stranger, announce=False)
    with pytest.raises(PermissionDenied):  # not the creator's bot
        teams.give_bot_to_team(team=team, bot=strangers_bot, by=user(name="creator"))
    other_game = Bot.objects.create(owner=user(name="creator"), name="paks-bot", game="paks")
    with pytest.raises(ValidationError):
        teams.give_bot_to_team(team=team, bot=other_game, by=user(name="creator"))
    teams.remove_team_member(team=team, user=mate, by=mate)  # a member may leave
    assert list(team.members.values_list("user__username", flat=True)) == ["creator"]


def test_members_manage_the_teams_bots_and_strangers_do_not(competition, team):
    creator, mate, stranger = user(name="creator"), user(name="mate"), user(name="stranger")
    bot, _ = bot_with_version(name="owl-bot", owner=creator, announce=False)
    assert not access.may_manage(mate, bot)
    teams.give_bot_to_team(team=team, bot=bot, by=creator)
    assert access.may_manage(mate, bot) and access.may_manage(creator, bot)
    assert not access.may_manage(stranger, bot)
    assert set(Bot.objects.filter(access.managed_bots_q(mate))) == {bot}
    assert not Bot.objects.filter(access.managed_bots_q(stranger)).exists()
    assert bot.owner == creator  # the owner stays the creator

    with pytest.raises(PermissionDenied):
        competitions.enter_competition(competition=competition, bot=bot, user=stranger)
    entry = competitions.enter_competition(competition=competition, bot=bot, user=mate)
    assert entry.team == team


def test_a_member_challenges_with_the_teams_bot_and_a_stranger_cannot(competition, team):
    creator, mate, stranger = user(name="creator"), user(name="mate"), user(name="stranger")
    bot, _ = bot_with_version(name="owl-bot", owner=creator, announce=False)
    teams.give_bot_to_team(team=team, bot=bot, by=creator)
    rival, _ = bot_with_version(
        name="rival", owner=user(name="rival-owner"), announce=False, accepts_challenges="anyone"
    )
    asked = Asked(bot_id=bot.pk, opponent_ids=[rival.pk], games=2, options={})
    with pytest.raises(ChallengeRefused) as refused:
        create_challenge(user=stranger, asked=asked)
    assert refused.value.forbidden
    assert not Challenge.objects.exists()
    challenge = create_challenge(user=mate, asked=asked)
    assert challenge.pk and Challenge.objects.count() == 1


def test_the_upload_page_opens_to_members_and_not_to_strangers(competition, team, client):
    from django.urls import reverse

    creator, mate, stranger = user(name="creator"), user(name="mate"), user(name="stranger")
    bot, _ = bot_with_version(name="owl-bot", owner=creator, announce=False)
    teams.give_bot_to_team(team=team, bot=bot, by=creator)
    page = reverse("bot-upload", args=[bot.pk])
    client.force_login(stranger)
    assert client.get(page).status_code == 404
    assert "upload a new version" not in client.get(reverse("bot", args=[bot.pk])).content.decode()
    client.force_login(mate)
    assert client.get(page).status_code == 200
    assert "upload a new version" in client.get(reverse("bot", args=[bot.pk])).content.decode()
