"""Reads of ratings: pools, leaderboards, history, head to head, gates and opponents met."""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, OuterRef, Q, Subquery

from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from games import registry
from tournaments import pools, stats
from tournaments.models import (
    Gate,
    LeaderboardRow,
    Match,
    MatchSeat,
    PoolFit,
    Rating,
    RatingChange,
    RatingFit,
    RatingLedger,
    RatingPair,
)
from tournaments.ratings import bradley_terry as bt
from tournaments.ratings import match as match_stats
from tournaments.ratings.match import Z95


def pools_of_game(*, game: str) -> list[dict]:
    """The game's pools that have ratings, the standard one first (listed even if empty)."""
    registry.get(game)
    standard = pools.default_pool(game)
    keys = set(
        RatingLedger.objects.filter(pool__startswith=f"{game}:").values_list("pool", flat=True)
    )
    keys = [key for key in keys if pools.is_pool_of(key, game)]
    ordered = [standard] + sorted(key for key in keys if key != standard)
    return [{"key": key, "label": pools.label(key), "standard": key == standard} for key in ordered]


def resolve_pool(*, game: str, pool: str | None) -> str:
    """The pool a page or API call means: the game's standard one by default.

    ``pools.InvalidPool`` for a key that is not canonical or belongs to another game.
    """
    registry.get(game)
    if not pool:
        return pools.default_pool(game)
    parsed = pools.parse(pool)
    if parsed.game != game:
        raise pools.InvalidPool(f"pool {pool!r} is not a pool of {game}")
    return parsed.key


def _ancestors(version_id: int, parents: dict[int, int]):
    seen = set()
    parent = parents.get(version_id)
    while parent is not None and parent not in seen:
        yield parent
        seen.add(parent)
        parent = parents.get(parent)


def version_estimate(
    version_id: int,
    *,
    live: dict[int, Rating],
    fitted: dict[int, RatingFit],
    parents: dict[int, int],
) -> dict:
    """What the board says of a version: elo, its 95% interval and where they come from.

    - ``fit``: the pool's latest Bradley-Terry fit (the board's figure).
    - ``live``: the version played only since the last fit; the live Elo, with the
      interval a fit gives for that many games against equal opposition.
    - ``parent``: it has not played in the pool; its nearest rated ancestor's figure,
      widened by the parent prior (a new version starts from its parent's rating).
    - ``none``: nothing in its line has played here.
    """
    if version_id in fitted:
        row = fitted[version_id]
        return {"elo": row.elo, "stdev": row.stdev, "estimate": "fit"}
    if version_id in live:
        return {
            "elo": live[version_id].elo,
            "stdev": bt.new_player_stdev(live[version_id].matches),
            "estimate": "live",
        }
    for ancestor in _ancestors(version_id, parents):
        if ancestor in fitted:
            row = fitted[ancestor]
            spread = math.hypot(row.stdev, bt.new_player_stdev(0))
            return {"elo": row.elo, "stdev": spread, "estimate": "parent"}
        if ancestor in live:
            return {
                "elo": live[ancestor].elo,
                "stdev": bt.new_player_stdev(0),
                "estimate": "parent",
            }
    return {
        "elo": float(settings.ARENA_ELO_START),
        "stdev": bt.new_player_stdev(0),
        "estimate": "none",
    }


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
        lines.update(_ancestors(version, parents))
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


def pool_fit_info(*, pool: str) -> dict | None:
    fit = PoolFit.objects.filter(pool=pool).first()
    ledger = RatingLedger.objects.filter(pool=pool).first()
    if fit is None and ledger is None:
        return None
    return {
        "pool": pool,
        "rated_matches": ledger.last_seq if ledger else 0,
        "fitted_matches": fit.seq if fit else 0,
        "fitted_at": fit.fitted_at if fit else None,
        "versions": fit.players if fit else 0,
        "seconds": round(fit.seconds, 3) if fit else None,
    }


def rating_pools_of_bot(*, bot: Bot) -> list[str]:
    """Pools the bot has rated matches in, most played first."""
    counts: dict[str, int] = defaultdict(int)
    for pool in Rating.objects.filter(version__bot=bot).values_list("pool", "matches"):
        counts[pool[0]] += pool[1]
    return sorted(counts, key=lambda key: (-counts[key], key))


HISTORY_POINTS = 500
MAX_HISTORY_POINTS = 5000


def rating_history(*, bot: Bot, pool: str | None = None, limit: int = HISTORY_POINTS) -> list[dict]:
    """The bot's latest ``limit`` rating changes in ``pool`` (its most played by default),
    oldest first.

    Every point names its version: a chart draws one series per version, so a new
    version (which starts from its parent's rating) never reads as a crash. Each version's
    latest points come from its own index range (``rating_change_history``), so a bot with
    a long past costs ``limit`` rows per version, not its whole history.
    """
    if pool is None:
        played = rating_pools_of_bot(bot=bot)
        pool = played[0] if played else pools.default_pool(bot.game)
    numbers = dict(BotVersion.objects.filter(bot=bot).values_list("pk", "number"))
    changes = []
    for version_id in numbers:
        changes += RatingChange.objects.filter(version_id=version_id, pool=pool).order_by("-seq")[
            :limit
        ]
    changes.sort(key=lambda change: change.seq)
    return [
        {
            "version": numbers[change.version_id],
            "version_id": change.version_id,
            "pool": change.pool,
            "match": change.match_id,
            "seq": change.seq,
            "before": round(change.before, 1),
            "after": round(change.after, 1),
            "at": change.created_at,
        }
        for change in changes[-limit:]
    ]


