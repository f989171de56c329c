"""Reads of leaderboards: pages of the stored rows (keyset cursors, search, positions and
the chance each row is ahead of the next), and the board computed on the spot for checks."""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, OuterRef, Q, Subquery

from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from games import registry
from tournaments.models import (
    LeaderboardRow,
    Rating,
    RatingFit,
)
from tournaments.ratings import bradley_terry as bt
from tournaments.ratings import pools
from tournaments.ratings.match import Z95
from tournaments.read_models.leaderboard_rows import ancestors, version_estimate
from tournaments.selectors.ratings import resolve_pool


def leaderboard_direct(*, game: str, pool: str | None = None) -> list[dict]:
    """The leaderboard computed from the ratings on the spot (every row, every time): what
    the read model (``LeaderboardRow``, ``leaderboard``) must equal. Tests and checks only.

    One row per bot of the game: its current version's rating in ``pool``.

    Rows carry the shown Elo with its 95% interval (``elo_low``, ``elo_high``), where
    the figure comes from (``estimate``), the live Elo, games, W-D-L (two sides) or
    the average rank (more), the likelihood of superiority over the next row, and
    whether the row is provisional (fewer than ARENA_PROVISIONAL_GAMES games).
    """
    pool = resolve_pool(game=game, pool=pool)
    bots = {bot.pk: bot for bot in Bot.objects.filter(game=game).select_related("owner")}
    current = bot_selectors.current_versions_of(bots=list(bots.values()))
    parents = dict(
        BotVersion.objects.filter(bot__game=game, parent__isnull=False).values_list(
            "pk", "parent_id"
        )
    )
    lines = set(current[b].pk for b in current)
    for version in list(lines):
        lines.update(ancestors(version, parents))
    live = {r.version_id: r for r in Rating.objects.filter(pool=pool, version_id__in=lines)}
    fitted = {f.version_id: f for f in RatingFit.objects.filter(pool=pool, version_id__in=lines)}
    rows = []
    for bot_id, version in current.items():
        bot = bots[bot_id]
        shown = version_estimate(version.pk, live=live, fitted=fitted, parents=parents)
        rating = live.get(version.pk)
        games = rating.matches if rating else 0
        two_sided = pools.parse(pool).players == 2 and not registry.get(game).teams(
            pools.parse(pool).players, pools.parse(pool).options
        )
        low, high = shown["elo"] - Z95 * shown["stdev"], shown["elo"] + Z95 * shown["stdev"]
        rows.append(
            {
                "bot_id": bot.pk,
                "bot": bot.name,
                "owner": bot.owner.username,
                "version": version.number,
                "elo": round(shown["elo"], 1),
                "elo_low": round(low, 1),
                "elo_high": round(high, 1),
                "stdev": round(shown["stdev"], 1),
                "estimate": shown["estimate"],
                "live_elo": round(rating.elo, 1) if rating else None,
                "games": games,
                "matches": games,
                "wins": rating.wins if rating and two_sided else None,
                "draws": rating.draws if rating and two_sided else None,
                "losses": rating.losses if rating and two_sided else None,
                "average_rank": (
                    round(rating.rank_total / rating.matches, 2)
                    if rating and rating.matches and not two_sided
                    else None
                ),
                "provisional": games < settings.ARENA_PROVISIONAL_GAMES,
                "_sd": shown["stdev"],
                "_elo": shown["elo"],
            }
        )
    # A new version keeps its bot's place (it starts from its parent's figure); only
    # bots with nothing rated in the pool go last.
    rows.sort(key=lambda r: (r["estimate"] == "none", -r["_elo"], r["bot"]))
    for position, row in enumerate(rows, start=1):
        row["position"] = position
        following = rows[position] if position < len(rows) else None
        # Between rated rows only: an unplayed row's figure is a placeholder.
        row["los_next"] = (
            round(
                bt.los_independent(row["_elo"], row["_sd"], following["_elo"], following["_sd"]), 1
            )
            if following and "none" not in (row["estimate"], following["estimate"])
            else None
        )
    for row in rows:
        del row["_sd"], row["_elo"]
    return rows


# ---------------------------------------------------------------- the leaderboard read model

LEADERBOARD_PAGE_SIZE = 50
LEADERBOARD_MAX_PAGE_SIZE = 200
BOARD_ORDER = ("sort_key", "bot_name")


class InvalidCursor(ValueError):
    """A leaderboard cursor this module did not write."""


