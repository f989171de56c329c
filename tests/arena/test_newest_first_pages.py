"""The tournament and competition lists show one keyset page at a time, latest first: every
row once going forward, the same pages coming back, rows on one date ordered by id, and a
cursor that names no row (or is not a number) gives the first page, never an error."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from tests.support.builders import user
from tests.support.long_lists import many_competitions, many_tournaments
from tournaments.models import Tournament
from tournaments.selectors.newest_first import PAGE_SIZE, newest_first

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]


def test_the_pages_cover_every_row_once_in_order_and_page_back_the_same():
    order = many_tournaments()
    pages = [newest_first(Tournament.objects.all(), field="start_at")]
    while pages[-1]["next"] is not None:
        pages.append(
            newest_first(Tournament.objects.all(), field="start_at", after=pages[-1]["next"])
        )
    assert [row.pk for page in pages for row in page["rows"]] == order
    assert [len(page["rows"]) for page in pages] == [PAGE_SIZE, PAGE_SIZE, 7]
    assert pages[0]["previous"] is None and pages[-1]["next"] is None
    back = newest_first(Tournament.objects.all(), field="start_at", before=pages[2]["previous"])
    assert [row.pk for row in back["rows"]] == [row.pk for row in pages[1]["rows"]]
    assert back["previous"] == pages[1]["previous"] and back["next"] == pages[1]["next"]
    first = newest_first(Tournament.objects.all(), field="start_at", before=back["previous"])
    assert [row.pk for row in first["rows"]] == order[:PAGE_SIZE] and first["previous"] is None


def test_a_cursor_outside_the_rows_gives_the_first_page():
    order = many_tournaments()
    filtered = Tournament.objects.filter(seed__lt=10)
    outside = Tournament.objects.get(seed=50).pk  # a row, but not one of ``filtered``
    page = newest_first(filtered, field="start_at", after=outside)
    assert [row.pk for row in page["rows"]] == [
        pk for pk in order if pk in set(filtered.values_list("pk", flat=True))
    ]
    assert page["next"] is None and page["previous"] is None


def ids_on(html: str, kind: str) -> list[int]:
    table = html[html.index("<table") : html.index("</table>")]
    return [int(pk) for pk in re.findall(rf'<a href="/{kind}/(\d+)/">', table)]


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'rel="{rel}" href="([^"]+)"', html)
    return found.group(1).replace("&amp;", "&") if found else None


@pytest.mark.parametrize(
    "path, kind, build",
    [
        ("/tournaments/", "tournaments", many_tournaments),
        ("/competitions/", "competitions", many_competitions),
    ],
)
def test_list_pages_page_forward_and_back(path, kind, build):
    order = build()
    client = Client()
    html = client.get(path).content.decode()
    assert ids_on(html, kind) == order[:PAGE_SIZE]
    assert link(html, "prev") is None and "latest first" in html
    seen, pages = ids_on(html, kind), [html]
    while nxt := link(pages[-1], "next"):
        pages.append(client.get(path + nxt).content.decode())
        seen += ids_on(pages[-1], kind)
    assert seen == order and len(pages) == 3
    back = client.get(path + link(pages[-1], "prev")).content.decode()
    assert ids_on(back, kind) == ids_on(pages[1], kind)
    assert link(back, "first") == "?"


@pytest.mark.parametrize("path", ["/tournaments/", "/competitions/"])
@pytest.mark.parametrize(
    "cursor",
    [
        "after=abc",
        "before=-3",
        "after=99999999999999999999999",
        "after=%00",
        "before=1e3",
        "after=%D9%A3",
    ],
)
def test_a_bad_cursor_gives_the_first_page(path, cursor):
    many_tournaments() if path == "/tournaments/" else many_competitions()
    client = Client()
    first = client.get(path)
    answer = client.get(f"{path}?{cursor}")
    assert answer.status_code == 200
    kind = path.strip("/")
    assert ids_on(answer.content.decode(), kind) == ids_on(first.content.decode(), kind)


def test_a_short_list_has_no_pager():
    organiser = user()
    Tournament.objects.create(
        name="only",
        organiser=organiser,
        game="pairs",
        players_per_match=2,
        seed=1,
        start_at=timezone.now(),
    )
    html = Client().get("/tournaments/").content.decode()
    assert len(ids_on(html, "tournaments")) == 1 and 'class="pager"' not in html