def rated_matches_of_bot(*, bot: Bot, pool: str) -> int:
    """How many rated matches the bot's versions played in ``pool`` (the stored records)."""
    return sum(Rating.objects.filter(version__bot=bot, pool=pool).values_list("matches", flat=True))


def rating_series(history: list[dict]) -> list[dict]:
    """The history split per version, in the order versions first appear."""
    series: dict[int, dict] = {}
    for point in history:
        entry = series.setdefault(point["version"], {"version": point["version"], "points": []})
        entry["points"].append(point)
    return list(series.values())


def head_to_head(*, pool: str, first: Bot, second: Bot) -> dict:
    """Two bots' record in a pool's rated matches (any versions), cutechess style.

    Every match where both sat is one comparison by rank (a win, draw or loss
    between the two, whatever other seats did). Two matches on the same seed in
    which the two bots swapped seats are a pair: a deal's luck cancels within it, so
    pairs are also summarised as pairs (pentanomial), the honest statistic for
    duplicate play; matches without a partner are left out of that part.
    """
    matches = (
        Match.objects.filter(pool=pool, rated_seq__isnull=False, seats__version__bot=first)
        .filter(seats__version__bot=second)
        .distinct()
        .prefetch_related("seats__version")
        .order_by("rated_seq")
    )
    scores = []
    by_deal: dict[int, list[tuple[tuple, float]]] = defaultdict(list)
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        keys = [seat.version.bot_id for seat in seats]
        ranks = [seat.rank for seat in seats]
        found = match_stats.head_to_head_scores([(keys, ranks)], first.pk, second.pk)
        if not found:
            continue
        scores.append(found[0])
        where = (keys.index(first.pk), keys.index(second.pk))
        by_deal[match.seed].append((where, found[0]))
    wins, draws, losses = match_stats.wdl(scores)
    elo, margin = stats.elo_margin(wins, losses, draws)
    pairs = []
    for games in by_deal.values():
        if len(games) == 2 and games[0][0] == games[1][0][::-1]:
            pairs.append((games[0][1], games[1][1]))
    counts = match_stats.pentanomial_counts(pairs)
    paired = match_stats.pentanomial(counts)
    games = wins + draws + losses
    return {
        "pool": pool,
        "pool_label": pools.label(pool),
        "first": {"bot_id": first.pk, "bot": first.name},
        "second": {"bot_id": second.pk, "bot": second.name},
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": round((wins + draws / 2) / games, 4) if games else None,
        "elo": _finite(elo),
        "margin": _finite(margin),
        "los": round(stats.los(wins, losses), 1),
        "pairs": {
            "pairs": len(pairs),
            "counts": counts,
            "score": round(paired.score, 4) if pairs else None,
            "elo": _finite(paired.elo) if pairs else None,
            "margin": _finite(paired.margin) if pairs else None,
            "los": round(paired.los, 1) if pairs else None,
        },
    }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an undefined Elo or margin (no games, all won) is null."""
    return round(value, 1) if math.isfinite(value) else None


def gates_of_bot(*, bot: Bot) -> list[dict]:
    """The bot's version gates, newest first: LLR against its bounds, and the verdict."""
    gates = Gate.objects.filter(candidate__bot=bot).select_related("candidate", "parent")
    out = []
    for gate in gates.defer("candidate__upload", "parent__upload"):
        counts = list(gate.counts or [0] * 5)
        pairs = sum(counts)
        summary = match_stats.pentanomial(counts)
        out.append(
            {
                "id": gate.pk,
                "version": gate.candidate.number,
                "parent": gate.parent.number,
                "pool": gate.pool,
                "status": gate.status,
                "llr": round(gate.llr, 3),
                "lower": round(gate.lower, 3),
                "upper": round(gate.upper, 3),
                "elo0": gate.elo0,
                "elo1": gate.elo1,
                "alpha": gate.alpha,
                "beta": gate.beta,
                "max_games": gate.max_games,
                "pairs": pairs,
                "games": 2 * pairs,
                "counts": counts,
                "elo": _finite(summary.elo) if pairs else None,
                "margin": _finite(summary.margin) if pairs else None,
                "created_at": gate.created_at,
                "finished_at": gate.finished_at,
            }
        )
    return out


