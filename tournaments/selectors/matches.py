"""Reads of matches: detail, lists, seat logs, reproduction and replays."""

from __future__ import annotations

import json
import shlex
from types import SimpleNamespace

from django.core.cache import cache
from django.db import connection
from django.db.models import Prefetch, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable

from bots.cli import option_text
from bots.models import Bot, BotVersion
from games import registry
from tournaments import visibility
from tournaments.models import (
    Ladder,
    LadderCount,
    Match,
    MatchSeat,
    Tournament,
)
from tournaments.read_models import replays
from tournaments.readcache.replay_answers import REPLAY_CACHE_SECONDS, replay_cache_key


def public_seats() -> Prefetch:
    """A match's seats without their logs (nor their versions' uploads): what every page and
    list may load."""
    # Only what the pages, lists and reproduce commands read: whole bot and version rows
    # cost most of a list page's time in building model instances.
    seats = MatchSeat.objects.select_related("version__bot", "user").only(*SEAT_FIELDS)
    # Meta's ("match", "seat") orders by the match's own ordering: a join of every match
    # row for the same order of seats within each match.
    seats = seats.order_by("match_id", "seat")
    return Prefetch("seats", queryset=seats)


SEAT_FIELDS = (
    "match_id",
    "seat",
    "score",
    "rank",
    "fault",
    "version__number",
    "version__kind",
    "version__bot_id",
    "version__bot__name",
    "version__bot__owner_id",
    "policy",
    "user_id",
    "user__username",
)


# What lists leave out of a match: its two big columns (read by the detail and replays).
LIST_DEFERRED = ("moves", "record")
# A list row's columns, every other one: what the API's rows, the reproduce commands and
# the visibility and release rules read of a match.
ROW_COLUMNS = tuple(f.attname for f in Match._meta.concrete_fields if f.name not in LIST_DEFERRED)


class MatchRow:
    """A match of a list as a plain row of ``ROW_COLUMNS``, read as an instance is
    (``pk``, ``seats.all()``): the visibility and release rules, the reproduce commands and
    the API's rows take either. A page of 50 built as model instances, with their seats,
    versions and bots, costs most of the list's first read."""

    __slots__ = (*ROW_COLUMNS, "seats")

    def __init__(self, values: tuple):
        for name, value in zip(ROW_COLUMNS, values, strict=True):
            setattr(self, name, value)
        self.seats = SeatRows()

    @property
    def pk(self) -> int:
        return self.id


class SeatRows(list):
    """A row's seats, in seat order; ``all()`` as a related manager's."""

    def all(self) -> SeatRows:
        return self


class SeatRow:
    """A seat of a ``MatchRow``, with the model's own rules of who plays and owns it."""

    __slots__ = ("seat", "score", "rank", "fault", "policy", "version_id", "version")
    __slots__ += ("user_id", "user")

    player_name = MatchSeat.player_name
    player_kind = MatchSeat.player_kind
    owned_by = MatchSeat.owned_by


def _seat_rows_sql(count: int) -> str:
    """The seats of ``count`` matches with the columns of a ``SeatRow`` (no log, no
    upload), in seat order: written out, as the read caches' marks are (building it with
    the ORM costs more than running it)."""
    seats, versions = MatchSeat._meta, BotVersion._meta
    bots, users = Bot._meta, MatchSeat._meta.get_field("user").related_model._meta
    return (
        "SELECT s.match_id, s.seat, s.score, s.rank, s.fault, s.policy, s.user_id,"
        " u.username, s.version_id, v.number, v.kind, v.bot_id, b.name, b.owner_id"
        f" FROM {seats.db_table} s LEFT JOIN {users.db_table} u ON u.id = s.user_id"
        f" LEFT JOIN {versions.db_table} v ON v.id = s.version_id"
        f" LEFT JOIN {bots.db_table} b ON b.id = v.bot_id"
        f" WHERE s.match_id IN ({', '.join(['%s'] * count)}) ORDER BY s.match_id, s.seat"
    )


class MatchRowIterable(ValuesListIterable):
    """A queryset's matches as ``MatchRow`` (its ``values_list`` of ``ROW_COLUMNS``)."""

    def __iter__(self):
        return map(MatchRow, super().__iter__())


def as_rows(queryset: QuerySet) -> QuerySet:
    """``queryset`` of matches yielding ``MatchRow`` (still filtered, ordered and sliced as
    a queryset); ``with_seats`` reads their seats once a page is taken."""
    rows = queryset.prefetch_related(None).values_list(*ROW_COLUMNS)
    rows._iterable_class = MatchRowIterable
    return rows


