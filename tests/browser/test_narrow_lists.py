"""The tournament list fits a phone (390 px) with long names in every column, and a refused
request's page (413) is drawn in the site's layout, at 1280 and 390 px."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bots.models import OptionsValidation
from tests.support.builders import active_bots, user
from tests.support.long_lists import many_competitions, many_tournaments
from tests.support.page_checks import NARROW, WIDE, check_page, follow
from tournaments import services
from tournaments.selectors.newest_first import PAGE_SIZE


@pytest.fixture
def listed(transactional_db):
    organiser = user(name="an-organiser-with-a-rather-long-username-indeed")
    bots = active_bots(owner=organiser, count=2)
    for name in ("Autumn open: continuous Pairs for everyone", "x" * 60, "Cup"):
        services.create_tournament(
            organiser=organiser, name=name, game="pairs", bot_ids=[b.pk for b in bots],
            start_at=datetime(2030, 12, 31, 23, 59, tzinfo=UTC),
        )  # fmt: skip


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_tournament_list_fits(page_at, live_server, listed, width):
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/")
    check_page(page, "page-tournaments")  # no sideways scroll at 390 px
    assert "2030-12-31" in page.locator("table").inner_text()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_refused_body_gets_the_sites_page(page_at, live_server, transactional_db, width):
    """A form post over the body cap: the browser sends its real Content-Length."""
    page = page_at(width)
    page.goto(f"{live_server.url}/login/")
    with page.expect_navigation():
        page.evaluate(
            """() => {
                const form = document.createElement("form");
                form.method = "post"; form.action = "/login/";
                form.enctype = "multipart/form-data";
                const field = document.createElement("textarea");
                field.name = "username"; field.value = "x".repeat(3 * 1024 * 1024);
                form.appendChild(field); document.body.appendChild(form); form.submit();
            }"""
        )
    assert "this address accepts at most 2097152" in page.locator("main").inner_text()
    assert page.locator("header.site nav").is_visible()  # the site's layout, not a bare page
    check_page(page, "page-413")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_withdrawn_entry_and_its_reason_for_the_owner(
    page_at, live_server, transactional_db, width
):
    owner = user(name="shy-owner", password="a long password 1")
    bots = active_bots(owner=owner, count=3)
    tournament = services.create_tournament(
        organiser=owner, name="Continuous cup", game="pairs", bot_ids=[b.pk for b in bots],
        options={"continuous": True},
    )  # fmt: skip
    OptionsValidation.objects.filter(version__bot__in=bots[:2]).update(status="passed")
    OptionsValidation.objects.filter(version__bot=bots[2]).update(
        status="failed", reason="in a test match as seat 0, the bot crashed with exit code 1 "
        "at its start: Traceback (most recent call last): RuntimeError: no-continuous-" + "x" * 80,
    )  # fmt: skip
    assert services.start_due_tournaments() == [tournament.pk]
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    withdrawn = page.locator("#withdrawn").inner_text()
    assert "failed validation under this event's options" in withdrawn
    assert "no-continuous" not in withdrawn
    check_page(page, "page-tournament-withdrawn")
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "shy-owner")
    page.fill("input[name=password]", "a long password 1")
    follow(page, "button[type=submit]")
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert "no-continuous" in page.locator("#withdrawn").inner_text()
    check_page(page, "page-tournament-withdrawn-owner")


@pytest.mark.parametrize("width", [WIDE, NARROW])
@pytest.mark.parametrize(
    "path, build", [("/tournaments/", many_tournaments), ("/competitions/", many_competitions)]
)
def test_a_long_list_pages_latest_first(page_at, live_server, transactional_db, width, path, build):
    order = build()
    page = page_at(width)
    page.goto(f"{live_server.url}{path}")
    name = path.strip("/")
    check_page(page, f"page-{name}-first")
    follow(page, "a[rel=next]")
    check_page(page, f"page-{name}-second")
    shown = page.locator(f"table a[href^='/{name}/']").evaluate_all(
        "links => links.map(a => Number(a.getAttribute('href').split('/')[2]))"
    )
    assert shown == order[PAGE_SIZE : 2 * PAGE_SIZE]
    follow(page, "a[rel=prev]")
    assert page.locator("a[rel=prev]").count() == 0
