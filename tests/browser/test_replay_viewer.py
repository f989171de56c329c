"""The replay viewer in Chromium: every game drawn, stepping, seats, shared links, faults."""

from __future__ import annotations

import re

import pytest

from games import registry
from tests.support.page_checks import (
    NARROW,
    WIDE,
    assert_no_sideways_scroll,
    check_page,
    screenshot,
)
from tests.support.replay_matches import store_match, table_size

GAMES = [(slug, {}) for slug in registry.slugs()] + [("punk", {"dice": 6})]


@pytest.fixture
def owner(transactional_db, django_user_model):
    return django_user_model.objects.create_user(username="replayer", password="a long password 1")


def open_replay(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#replay[data-ready]")


def counter(page) -> str:
    return page.locator("#replay-counter").inner_text()


@pytest.mark.parametrize(
    "slug,options", GAMES, ids=[f"{s}{'-dice' if o else ''}" for s, o in GAMES]
)
def test_every_game_is_drawn_as_a_table(page_at, live_server, owner, slug, options):
    match = store_match(owner, slug, options=options)
    moves = len(match.moves)
    for width in (WIDE, NARROW):
        page = page_at(width)
        open_replay(page, f"{live_server.url}/matches/{match.pk}/?seat=0")
        assert counter(page) == f"start of {moves} moves"
        assert page.locator("#replay-seats .seat").count() >= table_size(slug)
        page.click("button[data-go=next]")
        assert counter(page) == f"move 1 of {moves}"
        # Something is on the table: card faces, card backs, dice or chips.
        assert page.locator("#replay-table .pc, #replay-table .chip").count() > 0
        page.goto(f"{live_server.url}/matches/{match.pk}/?seat=0#move={moves // 2}")
        page.wait_for_selector("#replay[data-ready]")
        name = f"replay-{slug}{'-dice' if options else ''}"
        if width == NARROW:
            assert_no_sideways_scroll(page)
        screenshot(page, name)
        assert page.script_errors == []
    if options.get("dice"):
        assert page.locator("#replay-table .pc.die").count() > 0


def test_step_switch_seats_and_share_a_move(page_at, live_server, owner):
    match = store_match(owner, "paiute")
    url = f"{live_server.url}/matches/{match.pk}/"
    page = page_at(WIDE)
    open_replay(page, f"{url}?seat=0")
    for _ in range(3):
        page.click("button[data-go=next]")
    page.click("button[data-go=prev]")
    assert counter(page).startswith("move 2 of")
    page.keyboard.press("ArrowRight")
    assert counter(page).startswith("move 3 of")
    assert page.url.endswith("?seat=0#move=3")
    # Seat 0 sees its own hand face up and the others' face down.
    assert page.locator(".seat[data-seat='0'] .hand .pc.french").count() > 0
    assert page.locator(".seat[data-seat='1'] .hand .pc.french").count() == 0
    assert page.locator(".seat[data-seat='1'] .hand .pc.back").count() > 0
    mine = page.locator(".seat[data-seat='0'] .hand").inner_text()

    # Switching seats keeps the move.
    page.click(".seat-switch a:has-text('seat 1')")
    page.wait_for_selector("#replay[data-ready]")
    assert "seat=1" in page.url and counter(page).startswith("move 3 of")
    assert page.locator(".seat[data-seat='1'] .hand .pc.french").count() > 0
    assert page.locator(".seat[data-seat='0'] .hand .pc.french").count() == 0
    assert page.locator(".seat[data-seat='0'] .hand").inner_text() != mine

    # The spectator sees no hand at all.
    page.click(".seat-switch a:has-text('spectator')")
    page.wait_for_selector("#replay[data-ready]")
    assert counter(page).startswith("move 3 of")
    assert page.locator("#replay-seats .hand .pc.french").count() == 0

    # A shared link opens at its move, as a query or as a fragment.
    other = page_at(NARROW)
    open_replay(other, f"{url}?seat=1&move=7")
    assert counter(other).startswith("move 7 of")
    open_replay(other, f"{url}#move=12")
    assert counter(other).startswith("move 12 of")
    other.click("#replay-moves button[data-step='20']")
    assert counter(other).startswith("move 20 of")
    other.click("button[data-go=last]")
    assert counter(other) == f"move {len(match.moves)} of {len(match.moves)}"
    other.click("button[data-go=first]")
    assert counter(other).startswith("start of")


def test_play_and_pause(page_at, live_server, owner):
    match = store_match(owner, "stax")
    page = page_at(WIDE)
    open_replay(page, f"{live_server.url}/matches/{match.pk}/")
    page.select_option("#replay-speed", label="fast")
    page.click("button[data-go=play]")
    page.wait_for_function(
        "document.querySelector('#replay-counter').textContent.startsWith('move 3 ')"
    )
    page.click("button[data-go=play]")  # now the pause button
    stopped = counter(page)
    page.wait_for_timeout(600)
    assert counter(page) == stopped
    assert page.get_attribute("button[data-go=play]", "aria-label") == "Play"


def test_a_fault_shows_where_it_happened(page_at, live_server, owner):
    match = store_match(owner, "pairs", illegal_seat=1)
    fault = match.result["seats"][1]["fault"]
    assert fault["kind"] == "illegal"
    step = fault["move"] + 1
    page = page_at(WIDE)
    open_replay(page, f"{live_server.url}/matches/{match.pk}/?seat=1#move={step}")
    alert = page.locator("#replay-move .fault").inner_text()
    assert "faulted here (illegal)" in alert and "not in legal" in alert
    assert "fault" in page.locator(f"#replay-moves button[data-step='{step}']").inner_text()
    assert re.search(r"\d+ ms", page.locator("#replay-move table").inner_text())
    page.click("button[data-go=next]")
    assert "faulted: illegal" in page.locator(".seat[data-seat='1']").inner_text()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_match_page_is_accessible_and_fits(page_at, live_server, owner, width):
    match = store_match(owner, "paks")
    page = page_at(width)
    open_replay(page, f"{live_server.url}/matches/{match.pk}/?seat=0#move=40")
    check_page(page, "match-paks")
    page.click("#text-log summary")
    assert page.locator("#events tr").count() > 10
    assert_no_sideways_scroll(page) if width == NARROW else None


def test_team_games_tag_each_seat_with_its_team(page_at, live_server, owner):
    match = store_match(owner, "paks", players=4)
    page = page_at(NARROW)
    open_replay(page, f"{live_server.url}/matches/{match.pk}/?seat=2#move=3")
    for seat, team in [(0, 1), (1, 2), (2, 1), (3, 2)]:
        assert f"team {team}" in page.locator(f".seat[data-seat='{seat}'] .tags").inner_text()
    assert_no_sideways_scroll(page)
