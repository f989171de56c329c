"""The standings, round-table and match rows written in Python equal the same rows written
as template loops (kept here as the reference), for awkward values: names to escape, no
position or version, tie-breaks with head-to-head and faults, a missing tie-break,
unplayed tables."""

from __future__ import annotations

import pytest
from django.template import Context, Template

STANDINGS_LOOP = (
    "{% load arena_links tournament_format l10n %}{% localize off %}"
    '{% for r in overview.standings %}<tr><td>{{ r.position|default:"" }}</td><td><a href="'
    '{{ r.bot_id|id_url:"bot" }}">{{ r.bot }}</a>{% if r.version %} <span class="muted '
    'wide-only">v{{ r.version }}</span>{% endif %}</td>\n<td class="num">{{ r.played }}</td>'
    '<td class="num">{{ r.points }}</td>\n{% for name in overview.tiebreaks %}<td class="num">'
    '{% if name == "head_to_head" %}·{% else %}{{ r.tiebreaks|get_item:name }}{% endif %}</td>'
    '{% endfor %}\n<td class="num wide-only">{{ r.wins }}</td><td class="num wide-only">'
    '{{ r.score }}</td>{% if "faults" not in overview.tiebreaks %}<td class="num">{{ r.faults }}'
    "</td>{% endif %}</tr>{% endfor %}{% endlocalize %}"
)
TABLES_LOOP = (
    "{% load l10n %}{% localize off %}"
    '{% for t in r.tables %}<tr><td class="num">{{ t.number }}</td><td class="table-seats">'
    '{% for s in t.seats %}<span class="seat{% if s.best %} best{% endif %}">{{ s.bot }}'
    "{% if t.played %} <b>{{ s.points }}</b>{% endif %}</span>{% if not forloop.last %}"
    '<span class="vs"> – </span>{% endif %}{% endfor %}{% if not t.played %} <span class='
    '"muted">(to play)</span>{% endif %}</td></tr>{% endfor %}{% endlocalize %}'
)


def row(position, bot, version, points, tiebreaks, **counts) -> dict:
    return {
        "position": position,
        "bot_id": 40 + (position or 0),
        "bot": bot,
        "version": version,
        "points": points,
        "tiebreaks": tiebreaks,
        "played": counts.get("played", 3),
        "wins": counts.get("wins", 1),
        "faults": counts.get("faults", 0),
        "score": counts.get("score", -12),
    }


@pytest.mark.parametrize(
    "tiebreaks", [[], ["buchholz", "head_to_head"], ["sonneborn_berger", "faults"]]
)
def test_standings_rows_equal_the_loop(tiebreaks):
    overview = {
        "tiebreaks": tiebreaks,
        "standings": [
            row(1, "<b>&\"x'</b>", 2, 2.5, {"buchholz": 4.125, "sonneborn_berger": 0.0}),
            row(2, "é ünï", None, 0.0, {"faults": 2}, played=0, wins=0, score=0),
            row(None, "unseeded", 1, 0.0, {}, faults=3),
            row(0, "zero", 0, 1.0, None),
        ],
    }
    loop = Template(STANDINGS_LOOP).render(Context({"overview": overview}))
    tag = Template("{% load tournament_format %}{% standings_rows overview %}")
    assert tag.render(Context({"overview": overview})) == loop
    assert "&lt;b&gt;&amp;&quot;x&#x27;&lt;/b&gt;" in loop


def test_round_table_rows_equal_the_loop():
    seat = {"bot_id": 1, "bot": "<a&b>", "points": "1½", "best": True}
    other = {"bot_id": 2, "bot": "b", "points": "½", "best": False}
    r = {
        "tables": [
            {"number": 1, "played": True, "seats": [seat, other]},
            {"number": 2, "played": False, "seats": [other, seat]},
            {"number": 3, "played": True, "seats": [other, other, other]},
        ]
    }
    loop = Template(TABLES_LOOP).render(Context({"r": r}))
    tag = Template("{% load tournament_format %}{% round_table_rows r %}")
    assert tag.render(Context({"r": r})) == loop
    assert "(to play)" in loop and "&lt;a&amp;b&gt;" in loop


MATCHES_LOOP = (
    "{% load arena_links l10n %}{% localize off %}"
    '{% for m in matches.rows %}<tr><td><a href="{{ m.pk|id_url:"match" }}">#{{ m.pk }}</a></td>'
    "<td>{{ m.round }}</td>{% if show_series %}<td>{{ m.series }}</td>{% endif %}\n"
    '<td><span class="status {{ m.status }}">{{ m.status }}</span></td>\n<td>'
    '{% for s in m.seat_rows %}<span class="nowrap"><a href="{{ s.version.bot_id|id_url:"bot" }}">'
    "{{ s.version.bot.name }}</a>{% if s.rank %} ({{ s.rank }}, {{ s.score }}){% endif %}"
    '{% if s.fault %} <span class="fault">fault</span>{% endif %}</span>{% if not forloop.last %}'
    " · {% endif %}{% endfor %}</td></tr>\n{% endfor %}{% endlocalize %}"
)


@pytest.mark.parametrize("show_series", [[{"series": "W1"}], [], None])
def test_match_rows_equal_the_loop(show_series):
    from types import SimpleNamespace as Row

    def seat(bot_id, name, rank, score, fault=None):
        bot = Row(pk=bot_id, name=name)
        return Row(rank=rank, score=score, fault=fault, version=Row(bot_id=bot_id, bot=bot))

    rows = [
        Row(
            pk=9,
            round=3,
            series="W<1>",
            status="finished",
            seat_rows=[seat(1, "<x&y>", 1, 12), seat(2, "b", 2, -4, {"kind": "timeout"})],
        ),
        Row(
            pk=8,
            round=3,
            series="",
            status="running",
            seat_rows=[seat(3, "c", None, None), seat(4, "d", None, None), seat(5, "e", None, 0)],
        ),
        Row(pk=7, round=1, series="L1", status="failed", seat_rows=[]),
    ]
    context = {"matches": {"rows": rows}, "show_series": show_series}
    loop = Template(MATCHES_LOOP).render(Context(context))
    tag = Template(
        "{% load tournament_format %}{% match_rows_body matches.rows show_series %}"
    ).render(Context(context))
    assert tag == loop
    assert "&lt;x&amp;y&gt;" in loop and "fault" in loop
