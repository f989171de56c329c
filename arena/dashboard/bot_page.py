"""The bot page's recent matches, arranged for reading: result, rank, opponents, tournament."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace

from django.db.models import QuerySet
from django.template.defaultfilters import floatformat
from django.template.loader import render_to_string
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.timezone import template_localtime

from arena.dashboard.cell_text import cell_text
from arena.dashboard.charts import point_time, rating_chart
from arena.dashboard.templatetags.arena_links import id_url
from bots.models import Bot, BotVersion
from tournaments import readcache, release, selectors
from tournaments.models import MatchSeat
from tournaments.ratings import pools
from tournaments.readcache import marks
from tournaments.selectors import challenges as challenge_selectors
from tournaments.selectors import human_games as human_game_selectors


def result_text(rank: int | None, ranks: list[int]) -> str:
    """``won``, ``lost``, ``draw``, or ``2nd of 4`` for a table of more than two."""
    if rank is None:
        return ""
    shared = ranks.count(rank) > 1
    if len(ranks) == 2:
        return "draw" if shared else ("won" if rank == 1 else "lost")
    if rank == 1:
        return "shared 1st" if shared else "won"
    suffix = {2: "nd", 3: "rd"}.get(rank, "th")
    return f"{'shared ' if shared else ''}{rank}{suffix} of {len(ranks)}"


HISTORY_ROWS = 50
RECENT_FIELDS = (
    "status",
    "queued_at",
    "started_at",
    "finished_at",
    "tournament_id",
    "tournament__name",
)


def latest_history(points: list[tuple], *, limit: int = HISTORY_ROWS) -> list[dict]:
    """The last ``limit`` rating changes of ``points`` (``selectors.rating_points``, oldest
    first), newest first, each with its number (1 = the first of ``points``)."""
    start = max(0, len(points) - limit)
    return [
        {
            "n": start + i + 1,
            "version": v,
            "match": m,
            "before": b,
            "after": a,
            "at": point_time(at),
        }
        for i, (v, _, m, _, b, a, at) in enumerate(points[start:])
    ][::-1]


TENTH = Decimal("0.1")


def one_decimal(value) -> str:
    """What ``floatformat:1`` writes for ``value`` (the ``Decimal`` of its text rounded half
    up, no grouping, no sign on a zero), without the filter's settings look-ups per call;
    anything but a finite float of a rating's size goes through the filter itself."""
    if type(value) is not float or not math.isfinite(value) or abs(value) >= 1e15:
        return floatformat(value, 1)
    rounded = Decimal(repr(value)).quantize(TENTH, ROUND_HALF_UP)
    return f"{abs(rounded) if not rounded else rounded:f}"


def day_and_clock(at) -> tuple[str, str]:
    """What the ``date:"Y-m-d"`` and ``date:"H:i"`` filters write for ``at`` (in the
    current time zone; empty for None), without their formatter object per call."""
    if at is None:
        return "", ""
    at = template_localtime(at)
    return f"{at.year:04d}-{at.month:02d}-{at.day:02d}", f"{at.hour:02d}:{at.minute:02d}"


def history_table(rows: list[dict]) -> str:
    """The rating history table's rows (``latest_history``) as HTML, each on a line of its
    own: written here with the filters the template would apply (numbers not localized,
    the date in the current time zone), since the template loop cost most of the page's
    first build."""

    def plain(value) -> str:
        return cell_text(value, use_l10n=False)

    def minute(at) -> str:
        return " ".join(day_and_clock(at))

    return "".join(
        f"\n<tr><td>{plain(h['n'])}</td><td>v{plain(h['version'])}</td>"
        f'<td><a href="{conditional_escape(id_url(h["match"], "match"))}">#{plain(h["match"])}'
        f'</a></td><td class="num">{plain(h["after"])}</td><td class="num">'
        f"{one_decimal(h['before'])} → {one_decimal(h['after'])}</td>"
        f"<td>{minute(h['at'])}</td></tr>"
        for h in rows
    )


