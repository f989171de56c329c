"""Every dashboard page of a bot author's day in Chromium, at 1280 and 390 px: nothing scrolls
sideways on a phone, axe-core finds nothing serious, screenshots are kept; and the flows
of these pages (sign up from the login page, upload, the chart's values, search, pages)."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.support.builders import bot_with_version
from tests.support.page_checks import NARROW, WIDE, check_page, follow
from tests.support.rated_history import FIRST_LEGAL, bots_with_history
from tests.support.replay_matches import store_match
from tournaments import selectors
from tournaments.models import Match

PASSWORD = "a long password 1"


@pytest.fixture
def author(transactional_db, django_user_model):
    return django_user_model.objects.create_user(username="author", password=PASSWORD)


def log_in(page, base: str, username: str = "author") -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")
    assert username in page.locator("header").inner_text()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_every_page_fits_and_passes_the_accessibility_check(page_at, live_server, author, width):
    (charted, _), tournament = bots_with_history(author, games=4)
    match = tournament.matches.order_by("pk").first()
    base = live_server.url
    page = page_at(width)
    public = {
        "home": "/",
        "leaderboard": "/games/pairs/",
        "leaderboard-options": "/games/pairs-rocket/",
        "rules": "/games/paiute/rules/",
        "bots": "/bots/",
        "bot": f"/bots/{charted.pk}/",
        "match": f"/matches/{match.pk}/?seat=0",
        "login": "/login/",
        "signup": "/signup/",
    }
    for name, path in public.items():
        page.goto(base + path)
        if name == "match":
            page.wait_for_selector("#replay[data-ready]")
        check_page(page, f"page-{name}")
    log_in(page, base)
    for name, path in {
        "upload": "/bots/new/",
        "upload-version": f"/bots/{charted.pk}/upload/",
        "bot-owner": f"/bots/{charted.pk}/",
    }.items():
        page.goto(base + path)
        check_page(page, f"page-{name}")


def test_the_rating_chart_reads_out_values(page_at, live_server, author):
    (charted, _), _ = bots_with_history(author, games=4)
    history = list(charted.versions.order_by("number"))
    assert len(history) == 2
    page = page_at(WIDE)
    page.goto(f"{live_server.url}/bots/{charted.pk}/")
    chart = page.locator("#rating-chart svg")
    # One line per version: a version change is never drawn as one joined line.
    assert page.locator("#rating-chart polyline.series").count() == 2
    points = selectors.rating_history(bot=charted)
    assert len(points) == 8  # four rated matches a version
    assert page.locator("#rating-chart circle.point").count() == len(points)
    assert "Elo" in chart.inner_html() and "rated matches" in chart.inner_html()

    first = page.locator("#rating-chart circle.point").first
    first.hover()
    tip = page.locator("#rating-tip").inner_text()
    assert tip.startswith(f"v1 · Elo {points[0]['after']:.1f}")
    assert f"match #{points[0]['match']}" in tip

    page.locator("#rating-chart circle.point").last.hover()
    assert (
        page.locator("#rating-tip").inner_text().startswith(f"v2 · Elo {points[-1]['after']:.1f}")
    )
    page.focus("#rating-chart")
    page.keyboard.press("Home")
    assert page.locator("#rating-tip").inner_text().startswith("v1 ")
    page.keyboard.press("ArrowRight")
    assert f"match #{points[1]['match']}" in page.locator("#rating-tip").inner_text()


def test_sign_up_from_the_login_page_and_upload_on_a_phone(
    page_at, live_server, transactional_db, tmp_path
):
    page = page_at(NARROW)
    page.goto(f"{live_server.url}/login/")
    assert "upload bots" in page.locator("#form-intro").inner_text()
    follow(page, "#form-after a:has-text('Sign up')")
    assert page.url.endswith("/signup/")
    page.fill("input[name=username]", "phone-user")
    page.fill("input[name=password1]", "a long password 77")
    page.fill("input[name=password2]", "a long password 77")
    follow(page, "button[type=submit]")
    assert "phone-user" in page.locator("header").inner_text()

    follow(page, "header >> text=Upload a bot")
    page.fill("input[name=name]", "phone-bot")
    page.select_option("select[name=game]", "punk")
    bot_file = tmp_path / "main.py"
    bot_file.write_bytes(FIRST_LEGAL)
    page.set_input_files("input[name=file]", str(bot_file))
    follow(page, "button[type=submit]")
    assert "phone-bot" in page.locator("h1").inner_text()
    assert "pending" in page.locator("#versions").inner_text()
    check_page(page, "flow-uploaded")


def _stored_bot(owner, name: str) -> Bot:
    return bot_with_version(owner=owner, name=name, game="stax")[0]


def test_leaderboard_search_and_pages(page_at, live_server, author, django_user_model):
    other = django_user_model.objects.create_user(username="zelda", password=PASSWORD)
    for i in range(30):
        _stored_bot(author, f"stax-{i:02d}")
    _stored_bot(other, "lonely")
    page = page_at(NARROW)
    page.goto(f"{live_server.url}/games/stax/")
    assert page.locator("#leaderboard tr").count() == 26  # header and 25 rows
    assert "1–25 of 31 bots" in page.locator(".pager").inner_text()
    follow(page, ".pager a[rel=next]")
    assert page.locator("#leaderboard tr").count() == 7
    assert "26–31 of 31 bots" in page.locator(".pager").inner_text()
    check_page(page, "leaderboard-last-page")
    follow(page, ".pager a[rel=prev]")
    assert page.locator("#leaderboard tr").count() == 26
    page.fill("#board-search", "ZELD")  # owners are searched too, in any case
    follow(page, "form.search button")
    rows = page.locator("#leaderboard").inner_text()
    assert "lonely" in rows and "stax-" not in rows
    page.fill("#board-search", "nobody-here")
    follow(page, "form.search button")
    assert "No bot or owner matches" in page.locator("#leaderboard").inner_text()
    check_page(page, "leaderboard-search")


def test_cancelled_matches_are_hidden_until_asked_for(page_at, live_server, author):
    played = store_match(author, "stax")
    cancelled = store_match(author, "stax", seed=8)
    Match.objects.filter(pk=cancelled.pk).update(status=Match.Status.CANCELLED)
    bot = played.seats.get(seat=0).version.bot
    page = page_at(WIDE)
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    table = page.locator("#matches").inner_text()
    assert f"#{played.pk}" in table and f"#{cancelled.pk}" not in table
    assert "1 cancelled match hidden" in page.content()
    opponent = played.seats.get(seat=1).version.bot.name
    assert opponent in table
    follow(page, "text=Show them")
    assert f"#{cancelled.pk}" in page.locator("#matches").inner_text()
