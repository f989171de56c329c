"""The competition pages in Chromium at 1280 and 390 px: an organiser creates a competition
through the form (a refused form first), an author enters a bot and makes a team, the
organiser accepts the entry, announces, pauses and resumes, disqualifies with a reason and
reveals the results; the countdowns tick in the browser's script. Screenshots kept."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.builders import bot_with_version, play_queued, user
from tests.support.competitions import enter_bots, new_competition, play_final, start_final
from tests.support.page_checks import NARROW, WIDE, check_page, follow
from tournaments.models import Announcement, Competition, CompetitionEntry, Team
from tournaments.services import competition_phases
from tournaments.services import competitions as competition_services

PASSWORD = "a long password 1"


def log_in(browser, base: str, name: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.script_errors = []
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")
    assert name in page.locator("header").inner_text()
    return context, page


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_season_run_from_the_dashboard(
    browser, live_server, transactional_db, width, quick_live_pages
):
    user(name="organiser", password=PASSWORD)
    author = user(name="author", password=PASSWORD)
    user(name="friend", password=PASSWORD)
    bot, _ = bot_with_version(owner=author, name="ace", announce=False)
    base = live_server.url
    now = timezone.now()
    deadline = (now + timedelta(days=2, hours=3)).strftime("%Y-%m-%dT%H:%M")
    final_at = (now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")

    organiser_context, page = log_in(browser, base, "organiser", width)
    try:
        page.goto(f"{base}/competitions/")
        check_page(page, "competition-list-empty")
        follow(page, "#new-competition")
        page.fill("input[name=name]", "Spring season")
        page.fill("textarea[name=description]", "The class's contest: bring your best Pairs bot.")
        page.select_option("select[name=game]", "pairs")
        assert page.locator("fieldset.game-options:visible").count() == 1
        page.select_option("select[name=format]", "single_elimination")
        assert page.locator("input[name=third_place]").is_visible()
        assert not page.locator("input[name=rounds]").is_visible()
        page.select_option("select[name=eligibility]", "invite")
        assert page.locator("input[name=invite_code]").is_visible()
        page.select_option("select[name=release]", "hidden")
        page.fill("input[name=final_at]", final_at)
        # Sent without a deadline nor invite code: refused on the fields, nothing stored.
        follow(page, "#save")
        assert page.locator("#error-summary").is_visible()
        assert "Give the deadline" in page.locator("#id_deadline_error").inner_text()
        assert "invite code" in page.locator("#id_invite_code_error").inner_text()
        assert not Competition.objects.exists()
        check_page(page, "competition-form-refused")
        page.fill("input[name=deadline]", deadline)
        page.fill("input[name=final_at]", final_at)
        page.fill("input[name=invite_code]", "swordfish")
        page.select_option("select[name=eligibility]", "approval")
        assert not page.locator("input[name=invite_code]").is_visible()
        page.fill("input[name=division_size]", "4")
        follow(page, "#save")
        competition = Competition.objects.get()
        assert page.locator("h1").inner_text().startswith("Spring season")
        assert competition.eligibility == "approval" and competition.release == "hidden"
        assert competition.final_settings["format"] == "single_elimination"
        # The countdowns run in the page's script ("2 d 2 h 59 min"), not the server's words.
        countdown = page.locator("#phases time.countdown").first
        page.wait_for_function(
            "() => /\\d+ d \\d+ h \\d+ min/.test(document.querySelector('time.countdown').textContent)"
        )
        assert re.match(r"\d+ d \d+ h \d+ min", countdown.inner_text())
        assert page.locator("#manage").is_visible()
        check_page(page, "competition-organiser-new")
    finally:
        organiser_context.close()

    author_context, page = log_in(browser, base, "author", width)
    try:
        page.goto(f"{base}/competitions/{competition.pk}/")
        assert not page.locator("#manage").count()
        page.select_option("select[name=bot]", str(bot.pk))
        follow(page, "#enter-button")
        assert "waits for the organiser's approval" in page.locator(".msg").first.inner_text()
        entry = CompetitionEntry.objects.get()
        assert entry.status == "pending"
        assert "pending" in page.locator(f"#entry-{entry.pk}").inner_text()
        check_page(page, "competition-author-entered")
        follow(page, "#teams-link")
        page.fill("input[name=name]", "Owls")
        follow(page, "#create-team")
        page.fill("input[name=username]", "nobody")
        follow(page, "#add-member")
        assert "Nobody is called nobody" in page.locator("#id_username_error").inner_text()
        page.fill("input[name=username]", "friend")
        follow(page, "#add-member")
        page.select_option("select[name=bot]", str(bot.pk))
        follow(page, "#give-bot")
        team = Team.objects.get()
        assert [m.user.username for m in team.members.order_by("id")] == ["author", "friend"]
        assert list(team.bots.all()) == [bot]
        assert "friend" in page.locator(f"#team-{team.pk}").inner_text()
        check_page(page, "competition-teams")
    finally:
        author_context.close()

    organiser_context, page = log_in(browser, base, "organiser", width)
    try:
        page.goto(f"{base}/competitions/{competition.pk}/")
        follow(page, f"#accept-{entry.pk}")
        entry.refresh_from_db()
        assert entry.status == "accepted"
        page.fill("textarea[name=text]", "The final is on Friday at noon.")
        follow(page, "#announce")
        assert "The final is on Friday" in page.locator("#announcements").inner_text()
        follow(page, "#pause")
        assert page.locator("#paused").is_visible()
        check_page(page, "competition-organiser-paused")
        follow(page, "#resume")
        assert not page.locator("#paused").count()
        # A disqualification without a reason is refused beside the reason.
        follow(page, "#disqualify")
        assert page.locator("#disqualify-reason-error").is_visible()
        entry.refresh_from_db()
        assert entry.status == "accepted"
        page.fill("#disqualify-reason", "Its code is another entrant's.")
        follow(page, "#disqualify")
        entry.refresh_from_db()
        assert entry.status == "disqualified"
        assert "another entrant's" in page.locator(f"#entry-{entry.pk}").inner_text()
        follow(page, "#reveal")
        competition.refresh_from_db()
        assert competition.release == "public"
        check_page(page, "competition-organiser-managed")
    finally:
        organiser_context.close()

    anonymous = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = anonymous.new_page()
        page.script_errors = []
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))
        page.goto(f"{base}/competitions/{competition.pk}/")
        assert "Log in" in page.locator("#enter").inner_text()
        assert "The final is on Friday" in page.locator("#announcements").inner_text()
        check_page(page, "competition-anonymous")
    finally:
        anonymous.close()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_finished_season_shows_its_final(browser, live_server, transactional_db, width):
    organiser = user(name="organiser", password=PASSWORD)
    now = timezone.now()
    competition = new_competition(
        organiser,
        name="Winter season with a long name to wrap on a phone",
        now=now,
        final_settings={"format": "single_elimination", "third_place": True},
        division_size=4,
    )
    enter_bots(competition, [user(name=f"author{n}", password=PASSWORD) for n in range(6)])
    Announcement.objects.create(competition=competition, text="Good luck, everyone.")
    play_final(competition, at=now + timedelta(hours=1, minutes=1))
    competition_phases.advance_competitions(now=now + timedelta(hours=3))
    competition.refresh_from_db()
    assert competition.phase == "closed"
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.script_errors = []
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))
        page.goto(f"{live_server.url}/competitions/{competition.pk}/")
        assert page.locator("#phase").inner_text() == "closed"
        assert page.locator("#bracket .series").count() >= 3
        assert page.locator("#champion").is_visible()
        assert "Entries are closed" in page.locator("#enter").inner_text()
        check_page(page, "competition-finished")
        page.goto(f"{live_server.url}/competitions/")
        check_page(page, "competition-list")
    finally:
        context.close()


def test_a_final_in_play_updates_on_the_competition_page(
    browser, live_server, transactional_db, quick_live_pages
):
    organiser = user(name="organiser", password=PASSWORD)
    now = timezone.now()
    competition = new_competition(organiser, name="Live season", now=now)
    enter_bots(competition, [user(name=f"author{n}", password=PASSWORD) for n in range(3)])
    start_final(competition, at=now + timedelta(hours=1, minutes=1))
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    try:
        page = context.new_page()
        page.script_errors = []
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))
        page.goto(f"{live_server.url}/competitions/{competition.pk}/")
        assert page.locator("#status").inner_text() == "running"
        before = page.locator("#progress").inner_text()
        assert before.startswith("0 of")
        play_queued(tournament_id=competition.final_id, limit=2)
        # The final's own live part polls and replaces itself on this page.
        page.wait_for_function(
            "() => document.querySelector('#progress').textContent.startsWith('2 of')",
            timeout=30000,
        )
        check_page(page, "competition-final-live")
    finally:
        context.close()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_edit_form_in_another_time_zone(browser, live_server, transactional_db, width):
    organiser = user(name="organiser", password=PASSWORD)
    deadline = timezone.now().replace(second=0, microsecond=0) + timedelta(days=2)
    competition = competition_services.create_competition(
        organiser=organiser,
        name="Tokyo season",
        game="pairs",
        players=2,
        options={},
        opens_at=None,
        deadline=deadline,
        final_at=deadline + timedelta(days=1),
        final_settings={"format": "swiss", "rounds": 3},
    )
    context = browser.new_context(
        viewport={"width": width, "height": 900}, timezone_id="Asia/Tokyo"
    )
    try:
        page = context.new_page()
        page.script_errors = []
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "organiser")
        page.fill("input[name=password]", PASSWORD)
        follow(page, "button[type=submit]")
        page.goto(f"{live_server.url}/competitions/{competition.pk}/")
        follow(page, "#edit-link")
        assert "Asia/Tokyo" in page.locator("#dates-zone").inner_text()
        tokyo = (deadline + timedelta(hours=9)).strftime("%Y-%m-%dT%H:%M")
        assert page.locator("input[name=deadline]").input_value() == tokyo
        assert page.locator("input[name=rounds]").input_value() == "3"
        page.fill("input[name=name]", "Tokyo season, renamed")
        check_page(page, "competition-edit-tokyo")
        follow(page, "#save")
        competition.refresh_from_db()
        assert competition.name == "Tokyo season, renamed"
        assert competition.deadline == deadline
        assert competition.final_settings == {"format": "swiss", "rounds": 3}  # not sent again
    finally:
        context.close()


def test_the_form_works_without_javascript(browser, live_server, transactional_db):
    user(name="organiser", password=PASSWORD)
    context = browser.new_context(
        viewport={"width": NARROW, "height": 900}, java_script_enabled=False
    )
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "organiser")
        page.fill("input[name=password]", PASSWORD)
        follow(page, "button[type=submit]")
        page.goto(f"{live_server.url}/competitions/new/")
        # Every game's options show; only the chosen game's are read.
        assert page.locator("fieldset.game-options:visible").count() > 1
        page.fill("input[name=name]", "No scripts season")
        page.select_option("select[name=game]", "punk")
        page.fill("input[name=deadline]", "2031-03-04T10:00")
        page.fill("input[name=final_at]", "2031-03-05T10:00")
        page.select_option("select[name=format]", "swiss")
        page.fill("input[name=rounds]", "4")
        follow(page, "#save")
        competition = Competition.objects.get()
        assert competition.game == "punk"
        assert competition.final_settings["rounds"] == 4
        assert competition.deadline.isoformat() == "2031-03-04T10:00:00+00:00"  # read as UTC
        assert "punk" in page.locator("#pool").inner_text()
    finally:
        context.close()
