"""The match page in Chromium: the owner reads their bot's log and the replay commands; a
stranger sees the commands but no log. Screenshots at 1280 and 390 px go to
$ARENA_SCREENSHOTS when it is set."""

from __future__ import annotations

import pytest

from bots import sandbox
from bots import services as bot_services
from bots.models import BotVersion
from tests.support.page_checks import follow, keep_screenshot
from tournaments import services

BOT = (
    "import arena_sdk\n\n"
    "def act(observation, legal):\n"
    "    arena_sdk.log('{name}: observed', sorted(observation)[:3], 'playing', legal[0])\n"
    "    return legal[0]\n\n"
    "arena_sdk.run(act)\n"
)


@pytest.fixture
def match(transactional_db, django_user_model):
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    bots = []
    for name in ("ada", "max"):
        user = django_user_model.objects.create_user(username=name, password="a long password 1")
        bot = bot_services.create_bot(owner=user, name=f"{name}-bot", game="pairs")
        source = BOT.format(name=name).encode()
        version = bot_services.upload_version(bot=bot, filename=f"{name}.py", data=source)
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
        bots.append(bot.pk)
    tournament = services.create_tournament(
        organiser=user,
        name="Log cup",
        game="pairs",
        bot_ids=bots,
        seed=3,
        games_per_pairing=1,
        rotate_seats=False,
    )
    services.start_tournament(tournament_id=tournament.pk)
    played = services.play_match(match_id=tournament.matches.get().pk)
    assert played.status == "finished"
    return played


def log_in(page, url, username):
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "a long password 1")
    follow(page, "button[type=submit]")


def test_owner_reads_the_log_and_the_commands(page, live_server, match):
    log_in(page, live_server.url, "ada")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        logs = page.locator("details.seat-log")
        assert logs.count() == 1
        assert "ada: observed" in logs.inner_text() and "max:" not in page.content()
        assert "manage.py play pairs" in page.locator("#reproduce-play").inner_text()
        assert "--bot" in page.locator("#reproduce-replay").inner_text()
        keep_screenshot(page, f"match-owner-{width}")  # the top: the log
        keep_screenshot(page.locator("#reproduce"), f"reproduce-{width}")

    page.context.clear_cookies()
    log_in(page, live_server.url, "max")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    assert "max: observed" in page.locator("details.seat-log").inner_text()
    assert "ada: observed" not in page.content()
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    assert page.locator("details.seat-log").count() == 0
    assert "observed" not in page.content()
    assert "manage.py play pairs" in page.locator("#reproduce-play").inner_text()
    page.set_viewport_size({"width": 390, "height": 900})
    keep_screenshot(page, "match-anonymous-390")
