"""The marks cached reads are stored under (``tournaments.readcache``): the fields that move
in the same transaction as anything those reads show, read in one narrow query.

Only what cannot change without moving them is marked here; anything else is None
(read fresh):

- a finished tournament: its results, entries, standings, bracket and matches change
  only through a result taken back or re-run, which bumps ``results_version`` and puts it
  back to running (``requeue_failed_match``); what of them shows changes with the release
  level of the competition it is the final of, in its mark too; a running one's match counts change as
  matches are claimed, with no mark of their own, so it is not cached;
- a finished match: its seats, result, moves and record are written once, with its
  status. Bot names and version numbers, which both show, never change. Whether a spectator
  sees its whole record (``tournaments.visibility``) is in its mark too, and whether a
  competition holds its outcome back (``tournaments.release``; a change of a competition's
  release level makes every stored read unreachable: ``forget_after_release_change``);
- a ladder's matches (its page, live part and matches API): every column of the ladder's
  row, its counters and ``LadderCount.changes``, which a trigger moves with every write
  of a match or seat column those reads show (migration 0010_ladder_changes). No counter
  row yet: not cached;
- the tournament list (API, page, home page): ``ReadVersion('tournaments')``, which
  triggers move with every write of a tournament column, an entry or a username the list
  shows (migration 0011_read_versions);
- the bot list page: ``ReadVersion('bots')``, moved with every write of a bot's name,
  game, owner or date and of a username (migration 0012_bot_list_version);
- a bot's page: ``ReadVersion('bot:<id>')``, moved with every write of the bot, its
  versions, its gates and its matches' shown columns and seats (migration
  0013_bot_page_version), with the tournament list's mark (tournament names show);
- a bot's API reads (the bot, its versions, its gating and gates): the same
  ``ReadVersion('bot:<id>')`` alone;
- the bot list API: ``ReadVersion('bots:api')``, moved with every write of a bot column a
  row shows, of a version's bot, number, status or verdict (the current version), and of
  a username (migration 0014_bot_list_api_version).
"""

from __future__ import annotations

from django.db import connection

from bots.models import Bot, BotVersion
from tournaments import visibility
from tournaments.models import Competition, Ladder, LadderCount, Match, ReadVersion, Tournament


def _row(sql: str, params: list):
    # Mark reads are written out: the ORM's building of a query costs several times the
    # query itself, most of a stored answer's time.
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def finished_tournament_mark(*, pk: int) -> tuple | None:
    # With the release level of the competition it is the final of, if any (whether its
    # results are held back: tournaments.release).
    row = _row(
        "SELECT t.status, t.results_version, t.finished_at,"
        f" (SELECT c.release FROM {Competition._meta.db_table} c WHERE c.final_id = t.id)"
        f" FROM {Tournament._meta.db_table} t WHERE t.id = %s",
        [pk],
    )
    if row is None or row[0] != Tournament.Status.FINISHED:
        return None
    status, results_version, finished_at, level = row
    return ("tournament", pk, status, results_version, _plain([finished_at or ""])[0], level)


def finished_match_mark(*, pk: int) -> tuple | None:
    """A finished match's mark, with whether its whole record is everyone's yet (its
    tournament ending, or the last game of its deal finishing, makes it so: the answers
    a spectator had while it was hidden are not theirs any more): one query."""
    found = visibility.read_exposure(pk=pk, columns=("attempts", "finished_at"))
    if found is None or found[0].status != Match.Status.FINISHED:
        return None
    exposure, (attempts, finished_at) = found
    finished = _plain([finished_at or ""])[0]
    return ("match", pk, exposure.status, attempts, finished, exposure.public, exposure.held)


LADDER_COUNTS = ("scheduled", "queued", "running", "finished", "failed", "cancelled", "changes")


def _ladder_sql(where: str, join: str = "JOIN") -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(f"l.{quote(f.column)}" for f in Ladder._meta.concrete_fields)
    counts = ", ".join(f"c.{name}" for name in LADDER_COUNTS)
    return (
        f"SELECT {columns}, {counts} FROM {Ladder._meta.db_table} l"
        f" {join} {LadderCount._meta.db_table} c ON c.ladder_id = l.id {where}"
    )


def _plain(row) -> tuple:
    return tuple(v.isoformat() if hasattr(v, "isoformat") else v for v in row)


