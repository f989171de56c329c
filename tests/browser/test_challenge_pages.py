"""Challenges in Chromium: challenge from a bot's page, watch the result page fill in without
a reload, answer an "ask me" request from the inbox, play it again; at 1280 and 390 px."""

from __future__ import annotations

import pytest

from tests.support.builders import bot_with_version, outcome
from tests.support.page_checks import NARROW, WIDE, check_page, follow
from tournaments.models import Challenge, Match
from tournaments.services.playing import claim_match
from tournaments.services.recording import record_result

PASSWORD = "a long password 1"


@pytest.fixture
def authors(transactional_db, django_user_model):
    alice = django_user_model.objects.create_user(username="alice", password=PASSWORD)
    bob = django_user_model.objects.create_user(username="bob", password=PASSWORD)
    mine, _ = bot_with_version(name="mine", owner=alice)
    theirs, _ = bot_with_version(name="theirs", owner=bob)
    return alice, bob, mine, theirs


def log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")


def play_challenge_games(limit: int) -> int:
    """Claim and record queued challenge games as a worker does (seat 0 wins)."""
    played = 0
    while played < limit:
        match = Match.objects.filter(challenge__isnull=False, status="queued").first()
        if match is None:
            break
        attempt = claim_match(match_id=match.pk)
        assert record_result(
            match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
        )
        played += 1
    return played


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_challenge_from_a_bot_page_and_watch_the_result_fill_in(
    page_at, live_server, authors, width, quick_live_pages
):
    _, _, _, theirs = authors
    page = page_at(width)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/bots/{theirs.pk}/")
    check_page(page, "challenge-bot-page")
    follow(page, "#challenge-link")
    page.fill("input[name=games]", "4")
    check_page(page, "challenge-form")
    follow(page, "#challenge-submit")
    challenge = Challenge.objects.get()
    assert page.url.endswith(f"/challenges/{challenge.pk}/")
    assert "0 of 4 games played" in page.locator("#progress").inner_text()
    page.evaluate("window.stayedHere = true")
    play_challenge_games(2)
    page.wait_for_function(
        "document.querySelector('#progress').innerText.includes('2 of 4 games played')",
        timeout=15000,
    )
    assert page.locator("#wdl").inner_text() == "1-0-1"
    check_page(page, "challenge-running")
    play_challenge_games(2)
    page.wait_for_function(
        "document.querySelector('#status').innerText === 'finished'", timeout=15000
    )
    assert page.locator("#wdl").inner_text() == "2-0-2"
    assert "+0.0" in page.locator("#elo").inner_text()
    assert page.locator("#los").inner_text() == "50.0%"
    assert page.locator("#pentanomial").inner_text() == "0-0-2-0-0"
    assert "pentanomial 0-0-2-0-0" in page.locator("#play-lines").inner_text()
    # The same document all along, and finished: it stops asking.
    assert page.evaluate("window.stayedHere") is True
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    assert page.locator("#live").get_attribute("hx-trigger") is None
    assert page.locator("#games tr").count() == 5
    assert page.locator("#games a.log").count() == 4  # alice's own seat, in each game
    check_page(page, "challenge-finished")
    # Again, on the same deals.
    follow(page, "#again")
    again = Challenge.objects.exclude(pk=challenge.pk).get()
    assert again.again_of_id == challenge.pk and again.seed == challenge.seed
    page.goto(f"{live_server.url}/bots/{theirs.pk}/")
    assert page.locator("#challenges tr").count() == 3
    check_page(page, "challenge-bot-list")


def test_ask_me_waits_in_the_inbox_and_others_see_no_logs(page_at, live_server, authors):
    _, _, _, theirs = authors
    theirs.accepts_challenges = "ask"
    theirs.save()
    page = page_at(WIDE)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/bots/{theirs.pk}/challenge/")
    page.fill("input[name=games]", "2")
    follow(page, "#challenge-submit")
    assert page.locator("#status").inner_text() == "pending"
    challenge = Challenge.objects.get()
    page.context.clear_cookies()
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/challenges/")
    check_page(page, "challenge-inbox")
    follow(page, "#inbox button.accept")
    challenge.refresh_from_db()
    assert challenge.status == "running"
    play_challenge_games(2)
    page.goto(f"{live_server.url}/challenges/{challenge.pk}/")
    # Bob sees his own bot's logs, never alice's; anonymous readers none.
    logs = page.locator("#games a.log")
    assert logs.count() == 2
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/challenges/{challenge.pk}/")
    assert page.locator("#games a.log").count() == 0
    assert page.locator("#again").count() == 0


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_pick_for_me_from_the_inbox(page_at, live_server, authors, width):
    _, _, _, theirs = authors
    page = page_at(width)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/challenges/")
    follow(page, "#pick-link")
    page.fill("input[name=games]", "2")
    check_page(page, "challenge-pick")
    follow(page, "#pick-submit")
    challenge = Challenge.objects.get()
    assert [o.bot_id for o in challenge.opponents.all()] == [theirs.pk]
    assert page.locator("#status").inner_text() == "running"
