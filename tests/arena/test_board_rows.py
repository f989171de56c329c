"""The leaderboard's rows written in Python (``board_format.board_rows``) are the text the
template loop they replace wrote, for full, odd and sparse rows."""

from __future__ import annotations

import random

import pytest
from django.template import engines
from django.template.defaultfilters import floatformat

from arena.dashboard.leaderboard_page import with_whiskers
from arena.dashboard.templatetags.board_format import _text, _whole

# The loop as the leaderboard template wrote it.
LOOP = """{% for r in page.object_list %}
<tr><td>{{ r.position }}</td><td><a href="{% url 'bot' r.bot_id %}">{{ r.bot }}</a>
{% if r.provisional %}<span class="tag provisional" title="fewer than enough games to trust the rating">provisional</span>{% endif %}<span class="narrow-only muted"> · {{ r.owner }}</span></td>
<td class="wide-only">v{{ r.version }}</td>
<td class="num">{{ r.elo|floatformat:0 }}{% if r.estimate == "live" %} <span class="tag" title="played since the last fit: the live Elo, until the next fit">live</span>{% elif r.estimate == "parent" %} <span class="tag" title="no games yet: the rating of the version it replaces, widened">from parent</span>{% endif %}</td>
<td class="interval">{% if r.whisker %}<svg class="whisker" width="{{ r.whisker.width }}" height="14" role="img" aria-label="interval {{ r.elo_low|floatformat:0 }} to {{ r.elo_high|floatformat:0 }}">
<line x1="{{ r.whisker.x1 }}" x2="{{ r.whisker.x2 }}" y1="7" y2="7" stroke="#3b4257" stroke-width="2"/>
<line x1="{{ r.whisker.x1 }}" x2="{{ r.whisker.x1 }}" y1="3" y2="11" stroke="#3b4257"/>
<line x1="{{ r.whisker.x2 }}" x2="{{ r.whisker.x2 }}" y1="3" y2="11" stroke="#3b4257"/>
<circle cx="{{ r.whisker.x }}" cy="7" r="3.5" fill="#2446b8"/></svg>
{% endif %}{% if r.elo_low is not None %}{{ r.elo_low|floatformat:0 }} – {{ r.elo_high|floatformat:0 }}{% endif %}</td>
<td class="num">{{ r.games }}</td>
{% if two_sided %}<td class="num">{% if r.wins is not None %}{{ r.wins }}-{{ r.draws }}-{{ r.losses }}{% else %}–{% endif %}</td>
{% else %}<td class="num">{% if r.average_rank is not None %}{{ r.average_rank }}{% else %}–{% endif %}</td>{% endif %}
<td class="num">{% if r.los_next is not None %}{{ r.los_next|floatformat:0 }}%{% else %}–{% endif %}</td>
<td class="wide-only">{{ r.owner }} · <a class="challenge" href="{% url 'challenge-new' r.bot_id %}?pool={{ pool|urlencode }}" aria-label="Challenge {{ r.bot }}">challenge</a></td></tr>
{% endfor %}"""
TAG = "{% load board_format %}{% board_rows page.object_list two_sided pool %}"


def full(n: int, **extra) -> dict:
    elo = 1500.0 - 37.3 * n
    return {
        "position": n,
        "bot_id": n,
        "bot": f"bot-{n}",
        "owner": "ann",
        "version": 2,
        "elo": elo,
        "elo_low": elo - 80.5,
        "elo_high": elo + 80.5,
        "stdev": 41.0,
        "estimate": "fit",
        "games": 10 * n,
        "wins": n,
        "draws": 1,
        "losses": 2,
        "average_rank": 1.5,
        "provisional": n % 2 == 0,
        "los_next": 62.5,
        **extra,
    }


ROWS = {
    "full": with_whiskers([full(n) for n in range(1, 6)]),
    "odd": with_whiskers(
        [
            full(1, estimate="live", bot="<b>&'\"", owner="o&<", wins=None, elo=-0.4),
            full(2, estimate="parent", elo_low=None, los_next=None, average_rank=None),
            full(3, elo=2.5, elo_low=-1.5, elo_high=1e20, los_next=49.5),
        ]
    ),
    "sparse": [{"position": 1, "bot_id": 7, "bot": "b", "elo": 1500.5}],
}


@pytest.mark.parametrize("rows", list(ROWS))
@pytest.mark.parametrize("two_sided", [True, False])
@pytest.mark.parametrize("pool", ["pairs:2", "x y/z:&", None])
def test_rows_are_the_loops_text(rows, two_sided, pool):
    context = {"page": {"object_list": ROWS[rows]}, "two_sided": two_sided, "pool": pool}
    if pool is None:
        del context["pool"]
    engine = engines["django"]
    assert engine.from_string(TAG).render(context) == engine.from_string(LOOP).render(context)


def test_numbers_as_the_template_writes_them():
    rng = random.Random(5)
    values = [0.5, -0.5, 1.5, -2.5, -0.0, 0.0, 1e-7, 1e22, 3, -4]
    values += [rng.uniform(-3000, 3000) for _ in range(2000)]
    values += [rng.randint(-50, 50) + 0.5 for _ in range(200)]
    engine = engines["django"]
    plain = engine.from_string("{{ v }}")
    for value in values:
        assert _whole(value) == floatformat(value, 0), value
        assert _text(value) == plain.render({"v": value}), value