def ladder_mark(*, pk: int) -> tuple | None:
    """The mark of a ladder's page, API and match lists, in one query: every column of
    its row and its counters; None when there is no such ladder or no counter row (then
    the read is built, and 404s, as usual)."""
    row = _row(_ladder_sql("WHERE l.id = %s"), [pk])
    return None if row is None else ("ladder", *_plain(row))


def ladders_mark() -> tuple | None:
    """The mark of the ladder list: every ladder's ``ladder_mark``, in one query (a
    ladder per game and seat count: a few rows); None while a ladder has no counter row."""
    with connection.cursor() as cursor:
        cursor.execute(_ladder_sql("ORDER BY l.id", join="LEFT JOIN"))
        rows = cursor.fetchall()
    if any(row[-1] is None for row in rows):  # no counter row: its changes are not kept
        return None
    return ("ladders", *(_plain(row) for row in rows))


def _read_mark(name: str) -> tuple | None:
    row = _row(f"SELECT changes FROM {ReadVersion._meta.db_table} WHERE name = %s", [name])
    return None if row is None else (name, row[0])


def tournament_list_mark() -> tuple | None:
    """The mark of every tournament list (any filter or page); None without its row."""
    return _read_mark("tournaments")


def bot_list_mark() -> tuple | None:
    """The mark of the bot list page (any search or page); None without its row."""
    return _read_mark("bots")


def bot_list_api_mark() -> tuple | None:
    """The mark of the bot list API (any filter or page); None without its row."""
    return _read_mark("bots:api")


def bot_game(*, pk: int) -> str | None:
    """A bot's game (what its rating reads are marked by: the game's board token); None
    when there is no such bot."""
    row = _row(f"SELECT game FROM {Bot._meta.db_table} WHERE id = %s", [pk])
    return None if row is None else row[0]


# One narrow statement (written out, as every mark read here).
BOT_PAGE_MARK = (
    "SELECT b.game, (SELECT changes FROM {marks} WHERE name = %s),"
    " (SELECT changes FROM {marks} WHERE name = 'tournaments') FROM {bots} b WHERE b.id = %s"
)


def bot_page_mark(*, pk: int) -> tuple | None:
    """The mark of a bot's page, in one query: its ``ReadVersion('bot:<id>')`` (none yet
    reads as 0: the first write makes it), the tournament list's (tournament names show),
    and the bot's game (for its ratings mark). None when there is no such bot (or no
    tournament list row): then the page is built as usual."""
    sql = BOT_PAGE_MARK.format(marks=ReadVersion._meta.db_table, bots=Bot._meta.db_table)
    row = _row(sql, [f"bot:{pk}", pk])
    if row is None or row[2] is None:
        return None
    game, page, lists = row
    return ("bot", pk, game, page or 0, lists)


BOT_API_MARK = "SELECT (SELECT changes FROM {marks} WHERE name = %s) FROM {bots} b WHERE b.id = %s"


def bot_api_mark(*, pk: int) -> tuple | None:
    """The mark of a bot's API reads (the bot, its versions, its gating), in one query:
    its ``ReadVersion('bot:<id>')`` (none yet reads as 0). None when there is no such bot
    (then the read is built, and 404s, as usual)."""
    sql = BOT_API_MARK.format(marks=ReadVersion._meta.db_table, bots=Bot._meta.db_table)
    row = _row(sql, [f"bot:{pk}", pk])
    return None if row is None else ("bot-api", pk, row[0] or 0)


BOT_VERSION_API_MARK = (
    "SELECT v.bot_id, (SELECT changes FROM {marks} WHERE name = 'bot:' || v.bot_id)"
    " FROM {bot_versions} v WHERE v.id = %s"
)


def bot_version_api_mark(*, pk: int) -> tuple | None:
    """The mark of a bot version's API read, in one query: its bot's
    ``ReadVersion('bot:<id>')`` (every write of the bot's row or versions moves it). None
    when there is no such version."""
    sql = BOT_VERSION_API_MARK.format(
        marks=ReadVersion._meta.db_table, bot_versions=BotVersion._meta.db_table
    )
    row = _row(sql, [pk])
    return None if row is None else ("version-api", pk, row[0], row[1] or 0)
