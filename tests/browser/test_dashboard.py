"""The dashboard in a real browser: sign up, upload through the form, read a finished tournament."""

from __future__ import annotations

import pytest

from bots import services as bot_services
from bots.models import BotVersion
from tests.support.page_checks import follow
from tournaments import services

BOT = b"from arena_sdk import run\n\nrun(lambda observation, legal: legal[0])\n"


@pytest.fixture
def finished_tournament(transactional_db, django_user_model):
    organiser = django_user_model.objects.create_user(username="org", password="a long password 1")
    bots = []
    for name in ("first-bot", "second-bot"):
        bot = bot_services.create_bot(owner=organiser, name=name, game="pairs")
        version = bot_services.upload_version(bot=bot, filename="main.py", data=BOT)
        bot_services.validate_version(version_id=version.pk)
        bots.append(bot.pk)
    tournament = services.create_tournament(
        organiser=organiser, name="Browser cup", game="pairs", bot_ids=bots, games_per_pairing=2
    )
    services.start_tournament(tournament_id=tournament.pk)
    for match in tournament.matches.all():
        services.play_match(match_id=match.pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    return tournament


def test_tournament_leaderboard_bot_and_match_pages(page, live_server, finished_tournament):
    page.goto(f"{live_server.url}/tournaments/{finished_tournament.pk}/")
    assert "Browser cup" in page.title()
    standings = page.locator("#standings")
    assert standings.locator("tr").count() == 3  # header + two entrants
    assert "first-bot" in standings.inner_text() and "second-bot" in standings.inner_text()
    assert "2 of 2 matches played" in page.locator("#progress").inner_text()

    follow(page, "#matches a >> nth=0")
    assert page.locator("#result tr").count() == 3
    assert page.locator("#events tr").count() > 1
    follow(page, "text=seat 0")
    assert "seat=0" in page.url and "what seat 0 saw" in page.content()

    page.goto(f"{live_server.url}/games/pairs/")
    board = page.locator("#leaderboard").inner_text()
    assert "first-bot" in board and "second-bot" in board

    follow(page, "#leaderboard a >> text=first-bot")
    # The chart is drawn by a deferred script once the page has loaded: wait for it.
    page.locator("#rating-chart polyline").first.wait_for()
    assert page.locator("#rating-chart polyline").count() == 1
    assert "2 rated matches" in page.content()


def test_sign_up_and_upload_through_the_form(page, live_server, transactional_db, tmp_path):
    page.goto(f"{live_server.url}/signup/")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=password1]", "a long password 77")
    page.fill("input[name=password2]", "a long password 77")
    follow(page, "button[type=submit]")
    assert "newcomer" in page.locator("header").inner_text()

    page.goto(f"{live_server.url}/bots/new/")
    page.fill("input[name=name]", "form-bot")
    page.select_option("select[name=game]", "pairs")
    bot_file = tmp_path / "main.py"
    bot_file.write_bytes(BOT)
    page.set_input_files("input[name=file]", str(bot_file))
    follow(page, "button[type=submit]")
    assert "form-bot" in page.locator("h1").inner_text()
    assert "pending" in page.locator("#versions").inner_text()
    assert BotVersion.objects.get(bot__name="form-bot").status == "pending"

    # A refused upload says why and stores nothing.
    page.goto(f"{live_server.url}/bots/new/")
    page.fill("input[name=name]", "broken-bot")
    page.select_option("select[name=game]", "pairs")
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"def broken(:\n")
    page.set_input_files("input[name=file]", str(bad))
    follow(page, "button[type=submit]")
    assert "Upload refused" in page.content() and "SyntaxError" in page.content()
    assert not BotVersion.objects.filter(bot__name="broken-bot").exists()
