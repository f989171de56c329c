"""Pieces of the dashboard pages: leaderboard search, pages and whiskers, match results in
words, the chart's data (one series per version)."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs

import pytest
from django.template import engines
from django.template.loader import render_to_string
from django.utils.html import json_script

from arena.dashboard.bot_page import day_and_clock, history_table, latest_history, result_text
from arena.dashboard.charts import rating_chart, rating_series
from arena.dashboard.leaderboard_page import ROWS_PER_PAGE, BoardPage, board_page, with_whiskers
from games import registry


def row(n: int, elo: float = 1500.0, **extra) -> dict:
    return {
        "position": n,
        "bot_id": n,
        "bot": f"bot-{n}",
        "owner": "ann" if n % 2 else "Bob",
        "version": 1,
        "elo": elo,
        "matches": 3,
        **extra,
    }


@pytest.mark.django_db
def test_pages_of_the_leaderboard_and_search_in_any_case():
    from tests.support.builders import bot_with_version, user

    for n in range(1, ROWS_PER_PAGE + 6):
        bot_with_version(name=f"bot-{n:02d}")
    user(name="Bob")
    first = board_page(pool="pairs:2", query="", cursor=None)
    assert len(first.object_list) == ROWS_PER_PAGE and first.next_url and not first.previous_url
    assert first.summary == f"1–{ROWS_PER_PAGE} of {ROWS_PER_PAGE + 5} bots"
    cursor = parse_qs(first.next_url[1:])["cursor"][0]
    last = board_page(pool="pairs:2", query="", cursor=cursor)
    assert len(last.object_list) == 5 and not last.next_url and last.previous_url
    final = board_page(pool="pairs:2", query="", cursor="last")  # the board's last 25 rows
    assert len(final.object_list) == ROWS_PER_PAGE and not final.next_url
    assert final.object_list[-5:] == last.object_list and final.summary.startswith("6–30 of")
    assert board_page(pool="pairs:2", query="", cursor="junk").object_list == first.object_list
    found = board_page(pool="pairs:2", query="BOT-1", cursor=None)
    assert [r["bot"] for r in found.object_list] == [f"bot-{n}" for n in range(10, 20)]
    assert found.summary == "10 bots found"
    assert [r["position"] for r in found.object_list] == list(range(10, 20))  # the board's


def test_whiskers_only_for_rows_with_an_interval():
    rows = [
        row(1, 1600, elo_low=1550, elo_high=1650),
        row(2, 1500),
        row(3, 1400, elo_low=1300, elo_high=1450),
    ]
    drawn = with_whiskers(rows)
    assert "whisker" not in drawn[1]
    top, bottom = drawn[0]["whisker"], drawn[2]["whisker"]
    assert bottom["x1"] < bottom["x"] < bottom["x2"] <= top["x1"] < top["x"] < top["x2"]
    assert with_whiskers([row(1), row(2)]) == [row(1), row(2)]  # no intervals: unchanged


@pytest.mark.parametrize("with_interval", [True, False])
def test_leaderboard_template_draws_whiskers_only_when_rows_carry_them(rf, with_interval):
    extra = {"elo_low": 1450.0, "elo_high": 1550.0} if with_interval else {}
    page = BoardPage(object_list=with_whiskers([row(1, 1500, **extra), row(2, 1490)]), count=2)
    html = render_to_string(
        "arena/leaderboard.html",
        {"game": registry.get("pairs"), "page": page, "query": "", "info": {"options": {}}},
        request=rf.get("/games/pairs/"),
    )
    assert ('class="whisker"' in html) is with_interval
    assert ("1450 – 1550" in html) is with_interval


@pytest.mark.parametrize(
    "rank,ranks,text",
    [
        (1, [1, 2], "won"),
        (2, [1, 2], "lost"),
        (1, [1, 1], "draw"),
        (1, [1, 2, 3], "won"),
        (1, [1, 1, 3], "shared 1st"),
        (2, [1, 2, 3, 4], "2nd of 4"),
        (3, [1, 2, 3, 3], "shared 3rd of 4"),
        (4, [1, 2, 3, 4], "4th of 4"),
        (None, [1, 2], ""),
    ],
)
def test_results_in_words(rank, ranks, text):
    assert result_text(rank, ranks) == text


def test_rating_series_keeps_versions_apart():
    at = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    history = [
        {"version": 1, "match": 5, "before": 1500.0, "after": 1512.0, "at": at},
        {"version": 1, "match": 6, "before": 1512.0, "after": 1520.5, "at": at},
        {"version": 2, "match": 9, "before": 1500.0, "after": 1490.0, "at": at},
    ]
    series = rating_series(history)
    assert series["versions"] == [1, 2]
    assert [p["version"] for p in series["points"]] == [1, 1, 2]
    assert series["points"][1] == {
        "version": 1,
        "match": 6,
        "elo": 1520.5,
        "change": 8.5,
        "at": "2026-11-26T12:00:00+00:00",
    }
    assert (series["low"], series["high"], series["last"]) == (1490, 1520, 1490)
    assert rating_series([]) is None


@pytest.mark.parametrize(
    "values",
    [
        [(1500.0, 1512.0), (1512.0, 1520.5), (1500.0, 1490.0)],
        # A change that rounds to minus zero, halves, large and small figures.
        [(1500.04, 1499.96), (1512.25, 1512.35), (1e15, 1234567.05), (0.0, -0.04), (3.0, 3.0)],
        # A change that is not finite: the JSON encoder's own words for it.
        [(float("nan"), 1500.0), (float("inf"), 1490.0), (1490.0, 1480.5)],
    ],
)
def test_the_rating_chart_writes_what_json_script_wrote(values):
    times = [datetime(2026, 11, 26, 12, 0, tzinfo=UTC), datetime(999, 1, 2, 3, 4, 5, 6, tzinfo=UTC)]
    points = [
        (1 + i % 2, 10 + i, 100 + i, i, round(before, 1), round(after, 1), times[i % 2].isoformat())
        for i, (before, after) in enumerate(values)
    ]
    history = [
        {"version": v, "match": m, "before": b, "after": a, "at": datetime.fromisoformat(at)}
        for v, _, m, _, b, a, at in points
    ]
    chart, series = rating_chart(points), rating_series(history)
    assert str(chart["script"]) == json_script(series, "rating-data")
    assert (chart["last"], chart["low"], chart["high"]) == (
        series["last"],
        series["low"],
        series["high"],
    )
    assert rating_chart([]) is None


# The rating history table's row as the template wrote it, one row per change.
HISTORY_ROW_TEMPLATE = (
    "{% load l10n arena_links %}{% localize off %}{% for h in history_rows %}\n"
    '<tr><td>{{ h.n }}</td><td>v{{ h.version }}</td><td><a href="{{ h.match|id_url:"match" }}">'
    '#{{ h.match }}</a></td><td class="num">{{ h.after }}</td><td class="num">'
    "{{ h.before|floatformat:1 }} \u2192 {{ h.after|floatformat:1 }}</td>"
    '<td>{{ h.at|date:"Y-m-d H:i" }}</td></tr>{% endfor %}{% endlocalize %}'
)


def test_the_rating_history_table_writes_what_the_template_wrote():
    history = [
        {
            "version": 1,
            "match": 5,
            "before": 1500.0,
            "after": 1512.25,
            "at": datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        },
        {
            "version": 1,
            "match": 60,
            "before": 1512.25,
            "after": 1499.95,
            "at": datetime(2026, 11, 26, 23, 59, 59, tzinfo=UTC),
        },
        {
            "version": 2,
            "match": 123456,
            "before": -0.04,
            "after": 1234567.05,
            "at": datetime(999, 12, 31, 0, 0, tzinfo=UTC),
        },
    ]
    # Halves round up as the filter's Decimal does, a rounded zero has no sign.
    for before, after in [(0.05, -2.25), (2.25, -0.05), (1e16, 7.0), (-1500.0, 1499.94999)]:
        history.append({**history[0], "before": before, "after": after})
    points = [
        (h["version"], 0, h["match"], 0, h["before"], h["after"], h["at"].isoformat())
        for h in history
    ]
    rows = latest_history(points, limit=6)
    expected = engines["django"].from_string(HISTORY_ROW_TEMPLATE).render({"history_rows": rows})
    written = history_table(rows)
    assert written == expected
    assert written.count("<tr>") == 6 and "#123456</a>" in written and "0999-12-31 00:00" in written


@pytest.mark.parametrize(
    "at",
    [
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        datetime(999, 12, 31, 23, 59, tzinfo=UTC),
        datetime(2026, 11, 28, 0, 0),
        None,
    ],
)
def test_day_and_clock_write_what_the_date_filter_wrote(at):
    template = engines["django"].from_string('{{ at|date:"Y-m-d" }}|{{ at|date:"H:i" }}')
    assert "|".join(day_and_clock(at)) == template.render({"at": at})
