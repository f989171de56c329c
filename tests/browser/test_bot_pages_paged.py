"""The paged bots page and the head-to-head form's name suggestions in Chromium, at 1280
and 390 px: pages fit, pass the accessibility check, and work by clicking and typing."""

from __future__ import annotations

import pytest

from bots.selectors import BOT_PAGE_SIZE
from tests.support.builders import bot_with_version, finished_match, user
from tests.support.page_checks import NARROW, WIDE, check_page, follow


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_bots_page_pages_and_searches(page_at, live_server, transactional_db, width):
    from bots.models import Bot

    who = user()
    Bot.objects.bulk_create(
        Bot(owner=who, name=f"bot{i:03d}", game="pairs") for i in range(BOT_PAGE_SIZE + 12)
    )
    page = page_at(width)
    page.goto(f"{live_server.url}/bots/")
    assert page.locator("#bots tr").count() == BOT_PAGE_SIZE + 1
    check_page(page, "bots-paged")
    follow(page, "a[rel=next]")
    assert page.locator("#bots tr").count() == 12 + 1
    assert "bot050" in page.locator("#bots").inner_text()
    check_page(page, "bots-paged-2")
    page.fill("#bot-search input[name=q]", "bot06")
    follow(page, "#bot-search button")
    assert page.locator("#bots tr").count() == 2 + 1  # bot060, bot061
    check_page(page, "bots-search")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_head_to_head_suggests_names_as_one_types(page_at, live_server, transactional_db, width):
    _, a = bot_with_version(name="alpha")
    _, b = bot_with_version(name="alphonse")
    finished_match(versions=[a, b], ranks=[1, 2], seed=1)
    finished_match(versions=[b, a], ranks=[1, 2], seed=1)
    page = page_at(width)
    page.goto(f"{live_server.url}/games/pairs/head-to-head/")
    check_page(page, "h2h-empty")
    page.fill("#id_a", "alp")
    page.wait_for_function("document.querySelectorAll('#h2h-bots option').length === 2")
    page.fill("#id_a", "alpha")
    page.fill("#id_b", "alphonse")
    follow(page, "#h2h-form button")
    assert "alpha against alphonse" in page.locator("h2").first.inner_text()
    check_page(page, "h2h-result")
