"""A competition's held results in Chromium: the final's page, one of its matches and an
entrant's bot page say the results are hidden (no champion, no ranks, no replay) to a
visitor, and show them to the organiser. Screenshots at 1280 and 390 px go to
$ARENA_SCREENSHOTS when it is set."""

from __future__ import annotations

import contextlib

import pytest
from django.contrib.auth import get_user_model

from tests.arena.test_competition_release import make_people, make_season
from tests.support.page_checks import follow, keep_screenshot

PASSWORD = "a long password 1"


@pytest.fixture
def season(transactional_db):
    def make_user(name: str):
        return get_user_model().objects.create_user(username=name, password=PASSWORD)

    people = make_people(make_user)
    return make_season(people, committing=contextlib.nullcontext)


def log_in(page, url, username):
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")


def test_held_results_read_as_hidden_to_a_visitor_and_whole_to_the_organiser(
    page, live_server, season
):
    pages = {
        "final": f"/tournaments/{season.final.pk}/",
        "match": f"/matches/{season.final_match.pk}/",
        "bot": f"/bots/{season.bots['a'].pk}/",
    }
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            page.goto(live_server.url + path)
            if name == "bot":
                assert page.locator(".results-hidden").count() >= 1
            else:
                assert page.locator("#results-hidden").is_visible()
                assert page.locator("#champion").count() == 0
                assert page.locator("#replay").count() == 0
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
            keep_screenshot(page, f"release-hidden-{name}-{width}", full_page=True)
    log_in(page, live_server.url, "org")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + pages["final"])
    assert page.locator("#champion").is_visible() and page.locator("#results-held").is_visible()
    keep_screenshot(page, "release-organiser-final-1280", full_page=True)
