"""The leaderboard's rows, written in Python rather than in a template loop: 25 rows of
a dozen values, links and interval whiskers through the template engine are most of a
cold leaderboard page."""

from __future__ import annotations

import math
from html import escape
from urllib.parse import quote

from django import template
from django.template.defaultfilters import floatformat
from django.urls import get_script_prefix, get_urlconf
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from arena.dashboard.cell_text import cell_text
from arena.dashboard.templatetags.arena_links import _around_id, id_url

register = template.Library()

LIVE = (
    ' <span class="tag" title="played since the last fit: the live Elo, until the next fit">'
    "live</span>"
)
PARENT = (
    ' <span class="tag" title="no games yet: the rating of the version it replaces, widened">'
    "from parent</span>"
)
PROVISIONAL = (
    '<span class="tag provisional" title="fewer than enough games to trust the rating">'
    "provisional</span>"
)


_text = cell_text


def _whole(value) -> str:
    """``{{ value|floatformat:0 }}``: half away from zero, no negative zero."""
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is float and math.isfinite(value):
        # A float's shortest text ends in .5 only when the float is that half exactly.
        if abs(value) % 1 == 0.5:
            return str(int(math.copysign(abs(value) + 0.5, value)))
        return str(round(value))
    return conditional_escape(floatformat(value, 0))


def _linker(name: str):
    """``id_url(pk, name)`` with the route's text looked up once for a whole table."""
    around = _around_id(name, get_script_prefix(), get_urlconf())
    if around is None:
        return lambda pk: id_url(pk, name)
    before, after = around
    return lambda pk: f"{before}{pk}{after}" if type(pk) is int else id_url(pk, name)


def _whisker(r: dict) -> str:
    w = r.get("whisker")
    if not w:
        return ""
    x1, x2 = _text(w["x1"]), _text(w["x2"])
    return (
        f'<svg class="whisker" width="{_text(w["width"])}" height="14" role="img"'
        f' aria-label="interval {_whole(r["elo_low"])} to {_whole(r["elo_high"])}">\n'
        f'<line x1="{x1}" x2="{x2}" y1="7" y2="7" stroke="#3b4257" stroke-width="2"/>\n'
        f'<line x1="{x1}" x2="{x1}" y1="3" y2="11" stroke="#3b4257"/>\n'
        f'<line x1="{x2}" x2="{x2}" y1="3" y2="11" stroke="#3b4257"/>\n'
        f'<circle cx="{_text(w["x"])}" cy="7" r="3.5" fill="#2446b8"/></svg>\n'
    )


@register.simple_tag
def board_rows(rows: list, two_sided: bool, pool: str) -> SafeString:
    """The board's table rows (``leaderboard_page.board_page``'s ``object_list``)."""
    pool_query = escape(quote(str(pool), safe="/"))
    bot_url, challenge_url = _linker("bot"), _linker("challenge-new")
    out = []
    for r in rows:
        # A missing key reads as the template engine reads it: an empty string written
        # out, None in a condition.
        def v(key, r=r):
            return r.get(key, "")

        bot, owner = _text(v("bot")), _text(v("owner"))
        estimate = r.get("estimate")
        tag = LIVE if estimate == "live" else PARENT if estimate == "parent" else ""
        interval = ""
        if r.get("elo_low") is not None:
            interval = f"{_whole(v('elo_low'))} – {_whole(v('elo_high'))}"
        if two_sided:
            record = (
                f"{_text(v('wins'))}-{_text(v('draws'))}-{_text(v('losses'))}"
                if r.get("wins") is not None
                else "–"
            )
            played = f'<td class="num">{record}</td>\n'
        else:
            rank = _text(v("average_rank")) if r.get("average_rank") is not None else "–"
            played = f'<td class="num">{rank}</td>'
        los = f"{_whole(v('los_next'))}%" if r.get("los_next") is not None else "–"
        out.append(
            f'\n<tr><td>{_text(v("position"))}</td><td><a href="{bot_url(v("bot_id"))}">'
            f"{bot}</a>\n{PROVISIONAL if r.get('provisional') else ''}"
            f'<span class="narrow-only muted"> · {owner}</span></td>\n'
            f'<td class="wide-only">v{_text(v("version"))}</td>\n'
            f'<td class="num">{_whole(v("elo"))}{tag}</td>\n'
            f'<td class="interval">{_whisker(r)}{interval}</td>\n'
            f'<td class="num">{_text(v("games"))}</td>\n'
            f"{played}\n"
            f'<td class="num">{los}</td>\n'
            f'<td class="wide-only">{owner} · <a class="challenge" href="'
            f'{challenge_url(v("bot_id"))}?pool={pool_query}" aria-label="Challenge'
            f' {bot}">challenge</a></td></tr>\n'
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped
