"""Staff disable a bot: its versions leave play (no current version, off the leaderboard),
its history stays, and a validation still running cannot bring it back."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from bots import selectors, services
from bots.models import Bot, BotVersion
from tests.support.builders import active_bots, version
from tournaments import selectors as tournament_selectors


@pytest.fixture
def bot(db):
    owner = get_user_model().objects.create_user(username="owner")
    return active_bots(owner=owner, count=1)[0]


def test_disable_takes_every_version_out_of_play(bot):
    version(bot=bot, number=2, status=BotVersion.Status.PENDING, announce=False)
    assert selectors.current_version(bot=bot) is not None
    assert services.disable_bot(bot=bot, reason="  abusive output  ") == 2
    assert selectors.current_version(bot=bot) is None
    assert set(bot.versions.values_list("status", "reason")) == {("disabled", "abusive output")}
    assert tournament_selectors.leaderboard(game="pairs") == []
    assert Bot.objects.filter(pk=bot.pk).exists()


def test_a_late_validation_verdict_does_not_revive_a_disabled_version(bot):
    version = bot.versions.get()
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.VALIDATING)
    services.disable_bot(bot=bot, reason="staff")
    services._record_verdict(version=version, ok=True, reason="")
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.DISABLED


def test_disable_wants_a_reason(bot):
    with pytest.raises(ValidationError):
        services.disable_bot(bot=bot, reason=" ")
    assert bot.versions.get().status == BotVersion.Status.ACTIVE


def test_admin_disable_action(client, bot):
    staff = get_user_model().objects.create_user(
        username="staff", password="a long password 1", is_staff=True, is_superuser=True
    )
    client.force_login(staff)
    response = client.post(
        "/admin/bots/bot/", {"action": "disable", "_selected_action": [bot.pk]}, follow=True
    )
    assert "1 bot(s) disabled; 1 version(s) taken out of play." in response.content.decode()
    assert bot.versions.get().reason == "disabled by staff (staff)"