@dataclass(frozen=True)
class BoardCursor:
    """A position between two rows of a board: after (or, backwards, before) the row whose
    order key is (``key``, ``name``). Opaque to clients (``encode``)."""

    key: float
    name: str
    backwards: bool = False

    def encode(self) -> str:
        raw = json.dumps([self.key, self.name, int(self.backwards)], separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> BoardCursor:
        try:
            if len(text) > 400:
                raise ValueError("too long")
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            key, name, backwards = json.loads(raw)
            if (
                not isinstance(key, int | float)
                or isinstance(key, bool)
                or not math.isfinite(key)
                or not isinstance(name, str)
                or backwards not in (0, 1)
            ):
                raise ValueError("bad fields")
        except (ValueError, TypeError, binascii.Error) as exc:
            raise InvalidCursor("not a cursor this board gave") from exc
        return cls(float(key), name, bool(backwards))


def _cursor_of(row: LeaderboardRow, *, backwards: bool = False) -> BoardCursor:
    return BoardCursor(row.sort_key, row.bot_name, backwards)


def _before(cursor: BoardCursor) -> Q:
    """Rows ahead of the cursor's row in the board's order (a range on the index first)."""
    return Q(sort_key__lte=cursor.key) & (
        Q(sort_key__lt=cursor.key) | Q(sort_key=cursor.key, bot_name__lt=cursor.name)
    )


def _after(cursor: BoardCursor) -> Q:
    return Q(sort_key__gte=cursor.key) & (
        Q(sort_key__gt=cursor.key) | Q(sort_key=cursor.key, bot_name__gt=cursor.name)
    )


def _los_next(row, following) -> float | None:
    """Between rated rows only: an unplayed row's figure is a placeholder."""
    if following is None or "none" in (row.estimate, following.estimate):
        return None
    return round(bt.los_independent(row.elo, row.stdev, following.elo, following.stdev), 1)


def _shown(row: LeaderboardRow, position: int, following) -> dict:
    """A stored row as the API and the page show it (field names fixed by the API)."""
    low, high = row.elo - Z95 * row.stdev, row.elo + Z95 * row.stdev
    return {
        "bot_id": row.bot_id,
        "bot": row.bot_name,
        "owner": row.owner_name,
        "version": row.version_number,
        "elo": round(row.elo, 1),
        "elo_low": round(low, 1),
        "elo_high": round(high, 1),
        "stdev": round(row.stdev, 1),
        "estimate": row.estimate,
        "live_elo": round(row.live_elo, 1) if row.live_elo is not None else None,
        "games": row.games,
        "matches": row.games,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "average_rank": row.average_rank,
        "provisional": row.games < settings.ARENA_PROVISIONAL_GAMES,
        "position": position,
        "los_next": _los_next(row, following),
    }


def _board(pool: str):
    return LeaderboardRow.objects.filter(pool=pool)


def _with_owner(rows):
    """The owner's name of each row read, as a subquery per returned row: the board's own
    query never joins, so it stays one range of the ``leaderboard_order`` index."""
    owner = Bot.objects.filter(pk=OuterRef("bot_id")).order_by().values("owner__username")[:1]
    return rows.annotate(owner_name=Subquery(owner))


def leaderboard(*, game: str, pool: str | None = None) -> list[dict]:
    """Every row of the game's board in ``pool`` (the standard one by default), best first.

    Rows carry the shown Elo with its 95% interval (``elo_low``, ``elo_high``), where
    the figure comes from (``estimate``), the live Elo, games, W-D-L (two sides) or
    the average rank (more), the likelihood of superiority over the next row, and
    whether the row is provisional (fewer than ARENA_PROVISIONAL_GAMES games). Read
    from the read model (``tournaments.read_models.leaderboard_rows``); lists use ``leaderboard_page``.
    """
    pool = resolve_pool(game=game, pool=pool)
    rows = list(_board(pool).annotate(owner_name=F("bot__owner__username")).order_by(*BOARD_ORDER))
    return [
        _shown(row, position, rows[position] if position < len(rows) else None)
        for position, row in enumerate(rows, start=1)
    ]


def _search(query: str) -> Q:
    owned = Bot.objects.filter(owner__username__icontains=query).values("pk")
    return Q(bot_name__icontains=query) | Q(bot_id__in=owned)


def _following(elo, stdev, estimate) -> LeaderboardRow | None:
    """The next row on the board as ``los_next`` reads it (None past the last row)."""
    return None if estimate is None else LeaderboardRow(elo=elo, stdev=stdev, estimate=estimate)


# The numbering of a board in its order: row_number and lead ignore the frame, and a frame of
# rows spares the comparison of every row's name with its neighbour's (a frame of peers,
# the default, compared them: half the walk's time).
BOARD_WINDOW = "ORDER BY sort_key, bot_name ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"


def _positions_and_next(pool: str, rows: list[LeaderboardRow]) -> dict[int, tuple]:
    """For rows found by a search: each one's position on the whole board and the row after
    it there (what ``los_next`` compares with), in one pass over the pool's index.

    The pass stops at the last found row's figure, or rather at the next figure after it
    (that row, and any tied with it, still count for its ``los_next``): rows below change
    no position above them. A search's first page (its best-placed rows) walks only the
    top of the board, not all of it (a third of 10,000 rows for ``bench-001``)."""
    table = LeaderboardRow._meta.db_table
    marks = ", ".join(["%s"] * len(rows))
    last_key = max(row.sort_key for row in rows)
    sql = (
        f"SELECT id, position, next_elo, next_stdev, next_estimate FROM ("
        f" SELECT id, row_number() OVER w AS position, lead(elo) OVER w AS next_elo,"
        f" lead(stdev) OVER w AS next_stdev, lead(estimate) OVER w AS next_estimate"
        f" FROM {table} WHERE pool = %s AND sort_key <= COALESCE("
        f"(SELECT MIN(sort_key) FROM {table} WHERE pool = %s AND sort_key > %s), %s)"
        f" WINDOW w AS ({BOARD_WINDOW})"
        f") board WHERE id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [pool, pool, last_key, last_key, *[row.pk for row in rows]])
        found = cursor.fetchall()
    return {
        pk: (position, _following(elo, stdev, estimate))
        for pk, position, elo, stdev, estimate in found
    }


def _found_in_place(
    pool: str, search: str, cursor: BoardCursor | None, limit: int
) -> list[LeaderboardRow]:
    """Up to ``limit`` rows of a search after ``cursor`` (from the top without one), in
    board order, each with its ``owner_name``, its ``position`` on the whole board, the
    row after it there (``next_elo``, ``next_stdev``, ``next_estimate``) and how many rows
    of the whole board the search finds (``matched``), in one query: the board is numbered in order and the search filters outside the numbering,
    so the walk down the pool's index stops at the last row wanted (a search's first
    page reads the board down to its last found row, once). The numbering reads only the
    columns ``leaderboard_order`` holds, so the walk is of that index alone, in its order
    (numbering whole rows, the planner sorted the whole board first); the rows found are
    then read whole by id.

    The match is the ORM's ``icontains`` as this database writes it (``_search``); on
    PostgreSQL the name's side of it, UPPER(name), is the stored ``search_name``."""
    table = LeaderboardRow._meta.db_table
    owner = Bot._meta.get_field("owner")
    users = owner.related_model._meta
    cast = connection.ops.lookup_cast("icontains", "CharField")
    like = connection.operators["icontains"]
    pattern = f"%{connection.ops.prep_for_like_query(search)}%"
    username = users.get_field("username").column

    def name(alias: str) -> str:
        # PostgreSQL: the name upper-cased once, when written (``search_name``: what
        # ``icontains`` writes, UPPER(name), kept by the database).
        if connection.vendor == "postgresql":
            return f"{alias}.search_name"
        return cast % (alias + ".bot_name")

    def found(alias: str) -> str:
        return (
            f"({name(alias)} {like} OR {alias}.bot_id IN ("
            f"SELECT o.id FROM {Bot._meta.db_table} o JOIN {users.db_table} u"
            f" ON u.{users.pk.column} = o.{owner.column} WHERE {cast % ('u.' + username)} {like}))"
        )

    after, params = "", [pool, pattern, pattern, pool, pattern, pattern]
    if cursor is not None:
        after = " AND (b.sort_key > %s OR (b.sort_key = %s AND b.bot_name > %s))"
        params += [cursor.key, cursor.key, cursor.name]
    sql = (
        f"SELECT r.*, f.position, f.next_elo, f.next_stdev, f.next_estimate, (SELECT COUNT(*)"
        f" FROM {table} c WHERE c.pool = %s AND {found('c')}) AS matched,"
        f" (SELECT u.{username} FROM {Bot._meta.db_table} o JOIN {users.db_table} u"
        f" ON u.{users.pk.column} = o.{owner.column} WHERE o.id = r.bot_id) AS owner_name"
        f" FROM (SELECT b.id, b.sort_key, b.bot_name, b.position, b.next_elo, b.next_stdev,"
        f" b.next_estimate FROM ("
        f" SELECT n.id, n.bot_id, n.sort_key, n.bot_name, n.search_name,"
        f" row_number() OVER w AS position,"
        f" lead(n.elo) OVER w AS next_elo, lead(n.stdev) OVER w AS next_stdev,"
        f" lead(n.estimate) OVER w AS next_estimate"
        f" FROM {table} n WHERE n.pool = %s WINDOW w AS ({BOARD_WINDOW})"
        f") b WHERE {found('b')}{after} ORDER BY b.sort_key, b.bot_name LIMIT %s"
        f") f JOIN {table} r ON r.id = f.id ORDER BY f.sort_key, f.bot_name"
    )
    return list(LeaderboardRow.objects.raw(sql, [*params, limit]))


def leaderboard_page(
    *,
    pool: str,
    search: str = "",
    cursor: BoardCursor | None = None,
    page_size: int = LEADERBOARD_PAGE_SIZE,
) -> dict:
    """One page of a board, keyset on (figure, name): ``rows`` as ``leaderboard`` gives
    them (positions and ``los_next`` on the whole board, searched or not), ``count`` rows
    match, and cursors for the ``next`` and ``previous`` pages (None at either end).

    Rows are read from the read model only: the page's rows plus one, a count, and the
    row after the page's last one. A search reads its rows with their positions in one
    walk down the board (``_found_in_place``); read backwards (the last page), the rows
    first, then their positions.
    """
    board = _board(pool)
    search = search.strip()
    matching = board.filter(_search(search)) if search else board
    if search and (cursor is None or not cursor.backwards):
        chunk = _found_in_place(pool, search, cursor, page_size + 1)
        more, rows = len(chunk) > page_size, chunk[:page_size]
        has_next, has_previous = more, cursor is not None
    elif cursor is None:
        chunk = list(_with_owner(matching).order_by(*BOARD_ORDER)[: page_size + 1])
        more, rows = len(chunk) > page_size, chunk[:page_size]
        has_next, has_previous = more, False
    elif not cursor.backwards:
        after = _with_owner(matching).filter(_after(cursor)).order_by(*BOARD_ORDER)
        chunk = list(after[: page_size + 1])
        more, rows = len(chunk) > page_size, chunk[:page_size]
        has_next, has_previous = more, True
    else:
        reverse = [f"-{name}" for name in BOARD_ORDER]
        before = _with_owner(matching).filter(_before(cursor)).order_by(*reverse)
        chunk = list(before[: page_size + 1])
        more, rows = len(chunk) > page_size, chunk[:page_size][::-1]
        has_previous = more
        # Read backwards from the end (the page's "last" link), nothing follows.
        if rows:
            after_last = board.filter(_after(_cursor_of(rows[-1]))).order_by(*BOARD_ORDER)
            after_last = after_last.first()
            has_next = after_last is not None
            if search and has_next:
                has_next = matching.filter(_after(_cursor_of(rows[-1]))).exists()
    if not rows:
        has_next = has_previous = False
    count = None
    shown = []
    if search and rows:
        if hasattr(rows[0], "position"):  # found in place
            placed = {
                row.pk: (row.position, _following(row.next_elo, row.next_stdev, row.next_estimate))
                for row in rows
            }
        else:
            placed = _positions_and_next(pool, rows)
        for row in rows:
            position, following = placed[row.pk]
            shown.append(_shown(row, position, following))
    elif rows:
        first = rows[0]
        if cursor is None:
            ahead, count = 0, None
        else:  # one pass over the pool's index for both counts
            counted = board.aggregate(
                ahead=Count("pk", filter=_before(_cursor_of(first))), total=Count("pk")
            )
            ahead, count = counted["ahead"], counted["total"]
        if cursor is not None and cursor.backwards:
            last_next = after_last
        else:
            last_next = chunk[page_size] if len(chunk) > page_size else None
        for index, row in enumerate(rows):
            following = rows[index + 1] if index + 1 < len(rows) else last_next
            shown.append(_shown(row, ahead + index + 1, following))
    if count is None and cursor is None and not has_next:
        count = len(rows)  # the first page holds every matching row: nothing to count
    if count is None and rows and hasattr(rows[0], "matched"):
        count = rows[0].matched  # counted with the rows found in place
    return {
        "rows": shown,
        "count": count if count is not None else matching.count(),
        "next": _cursor_of(rows[-1]) if rows and has_next else None,
        "previous": _cursor_of(rows[0], backwards=True) if rows and has_previous else None,
    }
