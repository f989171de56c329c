"""A faulted bot's match and bot pages in Chromium: everyone reads what happened, its owner
alone what the bot wrote (the fault's detail under their log, a failed version's output on
their bot page). Screenshots at 1280 and 390 px go to $ARENA_SCREENSHOTS when it is set."""

from __future__ import annotations

import pytest

from bots import sandbox
from bots import services as bot_services
from bots.models import BotVersion
from tests.support.page_checks import follow, keep_screenshot
from tournaments import services

SECRET = "secret strategy note: k=1.0"
# Answers an action no game allows on its third decision, naming its secret.
ILLEGAL = (
    "import arena_sdk\n\n"
    "decisions = 0\n\n"
    "def act(observation, legal):\n"
    "    global decisions\n"
    "    decisions += 1\n"
    "    arena_sdk.log('thinking about', legal[0])\n"
    f"    return {{'plan': {SECRET!r}}} if decisions == 3 else legal[0]\n\n"
    "arena_sdk.run(act)\n"
)
PLAYER = "import arena_sdk\n\narena_sdk.run(lambda observation, legal: legal[0])\n"
CRASHES = (
    "import sys\n"
    f"print('Traceback (most recent call last):\\n  File main.py\\nRuntimeError: {SECRET}',"
    " file=sys.stderr)\nsys.exit(1)\n"
)


@pytest.fixture
def faulted(transactional_db, django_user_model, settings, tmp_path):
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    settings.ARENA_BOT_CACHE = tmp_path / "bot-cache"
    bots = {}
    for name, source in (("ada", ILLEGAL), ("max", PLAYER)):
        user = django_user_model.objects.create_user(username=name, password="a long password 1")
        bot = bot_services.create_bot(owner=user, name=f"{name}-bot", game="pairs")
        version = bot_services.upload_version(bot=bot, filename=f"{name}.py", data=source.encode())
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
        bots[name] = bot
    tournament = services.create_tournament(
        organiser=user, name="Fault cup", game="pairs", bot_ids=[b.pk for b in bots.values()],
        seed=3, games_per_pairing=1, rotate_seats=False,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)
    match = services.play_match(match_id=tournament.matches.get().pk)
    assert match.status == "finished"
    broken = bot_services.upload_version(bot=bots["ada"], filename="v2.py", data=CRASHES.encode())
    assert bot_services.validate_version(version_id=broken.pk).status == "invalid"
    return {"match": match, "bot": bots["ada"]}


def log_in(page, url, username):
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "a long password 1")
    follow(page, "button[type=submit]")


def test_the_owner_reads_what_the_bot_wrote_and_no_one_else(page, live_server, faulted):
    match, bot = faulted["match"], faulted["bot"]
    log_in(page, live_server.url, "ada")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        fault = page.locator("#result .fault .reason").first.inner_text()
        assert fault.startswith("answered an action not in legal on move ")
        assert SECRET in page.locator("details.seat-log .fault-detail").inner_text()
        keep_screenshot(page, f"fault-match-owner-{width}")
        page.goto(f"{live_server.url}/bots/{bot.pk}/")
        details = page.locator("#versions .reason-detail details")
        details.locator("summary").click()
        assert SECRET in details.inner_text()
        keep_screenshot(page.locator("#versions"), f"fault-versions-owner-{width}")

    page.context.clear_cookies()
    for who in ("max", None):
        if who:
            log_in(page, live_server.url, who)
        for url in (f"/matches/{match.pk}/", f"/bots/{bot.pk}/"):
            page.goto(f"{live_server.url}{url}")
            assert SECRET not in page.content() and "k=1.0" not in page.content(), (who, url)
        page.context.clear_cookies()
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    keep_screenshot(page.locator("#versions"), "fault-versions-anonymous-390")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    keep_screenshot(page.locator("#result"), "fault-result-anonymous-390")