def matches_table(rows: list[dict]) -> str:
    """The recent matches table's rows (``recent_match_rows``) as HTML, each on a line of
    its own: written here as the template wrote them (numbers not localized), since that
    loop and its nested one over opponents were a large part of the page's first build."""

    def plain(value) -> str:
        return cell_text(value, use_l10n=False)

    def status(match) -> str:
        return f'<span class="status {plain(match.status)}">{plain(match.status)}</span>'

    def opponent(seat) -> str:
        rank = f' <span class="muted">({plain(seat.rank)})</span>' if seat.rank else ""
        href = conditional_escape(id_url(seat.version.bot_id, "bot"))
        return f'<a href="{href}">{plain(seat.version.bot.name)}</a>{rank}'

    lines = []
    for r in rows:
        match = r["match"]
        version = f' <span class="muted">v{plain(r["version"])}</span>' if r["version"] else ""
        if r["results_hidden"]:
            result = (
                f'{status(match)} <span class="muted results-hidden" title="hidden until the'
                " competition's organiser releases it\">· result hidden</span>"
            )
        else:
            result = plain(r["result"]) if r["result"] else status(match)
        if fault := r["fault"]:
            kind = fault.get("kind", "") if isinstance(fault, dict) else getattr(fault, "kind", "")
            result += f' <span class="fault">· {plain(kind)}</span>'
        rank = "" if r["rank"] is None else plain(r["rank"])
        tournament = ""
        if match.tournament:
            href = conditional_escape(id_url(match.tournament_id, "tournament"))
            tournament = f'<a href="{href}">{plain(match.tournament.name)}</a>'
        day, clock = r["day_and_clock"]
        lines.append(
            f'\n<tr><td><a href="{conditional_escape(id_url(match.pk, "match"))}">'
            f"#{plain(match.pk)}</a>{version}</td>\n<td>{result}</td>\n"
            f'<td class="num wide-only">{rank}</td>\n'
            f"<td>{', '.join(opponent(s) for s in r['opponents'])}</td>\n"
            f'<td class="wide-only">{tournament}</td>\n'
            f'<td><span class="nowrap">{plain(day)}</span> {plain(clock)}</td></tr>\n'
        )
    return "".join(lines)


def with_sections(bots: QuerySet[Bot]) -> QuerySet[Bot]:
    """``bots`` with whether each has challenges, games against people and version gates
    (``has_challenges``, ``has_people_games``, ``has_gates``), in the bots' own query: the
    page reads each of those lists only when it has a row, and most bots have none."""
    return bots.annotate(
        has_challenges=challenge_selectors.bot_has_challenges(),
        has_people_games=human_game_selectors.bot_has_games_against_people(),
        has_gates=selectors.bot_has_gates(),
    )