def with_seats(rows: list[MatchRow]) -> list[MatchRow]:
    """``rows`` with their seats (``SeatRow``, no logs), read in one query."""
    by_id = {row.id: row for row in rows}
    if not by_id:
        return rows
    with connection.cursor() as cursor:
        cursor.execute(_seat_rows_sql(len(by_id)), list(by_id))
        found = cursor.fetchall()
    fault_of = MatchSeat._meta.get_field("fault").from_db_value
    for values in found:
        (match_id, seat_number, score, rank, fault, policy, user_id, username) = values[:8]
        version_id, number, kind, bot_id, bot_name, owner_id = values[8:]
        seat = SeatRow()
        seat.seat, seat.score, seat.rank = seat_number, score, rank
        seat.fault = fault_of(fault, None, connection)
        seat.policy, seat.user_id, seat.version_id = policy, user_id, version_id
        seat.user = None if user_id is None else SimpleNamespace(username=username)
        seat.version = None
        if version_id is not None:
            bot = SimpleNamespace(pk=bot_id, name=bot_name, owner_id=owner_id)
            seat.version = SimpleNamespace(
                pk=version_id, number=number, kind=kind, bot_id=bot_id, bot=bot
            )
        by_id[match_id].seats.append(seat)
    return rows


def match_detail(*, pk: int) -> Match:
    """One match with its seats (logs left out: see ``seat_logs``); DoesNotExist if none.
    Its moves and record load on first use: a cached page may never need them."""
    qs = Match.objects.select_related("tournament", "competition")
    qs = qs.prefetch_related(public_seats())
    return qs.defer("moves", "record").get(pk=pk)


# Bumped when the match page's text log renders differently (its cached fragments).
MATCH_LOG_VERSION = 1


def match_log_cache(*, match: Match, seat: int | None) -> tuple[str, int]:
    """The cache key and lifetime of the match page's text log (events and moves) as
    ``seat`` sees it: a finished match's never changes; an unfinished one's is not kept
    (lifetime 0)."""
    key = f"{replay_cache_key(match=match, seat=seat)}:log:{MATCH_LOG_VERSION}"
    return key, REPLAY_CACHE_SECONDS if match.status == Match.Status.FINISHED else 0


def owned_seats(*, match: Match, user) -> set[int]:
    """The seats of ``match`` whose bot ``user`` owns (none for an anonymous visitor)."""
    if user is None or not user.is_authenticated:
        return set()
    return {s.seat for s in match.seats.all() if s.owned_by(user.id)}


def seat_logs(*, match: Match, user) -> dict[int, str]:
    """The stderr logs of the seats ``user`` owns: a bot's log is its owner's alone."""
    seats = owned_seats(match=match, user=user)
    if not seats:
        return {}
    rows = MatchSeat.objects.filter(match=match, seat__in=seats).values_list("seat", "log")
    return dict(rows)


def seat_fault_details(*, match: Match, user) -> dict[int, str]:
    """What the bots ``user`` owns wrote that shows why they faulted (``fault_detail``): a
    bot's owner's alone, like its log."""
    seats = owned_seats(match=match, user=user)
    if not seats:
        return {}
    rows = MatchSeat.objects.filter(match=match, seat__in=seats)
    return dict(rows.values_list("seat", "fault_detail"))


def reproduce(*, match: Match, user, export_url: str) -> dict:
    """The commands that play ``match`` again locally, as ``user`` can run them.

    Every seat needs a bot file: the reader's own bots by the name of the file they
    uploaded (theirs to download); another's bot is named after it, to be replaced by its
    owner's file or, for a close but not exact game, a built-in bot such as ``random``.
    ``replay`` needs only the reader's own files: the other seats play their recorded moves.
    """
    yours = owned_seats(match=match, user=user)
    files = []
    for seat in match.seats.all():
        version = seat.version
        if version is None:  # a game against people: a built-in bot, or the person
            files.append(
                {
                    "seat": seat.seat, "bot": seat.player_name, "version": None,
                    # A person's moves can only be replayed: "random" stands in for play.
                    "file": seat.policy or "random", "yours": False, "source": None,
                }
            )  # fmt: skip
            continue
        extension = "." + version.kind if version.kind else ""
        files.append(
            {
                "seat": seat.seat,
                "bot": version.bot.name,
                "version": version.number,
                "file": f"{version.bot.name}-v{version.number}{extension}",
                "yours": seat.seat in yours and seat.version_id is not None,
                "source": f"/api/versions/{version.pk}/source/" if seat.seat in yours else None,
            }
        )
    play = ["python", "manage.py", "play", match.game, *[f["file"] for f in files]]
    play += ["--seed", str(match.seed)]
    for name, value in sorted((match.options or {}).items()):
        play += ["--option", f"{name}={option_text(value)}"]
    play += ["--move-ms", str(match.move_ms), "--bank-ms", str(match.bank_ms)]
    export_file = f"match-{match.pk}.json"
    replay = ["python", "manage.py", "replay", export_file]
    for f in files:
        if f["yours"]:
            replay += ["--bot", f"{f['seat']}={f['file']}"]
    return {
        "play": shlex.join(play),
        "export": shlex.join(["curl", "-o", export_file, export_url]),
        "replay": shlex.join(replay),
        "files": files,
    }


