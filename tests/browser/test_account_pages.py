"""Password reset from the log-in page, a bracket's explained decider and the gating box,
at 1280 and 390 px with long names; screenshots kept."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.arena.test_series_explained import seat_zero_wins
from tests.support.builders import bot_with_version, play_queued, started_event, user
from tests.support.page_checks import NARROW, WIDE, check_page, follow

TEACHER = "msteacher_mathematics_department_stmarys_secondary"
NEW = "a brand new secret 7"


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_forgotten_password_is_reset_from_the_log_in_page(
    page_at, live_server, transactional_db, width
):
    teacher = user(name=TEACHER, password="the old one 1")
    teacher.email = "teacher@school.example"
    teacher.save()
    page = page_at(width)
    page.goto(f"{live_server.url}/login/")
    follow(page, "#forgot")
    check_page(page, "password-reset")
    page.fill("input[name=email]", "teacher@school.example")
    follow(page, "button[type=submit]")
    assert "Check your email" in page.locator("h1").inner_text()
    check_page(page, "password-reset-sent")
    link = re.search(r"http://\S+/password-reset/\S+/", mail.outbox[-1].body).group(0)
    page.goto(link.replace("http://testserver", live_server.url))
    check_page(page, "password-reset-choose")
    page.fill("input[name=new_password1]", NEW)
    page.fill("input[name=new_password2]", NEW)
    follow(page, "button[type=submit]")
    assert "Password changed" in page.locator("h1").inner_text()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", TEACHER)
    page.fill("input[name=password]", NEW)
    follow(page, "button[type=submit]")
    assert TEACHER in page.locator("header").inner_text()


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_a_decided_tie_and_the_gating_box(page_at, live_server, transactional_db, width):
    cup = started_event(
        organiser=user(name=TEACHER), entrants=2, fields={"format": "single_elimination"}
    )
    while play_queued(tournament_id=cup.pk, ranks_of=seat_zero_wins):
        pass
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{cup.pk}/")
    assert "the higher seed, went through" in page.locator("#bracket .why").inner_text()
    check_page(page, "series-decided-by-seed")
    bot, _ = bot_with_version(name="student7_minimax_alphabeta_pruning_v3", gating=True)
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    assert "New versions are tested first" in page.locator("#gating").inner_text()
    check_page(page, "gating-on")
