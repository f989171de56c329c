"""The organiser's tournament form in Chromium at 1280 and 390 px, with long user and bot
names: a refused form shows every mistake beside its input and focuses the first; a
scheduled event is edited; the entrant list is searched, filtered, ticked all at once and
filled from a pasted list. Screenshots kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tests.support.builders import bot_with_version
from tests.support.page_checks import NARROW, WIDE, assert_no_sideways_scroll, check_page, follow
from tournaments import services
from tournaments.models import Tournament

PASSWORD = "a long password 1"
ORGANISER = "msteacher_m_with_a_much_longer_username"
STUDENT = "student_with_an_extremely_long_username_0123456789"


@pytest.fixture
def organiser(transactional_db, django_user_model):
    return django_user_model.objects.create_user(username=ORGANISER, password=PASSWORD)


@pytest.fixture
def student(transactional_db, django_user_model):
    return django_user_model.objects.create_user(username=STUDENT, password=PASSWORD)


def log_in(page, base: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", ORGANISER)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")


def bots_of(owner, names: list[str], game: str = "pairs"):
    return [
        bot_with_version(owner=owner, name=name, game=game, announce=False)[0] for name in names
    ]


def long_name(n: int) -> str:
    return f"card_counting_bot_number_{n}_with_a_long_name"[:40]


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_refused_form_shows_every_error_on_its_field(page_at, live_server, organiser, width):
    bots_of(organiser, [long_name(1), long_name(2)])
    page = page_at(width)
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/tournaments/new/")
    page.locator("#bots-field input[type=checkbox]:visible").first.check()
    page.fill("input[name=games_per_pairing]", "3")
    page.fill("input[name=move_ms]", "5")
    page.fill("input[name=option__pairs__games]", "25")
    follow(page, "#tournament-form button[type=submit]")
    assert not Tournament.objects.exists()
    beside = {
        "name": "Give the tournament a name",
        "bots": "Pick at least two bots",
        "games_per_pairing": "try 2 or 4",
        "move_ms": "Move time (ms) must be 10 or more",
        "option__pairs__games": "Games must be at most 20",
    }
    for field, words in beside.items():
        error = page.locator(f"#id_{field}_error")
        assert error.is_visible(), field
        assert words in error.inner_text(), (field, error.inner_text())
    summary = page.locator("#error-summary")
    assert summary.is_visible() and "5 things to fix" in summary.inner_text()
    # The focus is on the first refused input, the name, ready to type.
    assert page.evaluate("document.activeElement.name") == "name"
    check_page(page, "form-refused")
    # A link of the summary takes the focus to its input.
    page.click("#error-summary a[href='#id_move_ms']")
    assert page.evaluate("document.activeElement.name") == "move_ms"
    # Put right, the same form goes through.
    page.fill("input[name=name]", "class cup")
    page.fill("input[name=games_per_pairing]", "4")
    page.fill("input[name=move_ms]", "1000")
    page.fill("input[name=option__pairs__games]", "")
    for box in page.locator("#bots-field input[type=checkbox]:visible").all():
        box.check()
    follow(page, "#tournament-form button[type=submit]")
    assert Tournament.objects.get().games_per_pairing == 4


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_edit_a_scheduled_event(browser, live_server, organiser, student, width):
    mine = bots_of(organiser, [long_name(1), long_name(2)])
    theirs = bots_of(student, [long_name(3)])
    start = (timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0)
    tournament = services.create_tournament(
        organiser=organiser,
        name="a class tournament with a rather long name, spring term",
        game="pairs",
        bot_ids=[b.pk for b in mine],
        start_at=start,
    )
    old_commitment = tournament.seed_commitment
    # In another time zone: the start shown is the browser's own time and comes back as
    # the same instant.
    context = browser.new_context(
        viewport={"width": width, "height": 900}, timezone_id="Asia/Tokyo"
    )
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in(page, live_server.url)
        page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
        follow(page, "#edit-link")
        assert page.locator("input[name=name]").input_value() == tournament.name
        tokyo = start.astimezone(UTC) + timedelta(hours=9)
        assert page.locator("input[name=start_at]").input_value() == tokyo.strftime(
            "%Y-%m-%dT%H:%M"
        )
        ticked = page.locator("#bots-field input[type=checkbox]:checked")
        assert ticked.count() == 2
        page.fill("input[name=name]", "spring cup")
        page.check(f"#bots-field input[value='{theirs[0].pk}']")
        page.select_option("select[name=option__pairs__gambling]", "tacoma")
        if width <= NARROW:
            assert_no_sideways_scroll(page)
        check_page(page, "form-edit")
        assert not errors, errors
        follow(page, "#tournament-form button[type=submit]")
        tournament.refresh_from_db()
        assert tournament.name == "spring cup"
        assert tournament.start_at == start  # unchanged through the browser's time zone
        assert tournament.options["gambling"] == "tacoma"
        assert tournament.entries.count() == 3
        assert tournament.seed_commitment != old_commitment
        said = page.locator(".msg").inner_text()
        assert f"its new commitment is {tournament.seed_commitment}" in said
        assert tournament.seed_commitment in page.locator(".commitment").inner_text()
        check_page(page, "tournament-edited")
        # Once started, the form is refused in plain words.
        services.start_tournament(tournament_id=tournament.pk)
        page.goto(f"{live_server.url}/tournaments/{tournament.pk}/edit/")
        assert "can be edited only until it starts" in page.locator("#refusal").inner_text()
    finally:
        context.close()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_select_all_shown_search_and_paste(page_at, live_server, organiser, student, width):
    mine = bots_of(organiser, ["my_own_bot_a", "my_own_bot_b"])
    theirs = bots_of(student, [long_name(n) for n in range(12)])
    bots_of(student, ["a_punk_bot_not_offered"], game="punk")
    page = page_at(width)
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/tournaments/new/")
    shown = page.locator("#bots-field input[type=checkbox]:visible")
    assert shown.count() == 14
    assert f"by {STUDENT}" in page.locator("#bots-field").inner_text()
    assert "14 of 14 shown; 0 picked" in page.locator("#bot-count").inner_text()
    # Search by part of a name, by keyboard: Enter filters and does not send the form.
    page.locator("#bot-search").focus()
    page.keyboard.type("number_1")
    page.keyboard.press("Enter")
    assert page.url.endswith("/tournaments/new/")
    assert shown.count() == 3  # 1, 10 and 11
    # "Select all shown" from the keyboard.
    page.locator("#select-shown").focus()
    page.keyboard.press("Enter")
    assert "3 of 14 shown; 3 picked" in page.locator("#bot-count").inner_text()
    check_page(page, "entrants-searched")
    # Filter to my bots: the ticked ones stay ticked out of sight.
    page.fill("#bot-search", "")
    page.select_option("#bot-filter", "mine")
    assert shown.count() == 2
    page.click("#select-shown")
    assert "2 of 14 shown; 5 picked" in page.locator("#bot-count").inner_text()
    # A user's bots.
    page.select_option("#bot-filter", f"owner:{STUDENT}")
    assert shown.count() == 12
    page.select_option("#bot-filter", "all")
    # A pasted list: a bot's name ticks it, an unknown name stays in the box.
    page.fill("textarea[name=bot_list]", f"{theirs[5].name}\nnobody_at_all")
    page.click("#tick-pasted")
    assert (
        "Ticked 1; not found (left in the box): nobody_at_all"
        in page.locator("#pasted-result").inner_text()
    )
    assert page.locator("textarea[name=bot_list]").input_value() == "nobody_at_all"
    page.fill("textarea[name=bot_list]", "")
    if width <= NARROW:
        assert_no_sideways_scroll(page)
    check_page(page, "entrants-picked")
    page.fill("input[name=name]", "picked cup")
    follow(page, "#tournament-form button[type=submit]")
    tournament = Tournament.objects.get()
    entered = set(tournament.entries.values_list("bot_id", flat=True))
    expected = {theirs[1].pk, theirs[10].pk, theirs[11].pk, theirs[5].pk}
    assert entered == expected | {b.pk for b in mine}
    assert datetime.now(UTC) - tournament.created_at < timedelta(minutes=5)
