"""A match whose record is hidden, in Chromium: a seat's owner replays their own seat and sees
no other seat's cards or actions; a spectator sees the public view, no seed and no commands."""

from __future__ import annotations

import pytest

from tests.support.builders import bot_with_version, play_for_real, started_tournament
from tests.support.page_checks import NARROW, WIDE, assert_no_sideways_scroll, follow, screenshot
from tournaments.models import Match


@pytest.fixture
def hidden_match(transactional_db, django_user_model):
    """The first game of a deal of a tournament_end cup, finished while the tournament runs."""
    users = {
        name: django_user_model.objects.create_user(username=name, password="a long password 1")
        for name in ("ada", "max", "org")
    }
    bots = [
        bot_with_version(name=name, game="paiute", owner=users[owner])[0]
        for name, owner in (("ada-bot", "ada"), ("max-bot", "max"), ("max-two", "max"))
    ]
    tournament = started_tournament(
        organiser=users["org"],
        bots=bots,
        game="paiute",
        seeding="entry",
        record_visibility="tournament_end",
    )
    first, second = [
        m
        for m in tournament.matches.order_by("pk")
        if {s.version.bot_id for s in m.seats.all()} == {bots[0].pk, bots[1].pk}
    ]
    play_for_real(match=first)
    play_for_real(match=second)
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED
    return first


def log_in(page, url, username):
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "a long password 1")
    follow(page, "button[type=submit]")


def test_an_owner_replays_their_seat_and_a_spectator_the_public_view(
    page_at, live_server, hidden_match
):
    match = hidden_match
    ada_seat = next(s.seat for s in match.seats.all() if s.version.bot.name == "ada-bot")
    for width in (WIDE, NARROW):
        page = page_at(width)
        log_in(page, live_server.url, "ada")
        page.goto(f"{live_server.url}/matches/{match.pk}/?seat={ada_seat}")
        page.wait_for_selector("#replay[data-ready]")
        assert "until the tournament ends" in page.locator("#hidden-record").inner_text()
        links = page.locator(".seat-switch a")
        assert links.count() == 2  # the spectator and ada's own seat
        assert str(match.seed) not in page.content()
        assert page.locator("#reproduce").count() == 0
        page.click("button[data-go=next]")
        if width == NARROW:
            assert_no_sideways_scroll(page)
        screenshot(page, "match-hidden-owner")
        # Another seat asked for by its URL: the spectator's view instead.
        page.goto(f"{live_server.url}/matches/{match.pk}/?seat={1 - ada_seat}")
        page.wait_for_selector("#replay[data-ready]")
        assert "a spectator saw" in page.locator("#viewing").inner_text()
        assert page.script_errors == []

        anonymous = page_at(width)
        anonymous.goto(f"{live_server.url}/matches/{match.pk}/")
        anonymous.wait_for_selector("#replay[data-ready]")
        assert anonymous.locator(".seat-switch a").count() == 1
        text = anonymous.locator("#text-log").text_content()  # folded: not rendered
        assert "(hidden)" in text
        screenshot(anonymous, "match-hidden-spectator")
        assert anonymous.script_errors == []
