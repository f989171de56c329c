"""The bot page's recent matches table, written in Python: what its template loop wrote."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from django.template import engines

from arena.dashboard.bot_page import day_and_clock, matches_table

# The bot page's loop as it was in its template.
MATCH_ROW_TEMPLATE = (
    "{% load l10n arena_links %}{% localize off %}{% for r in matches %}\n"
    '<tr><td><a href="{{ r.match.pk|id_url:"match" }}">#{{ r.match.pk }}</a>{% if r.version %}'
    ' <span class="muted">v{{ r.version }}</span>{% endif %}</td>\n'
    '<td>{% if r.results_hidden %}<span class="status {{ r.match.status }}">'
    '{{ r.match.status }}</span> <span class="muted results-hidden" title="hidden until the'
    " competition's organiser releases it\">· result hidden</span>{% elif r.result %}"
    '{{ r.result }}{% else %}<span class="status {{ r.match.status }}">{{ r.match.status }}'
    '</span>{% endif %}{% if r.fault %} <span class="fault">· {{ r.fault.kind }}</span>'
    "{% endif %}</td>\n"
    '<td class="num wide-only">{{ r.rank|default_if_none:"" }}</td>\n'
    '<td>{% for s in r.opponents %}<a href="{{ s.version.bot_id|id_url:"bot" }}">'
    '{{ s.version.bot.name }}</a>{% if s.rank %} <span class="muted">({{ s.rank }})</span>'
    "{% endif %}{% if not forloop.last %}, {% endif %}{% endfor %}</td>\n"
    '<td class="wide-only">{% if r.match.tournament %}<a href="'
    '{{ r.match.tournament_id|id_url:"tournament" }}">{{ r.match.tournament.name }}</a>'
    "{% endif %}</td>\n"
    '<td><span class="nowrap">{{ r.day_and_clock.0 }}</span> {{ r.day_and_clock.1 }}</td></tr>\n'
    "{% endfor %}{% endlocalize %}"
)


def seat(bot_id: int, name: str, rank: int | None) -> SimpleNamespace:
    bot = SimpleNamespace(pk=bot_id, name=name)
    return SimpleNamespace(rank=rank, version=SimpleNamespace(number=1, bot_id=bot_id, bot=bot))


def row(pk: int, **extra) -> dict:
    tournament = extra.pop("tournament", None)
    at = extra.pop("at", datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    match = SimpleNamespace(
        pk=pk,
        id=pk,
        status=extra.pop("status", "finished"),
        tournament=tournament,
        tournament_id=tournament.pk if tournament else None,
    )
    return {
        "match": match,
        "version": 1,
        "rank": 1,
        "result": "won",
        "fault": None,
        "opponents": [seat(7, "other", 2)],
        "day_and_clock": day_and_clock(at),
        "results_hidden": False,
        **extra,
    }


def test_the_matches_table_writes_what_the_template_wrote():
    rows = [
        row(1234567, tournament=SimpleNamespace(pk=3, name='Cup <one> & "two"')),
        row(2, version=None, rank=None, result="", status="cancelled", opponents=[], at=None),
        row(3, results_hidden=True, rank=None, result="", status="finished"),
        row(4, fault={"kind": "timeout"}, result="lost", rank=2),
        row(5, fault={"detail": "no kind"}, rank=0, result="2nd of 4"),
        row(
            6,
            opponents=[seat(8, "a<b", 1), seat(9, "c&d", 0), seat(10, "e", None)],
            result="shared 1st",
            at=datetime(999, 12, 31, 23, 59, tzinfo=UTC),
        ),
    ]
    expected = engines["django"].from_string(MATCH_ROW_TEMPLATE).render({"matches": rows})
    written = matches_table(rows)
    assert written == expected
    assert written.count("<tr>") == 6 and "a&lt;b" in written and "0999-12-31" in written
    assert matches_table([]) == ""
