"""Long names everywhere (a teacher's long username, students' long bot names, long event
names) on the pages an organiser uses, at 1280 and 390 px: nothing scrolls sideways; and the
standings downloaded from the page hold what the page shows."""

from __future__ import annotations

import csv
import io

import pytest

from tests.support.builders import bot_with_version, play_queued, user
from tests.support.page_checks import NARROW, WIDE, check_page, follow
from tournaments import services

PASSWORD = "a long password 1"
TEACHER = "msteacher_mathematics_department_stmarys_secondary"  # no place to break
FORMATS = ["round_robin", "swiss", "single_elimination", "double_elimination", "gauntlet"]


def long_bot_name(i: int) -> str:
    return f"student{i}_minimax_alphabeta_pruning_v{i}"  # 40 at most


@pytest.fixture
def teacher(transactional_db):
    teacher = user(name=TEACHER, password=PASSWORD)
    teacher.first_name = "Marguerite Delacroix-Villeneuve, Head of Computing"  # display name
    teacher.save()
    return teacher


def log_in(page, base: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", TEACHER)
    page.fill("input[name=password]", PASSWORD)
    follow(page, "button[type=submit]")
    assert TEACHER in page.locator("header").inner_text()


def played(teacher, format: str, count: int = 5):
    bots = [
        bot_with_version(name=long_bot_name(i), owner=user(name=f"student_{i}_" + "x" * 30))[0]
        for i in range(count)
    ]
    fields = {"challengers": [bots[0].pk]} if format == "gauntlet" else {}
    tournament = services.create_tournament(
        organiser=teacher, name=f"Year 9 {format.replace('_', ' ')} of spring term, group B",
        game="pairs", bot_ids=[b.pk for b in bots], format=format, seeding="entry", **fields,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)
    play_queued(tournament_id=tournament.pk, limit=6)
    return tournament, bots


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_lists_and_pages_fit_with_long_names_signed_in(page_at, live_server, teacher, width):
    tournament, bots = played(teacher, "round_robin")
    page = page_at(width)
    log_in(page, live_server.url)
    for path, name in [
        ("/tournaments/", "long-tournaments"),
        (f"/tournaments/{tournament.pk}/", "long-tournament"),
        (f"/bots/{bots[0].pk}/", "long-bot"),
        ("/bots/", "long-bots"),
        ("/ladders/", "long-ladders"),
        ("/", "long-home"),
        ("/bots/new/", "long-upload-form"),
        ("/languages/", "long-languages"),
        ("/account/", "long-account"),
    ]:
        page.goto(f"{live_server.url}{path}")
        check_page(page, name)


@pytest.mark.parametrize("width", [WIDE, NARROW])
@pytest.mark.parametrize("format", FORMATS)
def test_each_format_fits_with_long_names(page_at, live_server, teacher, format, width):
    tournament, _ = played(teacher, format)
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    check_page(page, f"long-{format}")


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_the_standings_downloaded_from_the_page_match_it(page_at, live_server, teacher, width):
    tournament, _ = played(teacher, "round_robin", count=4)
    play_queued(tournament_id=tournament.pk)
    page = page_at(width)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    shown = [
        [cell.inner_text().strip() for cell in row.locator("td").all()]
        for row in page.locator("#standings tr").all()[1:]
    ]
    with page.expect_download() as download:
        page.click("#standings-downloads a:text('CSV')")
    assert download.value.suggested_filename == f"tournament-{tournament.pk}-standings.csv"
    text = open(download.value.path(), encoding="utf-8-sig").read()
    rows = list(csv.reader(io.StringIO(text)))
    names = [row[1] for row in rows[1:]]
    assert names == [row[1].split(" v")[0].strip() for row in shown]
    assert [row[4] for row in rows[1:]] == [row[3] for row in shown]  # the points
    check_page(page, "long-downloads")