def recent_match_rows(
    *,
    bot_id: int,
    with_cancelled: bool,
    limit: int = 30,
    user=None,
    version_ids: list[int] | None = None,
) -> tuple[list, int]:
    """The bot's latest matches, newest first, and how many cancelled ones were left out;
    a match whose outcome a competition holds back from ``user`` shows without it.
    ``version_ids``: the bot's versions, when the caller has them."""
    # The newest match ids from the bot's seats (narrow rows, no DISTINCT over whole
    # matches), then every seat of those matches with the columns the rows show.
    # Games against people have their own list (selectors.human_games).
    if version_ids is None:
        version_ids = list(BotVersion.objects.filter(bot_id=bot_id).values_list("pk", flat=True))
    ids, hidden = selectors.newest_match_ids(
        version_ids=version_ids, limit=limit, with_cancelled=with_cancelled
    )
    # Plain rows in one query (each match has a seat of this bot, so none is missed):
    # model instances of the matches, their tournaments and seats with versions and bots
    # would be most of the page's build.
    found = (
        MatchSeat.objects.filter(match_id__in=ids)
        .annotate(may_be_held=release.may_be_held("match__"))
        .order_by("-match_id", "seat")
        .values_list(
            "match_id",
            *(f"match__{name}" for name in RECENT_FIELDS),
            # Whether a competition holds its result back: set at creation, never changed.
            "match__competition_id",
            "rank",
            "fault",
            "version__number",
            "version__bot_id",
            "version__bot__name",
            "may_be_held",
        )
    )
    by_match: dict[int, tuple[SimpleNamespace, list[SimpleNamespace]]] = {}
    any_held = False
    for (
        match_id,
        status,
        queued,
        started,
        finished,
        tid,
        tname,
        cid,
        rank,
        fault,
        number,
        bot,
        name,
        may_be_held,
    ) in found:
        any_held |= may_be_held
        if match_id not in by_match:
            tournament = None if tid is None else SimpleNamespace(pk=tid, name=tname)
            match = SimpleNamespace(
                pk=match_id,
                id=match_id,
                status=status,
                queued_at=queued,
                started_at=started,
                finished_at=finished,
                tournament_id=tid,
                tournament=tournament,
                competition_id=cid,
            )
            by_match[match_id] = (match, [])
        version = SimpleNamespace(number=number, bot_id=bot, bot=SimpleNamespace(pk=bot, name=name))
        by_match[match_id][1].append(SimpleNamespace(rank=rank, fault=fault, version=version))
    # Which are hidden from ``user`` is read only when a competition could hold one back.
    held = (
        release.hidden_match_ids(matches=[m for m, _ in by_match.values()], user=user)
        if any_held
        else set()
    )
    rows = []
    for match, seats in by_match.values():
        if match.pk in held:  # no rank, fault or result of its seats (tournaments.release)
            seats = [SimpleNamespace(rank=None, fault=None, version=s.version) for s in seats]
        mine = [s for s in seats if s.version.bot_id == bot_id]
        ranks = [s.rank for s in seats if s.rank is not None]
        me = mine[0] if mine else None
        rows.append(
            {
                "match": match,
                "version": me.version.number if me else None,
                "rank": me.rank if me else None,
                "result": result_text(me.rank, ranks) if me and len(ranks) == len(seats) else "",
                "fault": me.fault if me else None,
                "opponents": [s for s in seats if s.version.bot_id != bot_id],
                "when": (when := match.finished_at or match.started_at or match.queued_at),
                # The date column's two parts, written once here rather than by the
                # template's date filter per cell.
                "day_and_clock": day_and_clock(when),
                "results_hidden": match.pk in held,
            }
        )
    return rows, hidden


def page_mark(*, bot_id: int) -> tuple | None:
    """The mark of the whole page as an anonymous reader sees it: the bot's page mark
    (``marks.bot_page_mark``: its rows, versions, gates, matches, tournament names)
    and its game's ratings mark (the rating parts). None, so built as usual, when either
    has none (no such bot; a cache not shared with the rating writers)."""
    page = marks.bot_page_mark(pk=bot_id)
    ratings = readcache.board_mark(page[2]) if page is not None else None
    return None if ratings is None else (*page, *ratings)


def rating_parts(*, bot: Bot, versions: list[BotVersion]) -> dict:
    """The page's rating history (chart and table) and head-to-head table, rendered: the
    same for every reader, so stored under the game's ratings version (moved after every
    write of ratings, ``tournaments.read_models.leaderboard_rows.lock_game``) and the bot's versions; that
    version is read before any rating row. ``chart``: whether the page needs its script."""
    parts = readcache.board_mark(bot.game)
    if parts is not None:
        parts = (*parts, bot.pk, bot.game, tuple(v.pk for v in versions))
    stored = readcache.fragment("bot-ratings", parts, lambda: _rating_parts(bot, versions))
    return {
        **stored,
        "history": mark_safe(stored["history"]),
        "head_to_head": mark_safe(stored["head_to_head"]),
    }


def _rating_parts(bot: Bot, versions: list[BotVersion]) -> dict:
    counts = selectors.rated_matches_by_pool(bot=bot)
    played = selectors.rating_pools_of_bot(bot=bot, counts=counts)
    pool = played[0] if played else pools.default_pool(bot.game)
    points = selectors.rating_points(bot=bot, pool=pool, numbers={v.pk: v.number for v in versions})
    chart = rating_chart(points)
    context = {
        "bot": bot,
        "points": len(points),
        "rated_total": counts.get(pool, 0) if points else 0,
        # The table lists the latest changes only (the chart draws every one):
        # rendering hundreds of rows is most of a busy bot's page.
        "history_rows": (rows := latest_history(points)),
        "history_table": mark_safe(history_table(rows)),
        "chart": chart,
        "met": selectors.opponents_met(bot=bot, pool=pool),
    }
    return {
        "history": render_to_string("arena/_bot_rating_history.html", context).rstrip("\n"),
        "head_to_head": render_to_string("arena/_bot_head_to_head.html", context).rstrip("\n"),
        "chart": bool(chart),
    }