class LadderMatchQuerySet(QuerySet):
    """A ladder's matches whose ``count()`` reads the ladder's stored counters
    (``LadderCount``, kept by a trigger) instead of counting a million rows, for as long
    as the queryset still means every match of that ladder: a further filter, a slice or
    a distinct makes it count as usual. Orderings and prefetches keep the shortcut, so a
    paginator over the ladder's matches pays nothing for its page count."""

    _whole_ladder: tuple | None = None

    def _clone(self):
        clone = super()._clone()
        clone._whole_ladder = self._whole_ladder
        return clone

    def count(self) -> int:
        marked = self._whole_ladder
        query = self.query
        if (
            marked is not None
            and query.where == marked[1]
            and not query.is_sliced
            and not query.distinct
            and not query.combinator
        ):
            row = LadderCount.objects.filter(ladder_id=marked[0]).first()
            if row is not None:
                return sum(getattr(row, status) for status in Match.Status.values)
        return super().count()

    def __getitem__(self, k):
        """A page (a slice of rows in an order) read as the ids of the page, on the ladder's
        index alone, and then those rows: one query, two plans. Asked for whole rows in id
        order, PostgreSQL walks the primary key and filters on the ladder, which reads past
        every newer match of other events; the ids alone come from ``match_ladder_newest``."""
        query = self.query
        if (
            not isinstance(k, slice)
            or k.step is not None
            or self._result_cache is not None
            or self._iterable_class not in (ModelIterable, MatchRowIterable)
            or not query.order_by
            or query.annotations
            or query.distinct
            or query.combinator
        ):
            return super().__getitem__(k)
        ids = QuerySet.__getitem__(self.values("pk"), k)
        page = QuerySet(model=self.model).filter(pk__in=ids).order_by(*query.order_by)
        page.query.deferred_loading = query.deferred_loading
        page.query.select_related = query.select_related
        page._prefetch_related_lookups = self._prefetch_related_lookups
        if self._iterable_class is MatchRowIterable:
            page = as_rows(page)
        return page


def ladder_matches(*, ladder: Ladder) -> LadderMatchQuerySet:
    """Every match of ``ladder`` (no logs, moves or records), counted from its counters."""
    base = LadderMatchQuerySet(model=Match).defer(*LIST_DEFERRED)
    qs = base.prefetch_related(public_seats()).filter(ladder=ladder)
    qs._whole_ladder = (ladder.pk, qs.query.where.clone())
    return qs


def match_list(
    *,
    tournament: Tournament | None = None,
    version: BotVersion | None = None,
    ladder: Ladder | None = None,
):
    if ladder is not None and tournament is None and version is None:
        return ladder_matches(ladder=ladder)
    qs = Match.objects.defer(*LIST_DEFERRED).prefetch_related(public_seats())
    if tournament is not None:
        qs = qs.filter(tournament=tournament)
    if ladder is not None:
        qs = qs.filter(ladder=ladder)
    if version is not None:
        qs = qs.filter(seats__version=version)
    return qs


def recent_matches(*, bot_id: int, limit: int = 30) -> list[Match]:
    """The bot's latest matches (any version), newest first; not its games against people
    (``selectors.human_games.games_against_people``)."""
    rows = match_list().filter(seats__version__bot_id=bot_id, human_game__isnull=True)
    return list(rows.distinct().order_by("-id")[:limit])


def newest_match_ids(
    *, version_ids: list[int], limit: int, with_cancelled: bool
) -> tuple[list[int], int]:
    """The ids of the newest ``limit`` matches any of ``version_ids`` sat in (not games
    against people), newest first, and how many cancelled ones were left out (0 ``with_cancelled``,
    which lists them too), in one query.

    Each version's newest matches come from its own backward range of
    ``seat_version_match``, which stops at the ``limit``-th one kept: the bot's matches in
    one ordered walk would take every seat of every version, and each seat's match for its
    status, before the first row (the planner cannot merge the versions' ranges in order).
    The cancelled ones are counted by status (few; its index finds them)."""
    if not version_ids:
        return [], 0
    quote = connection.ops.quote_name
    seats, matches = quote(MatchSeat._meta.db_table), quote(Match._meta.db_table)
    people = quote(Match._meta.get_field("human_game").column)
    joined = f"{seats} s JOIN {matches} m ON m.id = s.match_id WHERE m.{people} IS NULL"
    kept = "" if with_cancelled else " AND m.status <> %s"
    one = (
        f"SELECT * FROM (SELECT DISTINCT s.match_id, 0 AS counted FROM {joined} AND s.version_id = %s"
        f"{kept} ORDER BY s.match_id DESC LIMIT %s) r"
    )
    parts = [f"{one}{i}" for i in range(len(version_ids))]
    cancelled = [] if with_cancelled else [Match.Status.CANCELLED]
    params = [value for pk in version_ids for value in (pk, *cancelled, limit)]
    if not with_cancelled:
        marks = ", ".join(["%s"] * len(version_ids))
        parts.append(
            f"SELECT COUNT(DISTINCT s.match_id), 1 FROM {joined}"
            f" AND s.version_id IN ({marks}) AND m.status = %s"
        )
        params += [*version_ids, Match.Status.CANCELLED]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        rows = cursor.fetchall()
    ids = sorted({value for value, counted in rows if not counted}, reverse=True)[:limit]
    return ids, sum(value for value, counted in rows if counted)


