"""The tournament pages and form in Chromium at 1280 and 390 px: every format created through
the form, a running tournament watched without a reload, cancelling from the page, the
bracket, Swiss round tables and the crosstable, the ladder page; screenshots kept."""

from __future__ import annotations

import pytest

from tests.support.builders import active_bots, bot_with_version, play_queued
from tests.support.page_checks import NARROW, WIDE, assert_no_sideways_scroll, check_page, follow
from tournaments import services
from tournaments.models import Ladder, Tournament
from tournaments.services.ladder import schedule_ladders

PASSWORD = "a long password 1"


@pytest.fixture
def organiser(transactional_db, django_user_model):
    return django_user_model.objects.create_user(username="organiser", password=PASSWORD)


def log_in(page, base: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", "organiser")
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")
    assert "organiser" in page.locator("header").inner_text()


def started(owner, count, **settings) -> Tournament:
    bots = active_bots(owner=owner, count=count)
    tournament = services.create_tournament(
        organiser=owner, name="cup", game="pairs", bot_ids=[b.pk for b in bots], **settings
    )
    services.start_tournament(tournament_id=tournament.pk)
    return tournament


FORMATS = {
    "round_robin": {},
    "swiss": {"rounds": "2"},
    "single_elimination": {"third_place": True},
    "double_elimination": {},
    "gauntlet": {"challengers": 1},
}


@pytest.mark.parametrize("width", [WIDE, NARROW])
@pytest.mark.parametrize("format", list(FORMATS))
def test_create_each_format_through_the_form(page_at, live_server, organiser, format, width):
    bots = active_bots(owner=organiser, count=4)
    bot_with_version(owner=organiser, name="punker", game="punk", announce=False)[
        0
    ]  # another game's bot: not offered
    base = live_server.url
    page = page_at(width)
    log_in(page, base)
    page.goto(f"{base}/tournaments/new/")
    page.fill("input[name=name]", f"{format} cup")
    page.select_option("select[name=game]", "pairs")
    # Only the four Pairs bots are offered (the Punk bot's box is hidden and off).
    offered = page.locator("#bots-field input[type=checkbox]:visible")
    assert offered.count() == 4
    for box in offered.all():
        box.check()
    page.select_option("select[name=format]", format)
    assert page.locator("#format-help [data-format]:visible").count() == 1
    settings = FORMATS[format]
    visible = {
        name: page.locator(f"[name={name}]").first.is_visible()
        for name in ("rounds", "third_place", "grand_final_reset", "advance")
    }
    assert visible["rounds"] == (format == "swiss")
    assert visible["third_place"] == (format == "single_elimination")
    assert visible["grand_final_reset"] == (format == "double_elimination")
    assert not visible["advance"]  # two seats: everyone but the winner of a series is out
    if "rounds" in settings:
        page.fill("input[name=rounds]", settings["rounds"])
    if settings.get("third_place"):
        page.check("input[name=third_place]")
    if "challengers" in settings:
        challengers = page.locator("#challengers-field input[type=checkbox]:visible")
        assert challengers.count() == 4  # the chosen entrants only
        challengers.first.check()
    # Pairs' options are typed inputs; other games' are hidden.
    assert page.locator("fieldset.game-options:visible").count() == 1
    page.select_option("select[name=option__pairs__gambling]", "tacoma")
    check_page(page, f"form-{format}")
    follow(page, "#tournament-form button[type=submit]")
    assert page.locator("h1").inner_text().startswith(f"{format} cup")
    tournament = Tournament.objects.get()
    assert tournament.format == format
    assert tournament.options["gambling"] == "tacoma"
    assert sorted(e.bot_id for e in tournament.entries.all()) == sorted(b.pk for b in bots)
    services.start_tournament(tournament_id=tournament.pk)
    page.reload()
    assert tournament.get_format_display() in page.locator("#format").inner_text()
    if "elimination" in format:
        assert page.locator("#bracket .series").count() >= 3
    if format in ("swiss", "gauntlet"):
        assert page.locator("#rounds table").count() >= 1
    check_page(page, f"tournament-new-{format}")


def test_the_form_on_a_phone_in_another_time_zone(browser, live_server, organiser):
    context = browser.new_context(
        viewport={"width": NARROW, "height": 900}, timezone_id="Asia/Tokyo"
    )
    try:
        page = context.new_page()
        active_bots(owner=organiser, count=2)
        bot_with_version(owner=organiser, name="punker", game="punk", announce=False)
        log_in(page, live_server.url)
        page.goto(f"{live_server.url}/tournaments/new/")
        assert "Asia/Tokyo" in page.locator("#start-zone").inner_text()
        page.select_option("select[name=game]", "punk")
        assert page.locator("#bots-field input[type=checkbox]:visible").count() == 1
        assert page.locator("fieldset.game-options:visible legend").inner_text() == "Punk options"
        page.select_option("select[name=game]", "pairs")
        for box in page.locator("#bots-field input[type=checkbox]:visible").all():
            box.check()
        page.fill("input[name=name]", "tokyo cup")
        page.fill("input[name=start_at]", "2030-01-02T09:30")
        assert_no_sideways_scroll(page)
        check_page(page, "form-time-zone")
        follow(page, "#tournament-form button[type=submit]")
        assert "starts 2030-01-02 00:30 UTC" in page.locator("#settings").inner_text()
    finally:
        context.close()


def test_the_form_without_javascript_keeps_every_field(browser, live_server, organiser):
    context = browser.new_context(
        viewport={"width": NARROW, "height": 900}, java_script_enabled=False
    )
    try:
        page = context.new_page()
        active_bots(owner=organiser, count=3)
        log_in(page, live_server.url)
        page.goto(f"{live_server.url}/tournaments/new/")
        assert page.locator("fieldset.game-options").count() > 10
        assert page.locator("input[name=rounds]").is_visible()
        for box in page.locator("#bots-field input[type=checkbox]").all():
            box.check()
        page.fill("input[name=name]", "plain cup")
        page.select_option("select[name=format]", "swiss")
        page.fill("input[name=start_at]", "2030-01-02T09:30")
        assert_no_sideways_scroll(page)
        follow(page, "#tournament-form button[type=submit]")
        assert "starts 2030-01-02 09:30 UTC" in page.locator("#settings").inner_text()
    finally:
        context.close()


def test_watch_a_running_tournament_update_without_a_reload(
    page_at, live_server, organiser, quick_live_pages
):
    tournament = started(organiser, 3)
    page = page_at(WIDE)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert "0 of 6 matches played" in page.locator("#progress").inner_text()
    page.evaluate("window.stayedHere = true")
    play_queued(tournament_id=tournament.pk, limit=2)
    page.wait_for_function(
        "document.querySelector('#progress').innerText.includes('2 of 6 matches played')",
        timeout=15000,
    )
    assert "about 1 min" in page.locator("#time-left").inner_text()
    assert page.locator(".progress").get_attribute("aria-valuenow") == "2"
    check_page(page, "tournament-running")
    play_queued(tournament_id=tournament.pk)
    page.wait_for_function(
        "document.querySelector('#status').innerText === 'finished'", timeout=15000
    )
    assert "6 of 6 matches played" in page.locator("#progress").inner_text()
    assert page.locator("#champion").is_visible()
    # The same document all along: no reload, one navigation.
    assert page.evaluate("window.stayedHere") is True
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    # Finished: the page stops asking.
    assert page.locator("#live").get_attribute("hx-trigger") is None


def test_cancel_from_the_page_asks_first(page_at, live_server, organiser):
    tournament = started(organiser, 3)
    page = page_at(NARROW)
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert not page.locator("#cancel").is_visible()  # behind the confirmation step
    page.click("#cancel-open")
    assert "cannot be undone" in page.locator("#cancel-box").inner_text()
    check_page(page, "tournament-cancel-confirm")
    follow(page, "#cancel")
    assert page.locator("#status").inner_text() == "cancelled"
    assert "6 cancelled" in page.locator("#progress").inner_text()
    assert page.locator("#cancel-open").count() == 0
    tournament.refresh_from_db()
    assert tournament.status == "cancelled"


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_bracket_of_a_finished_double_elimination(page_at, live_server, organiser, width):
    tournament = started(organiser, 6, format="double_elimination", seeding="entry")
    play_queued(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    champion = tournament.entries.order_by("place").first().bot.name
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert page.locator("#champion").inner_text().endswith(f"Champion: {champion}")
    stages = page.locator("#bracket h3").all_inner_texts()
    assert stages == ["Winners' bracket", "Losers' bracket", "Grand final"]
    final = page.locator("#bracket .stage-final .series").first
    assert champion in final.locator(".entrant.winner").inner_text()
    assert page.locator("#bracket .series.bye").count() >= 1  # 6 in a bracket of 8
    assert page.locator("#bracket .series.not-needed").count() == 1  # no reset needed
    check_page(page, "bracket-double")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_crosstable_of_a_round_robin(page_at, live_server, organiser, width):
    tournament = started(organiser, 6)
    play_queued(tournament_id=tournament.pk)
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    rows = page.locator("#crosstable tr")
    assert rows.count() == 7
    # The lower bot id wins every game: the first row took 2 of 2 from everyone else.
    assert rows.nth(1).locator("th").inner_text() == "1. bot0"
    first = rows.nth(1).locator("td").all_inner_texts()
    # On a phone the game counts are left out.
    assert first == ["—"] + ["2/2" if width == WIDE else "2"] * 5
    check_page(page, "crosstable")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_swiss_round_tables_with_byes(page_at, live_server, organiser, width):
    tournament = started(organiser, 7, format="swiss", rounds=3, seeding="entry")
    play_queued(tournament_id=tournament.pk, limit=10)  # round one (6 games) and part of round two
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert page.locator("#rounds caption").all_inner_texts()[:2] == ["Round 1", "Round 2"]
    first = page.locator("#round-1")
    assert first.locator("tr.bye").count() == 1
    assert "sits out" in first.locator("tr.bye").inner_text()
    assert first.locator(".seat.best").count() == 3
    check_page(page, "swiss-rounds")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_ladder_page_updates_live(
    page_at, live_server, organiser, settings, width, quick_live_pages
):
    settings.ARENA_LADDER = True
    active_bots(owner=organiser, count=3)
    schedule_ladders()
    ladder = Ladder.objects.get()
    page = page_at(width)
    page.goto(f"{live_server.url}/ladders/{ladder.pk}/")
    assert "0 played" in page.locator("#progress").inner_text()
    check_page(page, "ladder")
    from tests.support.builders import play_queued_ladder_matches

    play_queued_ladder_matches()
    page.wait_for_function(
        "!document.querySelector('#progress').innerText.startsWith('0 played')", timeout=15000
    )
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1


def test_older_matches_page_in_place(page_at, live_server, organiser):
    tournament = started(organiser, 8, games_per_pairing=4)  # 112 games
    page = page_at(NARROW)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert page.locator("#matches tr").count() == 51
    first_page = page.locator("#matches tr:nth-child(2)").inner_text()
    page.click(".pager a[rel=next]")
    page.wait_for_function("location.search.startsWith('?before=')")
    page.wait_for_selector(".pager a[rel=prev]")
    assert page.locator("#matches tr").count() == 51
    second_page = page.locator("#matches tr:nth-child(2)").inner_text()
    assert second_page != first_page
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    check_page(page, "matches-page-2")
    page.reload()  # the address names the page
    assert page.locator("#matches tr:nth-child(2)").inner_text() == second_page
    page.click(".pager a[rel=next]")  # the last 12 of 112
    page.wait_for_selector(".pager:not(:has(a[rel=next]))")
    assert page.locator("#matches tr").count() == 13