def opponents_met(*, bot: Bot, pool: str | None = None, limit: int = 10) -> dict:
    """The bots ``bot`` met most often in a pool's rated matches (its most played pool by
    default), each with W-D-L by rank, score, Elo difference with its 95% margin and LOS
    (cutechess style, games counted one by one; the head-to-head page pairs them)."""
    if pool is None:
        played = rating_pools_of_bot(bot=bot)
        pool = played[0] if played else pools.default_pool(bot.game)
    if _two_seat_pool(pool):
        records = _records_from_pairs(bot=bot, pool=pool)
    else:
        scores = _scores_by_match(bot=bot, pool=pool)
        records = {other: match_stats.wdl(found) for other, found in scores.items()}
    ranked = sorted(records.items(), key=lambda item: (-sum(item[1]), item[0]))[:limit]
    names = dict(Bot.objects.filter(pk__in=[o for o, _ in ranked]).values_list("pk", "name"))
    table = []
    for other, (wins, draws, losses) in ranked:
        elo, margin = stats.elo_margin(wins, losses, draws)
        games = wins + draws + losses
        table.append(
            {
                "bot_id": other,
                "bot": names.get(other, "?"),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": round(100 * (wins + draws / 2) / games, 1) if games else None,
                "elo": _finite(elo),
                "margin": _finite(margin),
                "los": round(stats.los(wins, losses), 1),
            }
        )
    return {"pool": pool, "pool_label": pools.label(pool), "opponents": table}


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
    from the read model (``tournaments.leaderboards``); lists use ``leaderboard_page``.
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


def _positions_and_next(pool: str, ids: list[int]) -> dict[int, tuple]:
    """For rows found by a search: each one's position on the whole board and the row after
    it there (what ``los_next`` compares with), in one pass over the pool's index."""
    table = LeaderboardRow._meta.db_table
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        f"SELECT id, position, next_elo, next_stdev, next_estimate FROM ("
        f" SELECT id, row_number() OVER w AS position, lead(elo) OVER w AS next_elo,"
        f" lead(stdev) OVER w AS next_stdev, lead(estimate) OVER w AS next_estimate"
        f" FROM {table} WHERE pool = %s WINDOW w AS (ORDER BY sort_key, bot_name)"
        f") board WHERE id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [pool, *ids])
        found = cursor.fetchall()
    out = {}
    for pk, position, elo, stdev, estimate in found:
        following = (
            LeaderboardRow(elo=elo, stdev=stdev, estimate=estimate)
            if estimate is not None
            else None
        )
        out[pk] = (position, following)
    return out


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
    row after the page's last one; a search adds one pass over the pool's rows.
    """
    board = _board(pool)
    search = search.strip()
    matching = board.filter(_search(search)) if search else board
    if cursor is None:
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
        placed = _positions_and_next(pool, [row.pk for row in rows])
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
    return {
        "rows": shown,
        "count": count if count is not None else matching.count(),
        "next": _cursor_of(rows[-1]) if rows and has_next else None,
        "previous": _cursor_of(rows[0], backwards=True) if rows and has_previous else None,
    }


def _two_seat_pool(pool: str) -> bool:
    try:
        return pools.parse(pool).players == 2
    except (pools.InvalidPool, registry.UnknownGame):
        return False


def _records_from_pairs(*, bot: Bot, pool: str) -> dict[int, tuple[int, int, int]]:
    """W-D-L against each other bot from the pool's stored pair sums (``RatingPair``, one
    row per pair of versions): in a two-seat pool each rated match adds one win, draw or
    loss to its pair, so these equal the per-match count without reading any match."""
    mine = set(BotVersion.objects.filter(bot=bot).values_list("pk", flat=True))
    rows = (
        RatingPair.objects.filter(pool=pool)
        .filter(Q(first__in=mine) | Q(second__in=mine))
        .values_list("first_id", "first__bot_id", "second__bot_id", "wins", "draws", "losses")
    )
    totals: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for first, first_bot, second_bot, wins, draws, losses in rows:
        if first_bot == second_bot:
            continue  # two versions of this bot met: no opponent
        if first in mine:
            other, record = second_bot, (wins, draws, losses)
        else:
            other, record = first_bot, (losses, draws, wins)
        for i, value in enumerate(record):
            totals[other][i] += value
    return {other: tuple(round(v) for v in t) for other, t in totals.items()}


def _scores_by_match(*, bot: Bot, pool: str) -> dict[int, list[float]]:
    """Every rated match of ``bot`` in ``pool`` scored by rank against each other bot."""
    mine = MatchSeat.objects.filter(
        match__pool=pool, match__rated_seq__isnull=False, version__bot=bot
    ).values("match_id")
    seats_of: dict[int, list[tuple[int, int, int | None]]] = defaultdict(list)
    rows = MatchSeat.objects.filter(match_id__in=mine).values_list(
        "match_id", "seat", "version__bot_id", "rank"
    )
    for match_id, seat, bot_id, rank in rows:
        seats_of[match_id].append((seat, bot_id, rank))
    scores: dict[int, list[float]] = defaultdict(list)
    for seats in seats_of.values():
        seats.sort()
        keys = [bot_id for _, bot_id, _ in seats]
        ranks = [rank for _, _, rank in seats]
        for other in set(keys) - {bot.pk}:
            scores[other] += match_stats.head_to_head_scores([(keys, ranks)], bot.pk, other)
    return scores