# The columns a replay endpoint needs to find its cached answer: not the record or moves.
REPLAY_LOOKUP_FIELDS = ("pk", "game", "status", "finished_at", "attempts", "result")


def replay_lookup(*, pk: int) -> Match:
    """A match without its big columns (record, moves load on first use); DoesNotExist."""
    return Match.objects.only(*REPLAY_LOOKUP_FIELDS).get(pk=pk)


def stored_piece(*, match: Match, part: str, seat: int | None) -> bytes | None:
    """The JSON text of one stored piece of a finished match's replay (``part`` as ``seat``
    sees it, or ``moves``), from its stored row (built and saved on the first read); None
    when the match is unfinished or cannot be played through here."""
    stored = replays.stored_replay(match=match)
    name = part if part == "moves" else replays.piece_name(part, seat)
    if stored is None or not stored.has(name):
        return None
    return stored.piece(name)


def spliced_json(head: dict, tail: list[tuple[str, bytes]]) -> bytes:
    """``head`` rendered as the API renders it, with each ``(key, JSON text)`` of ``tail``
    appended as it is: the stored pieces are never parsed and serialised again."""
    rendered = replays.render(head)
    parts = [rendered[:-1]]
    for key, text in tail:
        parts += [b',"', key.encode(), b'":', text]
    parts.append(b"}")
    return b"".join(parts)


def replay_body(*, match: Match, seat: int | None, full: bool = True) -> bytes:
    """The replay endpoint's answer: the moves and the events as ``seat`` saw them, from
    the stored replay of a finished match, else rebuilt from the record. Without the
    ``full`` record, the moves show ``seat``'s own actions only (none for a spectator)."""
    head = {"match": match.pk, "seat": seat}
    if not full:
        seats = set() if seat is None else {seat}
        moves = visibility.seen_moves(replay_moves(match=match), seats)
        events = stored_piece(match=match, part="events", seat=seat)
        if events is not None:
            return spliced_json(head, [("moves", replays.render(moves)), ("events", events)])
        return replays.render(
            {**head, "moves": moves, "events": replay_events(match=match, seat=seat)}
        )
    moves = stored_piece(match=match, part="moves", seat=None)
    events = stored_piece(match=match, part="events", seat=seat)
    if moves is not None and events is not None:
        return spliced_json(head, [("moves", moves), ("events", events)])
    data = {**head, "moves": match.moves or [], "events": replay_events(match=match, seat=seat)}
    return replays.render(data)


def seat_count(match: Match) -> int:
    """How many seats the match has: its result's, else its record's (a running match)."""
    if match.result and match.result.get("seats"):
        return len(match.result["seats"])
    players = (match.record or {}).get("players")
    return players if isinstance(players, int) else 0


def replay_moves(*, match: Match) -> list:
    """The match's moves: a finished match's from its stored replay (its moves column
    is then never read), another's from the match."""
    if match.status == Match.Status.FINISHED:
        moves = stored_piece(match=match, part="moves", seat=None)
        if moves is not None:
            return json.loads(moves)
    return match.moves or []


def replay_events(*, match: Match, seat: int | None) -> list[dict]:
    """The match's event log as ``seat`` saw it (None = spectator).

    Rebuilding plays every move again; a finished match's record is final, so its events
    are read from its stored replay and kept in the cache. Unfinished matches are
    rebuilt from the record, and not cached.
    """
    if match.status != Match.Status.FINISHED:
        if not match.record:
            return []
        return registry.rebuild(match.record).events(seat)
    key = replay_cache_key(match=match, seat=seat)
    events = cache.get(key)
    if events is None:
        stored = stored_piece(match=match, part="events", seat=seat)
        if stored is not None:
            events = json.loads(stored)
        elif not match.record:
            return []
        else:
            events = registry.rebuild(match.record).events(seat)
        cache.set(key, events, REPLAY_CACHE_SECONDS)
    return events
