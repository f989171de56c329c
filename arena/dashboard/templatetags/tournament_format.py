"""Labels for the tournament page: tie-break names, bracket stages, lookups by key."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from arena.dashboard.cell_text import cell_text
from arena.dashboard.templatetags.arena_links import id_url
from tournaments.selectors.exports import tiebreak_label as _tiebreak_label

register = template.Library()

# Narrow screens: short column heads, the full name in the abbreviation's title.
TIEBREAK_SHORT = {
    "buchholz": "Bh",
    "sonneborn_berger": "SB",
    "head_to_head": "H2H",
    "faults": "Flt",
}
STAGE_LABELS = {
    "winners": "Winners' bracket",
    "losers": "Losers' bracket",
    "final": "Grand final",
    "third_place": "Third place",
}


@register.filter
def tiebreak_label(name: str) -> str:
    return _tiebreak_label(name)


@register.filter
def tiebreak_short(name: str) -> str:
    return TIEBREAK_SHORT.get(name, name[:3])


@register.filter
def stage_label(name: str) -> str:
    return STAGE_LABELS.get(name, name)


@register.filter
def get_item(mapping: dict | None, key):
    """``mapping[key]``, or an empty string when it is missing."""
    return (mapping or {}).get(key, "")


def _text(value) -> str:
    """A value as ``{{ value }}`` writes it under ``{% localize off %}``."""
    return cell_text(value, use_l10n=False)


@register.simple_tag
def standings_rows(overview: dict) -> SafeString:
    """The standings table's rows, written here rather than in a template loop: a large
    table through the template engine (13 values a row) is most of a cold standings page."""
    tiebreaks = overview["tiebreaks"]
    faults_column = "faults" not in tiebreaks
    out = []
    for r in overview["standings"]:
        version = (
            f' <span class="muted wide-only">v{_text(r["version"])}</span>' if r["version"] else ""
        )
        values = r["tiebreaks"] or {}
        cells = "".join(
            f'<td class="num">{"·" if name == "head_to_head" else _text(values.get(name, ""))}</td>'
            for name in tiebreaks
        )
        # None (a competition's held results: tournaments.release) shows as an empty cell.
        num = {k: _text("" if r[k] is None else r[k]) for k in ("played", "points", "wins")}
        num |= {k: _text("" if r[k] is None else r[k]) for k in ("score", "faults")}
        faults = f'<td class="num">{num["faults"]}</td>' if faults_column else ""
        out.append(
            f'<tr><td>{_text(r["position"] or "")}</td><td><a href="{_text(id_url(r["bot_id"], "bot"))}">'
            f"{_text(r['bot'])}</a>{version}</td>\n"
            f'<td class="num">{num["played"]}</td><td class="num">{num["points"]}</td>\n'
            f"{cells}\n"
            f'<td class="num wide-only">{num["wins"]}</td><td class="num wide-only">'
            f"{num['score']}</td>{faults}</tr>"
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


VS = '<span class="vs"> – </span>'


@register.simple_tag
def round_table_rows(round_: dict) -> SafeString:
    """A round's table rows (``tournament_page._round_tables``), written here rather than in
    a template loop: a Swiss of 64 has 224 tables of two seats."""
    out = []
    for t in round_["tables"]:
        seats = []
        for s in t["seats"]:
            best = " best" if s["best"] else ""
            points = " <b>" + _text(s["points"]) + "</b>" if t["played"] else ""
            seats.append(f'<span class="seat{best}">{_text(s["bot"])}{points}</span>')
        to_play = "" if t["played"] else ' <span class="muted">(to play)</span>'
        out.append(
            f'<tr><td class="num">{_text(t["number"])}</td><td class="table-seats">'
            f"{VS.join(seats)}{to_play}</td></tr>"
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


@register.simple_tag
def match_rows_body(rows: list, show_series) -> SafeString:
    """A page of matches' rows (``tournament_page.match_page``: rows with ``seat_rows``),
    written here rather than in a template loop: 50 rows of two seats, on every standings
    and ladder page."""
    out = []
    for m in rows:
        series = f"<td>{_text(m.series)}</td>" if show_series else ""
        seats = []
        for s in m.seat_rows:
            placed = f" ({_text(s.rank)}, {_text(s.score)})" if s.rank else ""
            fault = ' <span class="fault">fault</span>' if s.fault else ""
            seats.append(
                f'<span class="nowrap"><a href="{_text(id_url(s.version.bot_id, "bot"))}">'
                f"{_text(s.version.bot.name)}</a>{placed}{fault}</span>"
            )
        out.append(
            f'<tr><td><a href="{_text(id_url(m.pk, "match"))}">#{_text(m.pk)}</a></td>'
            f"<td>{_text(m.round)}</td>{series}\n"
            f'<td><span class="status {_text(m.status)}">{_text(m.status)}</span></td>\n'
            f"<td>{' · '.join(seats)}</td></tr>\n"
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped
