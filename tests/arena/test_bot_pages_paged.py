"""The bots page shows one keyset page of bots with a search, and the head-to-head form
takes names (offered by a small JSON query) instead of a select of every bot."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from bots.selectors import BOT_PAGE_SIZE
from tests.support.builders import bot_with_version, finished_match, user

pytestmark = pytest.mark.django_db


def names_on(html: str) -> list[str]:
    table = html[html.index('id="bots"') : html.index("</table>")]
    return re.findall(r'<a href="/bots/\d+/">([^<]+)</a>', table)


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'rel="{rel}" href="([^"]+)"', html)
    return found.group(1).replace("&amp;", "&") if found else None


def make_many(count: int):
    from bots.models import Bot

    who = user()
    Bot.objects.bulk_create(
        Bot(owner=who, name=f"bot{i:03d}", game="pairs" if i % 3 else "paks") for i in range(count)
    )


def test_bots_page_pages_forward_and_back_through_every_bot_once():
    count = 2 * BOT_PAGE_SIZE + 7
    make_many(count)
    client = Client()
    html = client.get("/bots/").content.decode()
    first = names_on(html)
    assert first == [f"bot{i:03d}" for i in range(BOT_PAGE_SIZE)]
    assert link(html, "prev") is None
    seen, pages = list(first), [html]
    while nxt := link(pages[-1], "next"):
        pages.append(client.get("/bots/" + nxt).content.decode())
        seen += names_on(pages[-1])
    assert seen == [f"bot{i:03d}" for i in range(count)]
    assert len(pages) == 3 and len(names_on(pages[-1])) == 7
    # back from the last page gives the middle page again
    back = client.get("/bots/" + link(pages[-1], "prev")).content.decode()
    assert names_on(back) == names_on(pages[1])
    assert link(back, "first") == "?"


def test_bots_page_search_and_game_filter_keep_paging_within_the_search():
    make_many(3 * BOT_PAGE_SIZE)
    client = Client()
    html = client.get("/bots/?q=BOT1&game=paks").content.decode()
    names = names_on(html)
    assert names and all(n.startswith("bot1") and int(n[3:]) % 3 == 0 for n in names)
    assert client.get("/bots/?q=nothing-like-it").content.decode().count("No bot matches") == 1
    nxt = link(client.get("/bots/?game=pairs").content.decode(), "next")
    assert "game=pairs" in nxt
    later = names_on(client.get("/bots/" + nxt).content.decode())
    assert later and all(int(n[3:]) % 3 for n in later)
    # hostile input: long or odd values never fail
    assert client.get("/bots/?after=" + "z" * 500 + "&before=%00x").status_code == 200
    assert client.get("/games/pairs/bot-names/?q=%00").status_code == 200
    assert client.get("/games/pairs/head-to-head/?a=%00&b=x").status_code == 200


def test_head_to_head_takes_names_and_ids_and_never_lists_every_bot():
    make_many(60)
    bot_a, a = bot_with_version(name="alpha")
    bot_b, b = bot_with_version(name="beta")
    finished_match(versions=[a, b], ranks=[1, 2], seed=1)
    finished_match(versions=[b, a], ranks=[1, 2], seed=1)
    client = Client()
    html = client.get("/games/pairs/head-to-head/?a=alpha&b=beta").content.decode()
    assert "alpha against beta" in html and "1-0-1" in html
    by_id = client.get(f"/games/pairs/head-to-head/?a={bot_a.pk}&b={bot_b.pk}").content.decode()
    assert "alpha against beta" in by_id and 'value="alpha"' in by_id
    empty = client.get("/games/pairs/head-to-head/").content.decode()
    assert "bot059" not in empty and "<option" not in empty.split("<datalist")[0].split("pool")[0]
    unknown = client.get("/games/pairs/head-to-head/?a=alpha&b=nobody").content.decode()
    assert "No pairs bot is called" in unknown
    other_game = client.get("/games/pairs/head-to-head/?a=alpha&b=bot000").content.decode()
    assert "No pairs bot is called" in other_game  # bot000 plays paks


def test_bot_names_json_suggests_a_few_names_of_the_game():
    make_many(90)
    client = Client()
    names = client.get("/games/pairs/bot-names/?q=bot0").json()["names"]
    assert 0 < len(names) <= 20 and all(n.startswith("bot0") for n in names)
    assert all(int(n[3:]) % 3 for n in names)  # pairs bots only
    contains = client.get("/games/pairs/bot-names/?q=08").json()["names"]
    assert "bot080" in contains and "bot081" not in contains  # 81 plays paks
    assert set(contains) <= {f"bot{i:03d}" for i in range(90) if i % 3}
    assert client.get("/games/nogame/bot-names/?q=x").status_code == 404
    assert client.get("/games/pairs/bot-names/?q=" + "%ff" * 300).status_code == 200


def test_bot_page_lists_the_latest_rating_changes_and_charts_them_all():
    from arena.dashboard.bot_page import HISTORY_ROWS

    bot_a, a = bot_with_version(name="alpha")
    _, b = bot_with_version(name="beta")
    count = HISTORY_ROWS + 5
    for seed in range(count):
        finished_match(versions=[a, b] if seed % 2 else [b, a], ranks=[1, 2], seed=seed)
    response = Client().get(f"/bots/{bot_a.pk}/")
    html = response.content.decode()
    table = html[html.index('class="history-table"') : html.index("</details>")]
    assert f"the latest {HISTORY_ROWS} of {count}, newest first" in table
    numbers = [int(n) for n in re.findall(r"<tr><td>(\d+)</td><td>v", table)]
    assert numbers == list(range(count, count - HISTORY_ROWS, -1))
    assert len(response.context["chart"]["points"]) == count
