"""Reads of ratings: pools, history, head to head, gates and opponents met."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import Exists, OuterRef, Subquery

from bots.models import Bot, BotVersion
from games import registry
from tournaments import stats
from tournaments.models import (
    BotOpponent,
    Gate,
    MatchSeat,
    PoolFit,
    Rating,
    RatingChange,
    RatingLedger,
)
from tournaments.ratings import match as match_stats
from tournaments.ratings import pools


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


def pool_fit_info(*, pool: str) -> dict | None:
    """The pool's latest fit and how many rated matches it has; None for neither. A fitted
    pool is read in one query (the ledger's position beside its fit row)."""
    ledger = RatingLedger.objects.filter(pool=pool).values("last_seq")
    fit = (
        PoolFit.objects.filter(pool=pool)
        .only("seq", "fitted_at", "players", "seconds")
        .annotate(rated_matches=Subquery(ledger[:1]))
        .first()
    )
    if fit is not None:
        rated = fit.rated_matches
    elif (rated := ledger.values_list("last_seq", flat=True).first()) is None:
        return None
    return {
        "pool": pool,
        "rated_matches": rated or 0,
        "fitted_matches": fit.seq if fit else 0,
        "fitted_at": fit.fitted_at if fit else None,
        "versions": fit.players if fit else 0,
        "seconds": round(fit.seconds, 3) if fit else None,
    }


def rated_matches_by_pool(*, bot: Bot) -> dict[str, int]:
    """How many rated matches the bot's versions played in each pool (the stored records,
    one query): what ``rating_pools_of_bot`` reads, and the bot pages' counts."""
    counts: dict[str, int] = defaultdict(int)
    rows = Rating.objects.filter(version__bot=bot).order_by().values_list("pool", "matches")
    for pool, matches in rows:
        counts[pool] += matches
    return dict(counts)


def rating_pools_of_bot(*, bot: Bot, counts: dict[str, int] | None = None) -> list[str]:
    """Pools the bot has rated matches in, most played first (from ``counts``, the bot's
    ``rated_matches_by_pool``, when the caller has read them)."""
    counts = rated_matches_by_pool(bot=bot) if counts is None else counts
    return sorted(counts, key=lambda key: (-counts[key], key))


HISTORY_POINTS = 500
MAX_HISTORY_POINTS = 5000


def rating_history(
    *,
    bot: Bot,
    pool: str | None = None,
    limit: int = HISTORY_POINTS,
    numbers: dict[int, int] | None = None,
) -> list[dict]:
    """The bot's latest ``limit`` rating changes in ``pool`` (its most played by default),
    oldest first. ``numbers``: the bot's version numbers by id, when the caller has them.

    Every point names its version: a chart draws one series per version, so a new
    version (which starts from its parent's rating) never reads as a crash. Each version's
    latest points come from its own index range (``rating_change_history``), so a bot with
    a long past costs ``limit`` rows per version, not its whole history.
    """
    if pool is None:
        played = rating_pools_of_bot(bot=bot)
        pool = played[0] if played else pools.default_pool(bot.game)
    return [
        history_entry(point, pool=pool, at=datetime.fromisoformat(point[-1]))
        for point in rating_points(bot=bot, pool=pool, limit=limit, numbers=numbers)
    ]


def history_entry(point: tuple, *, pool: str, at: object) -> dict:
    """One of ``rating_history``'s points from a ``rating_points`` tuple, its time given
    as the reader writes it (a datetime, or the text an encoder would make of one)."""
    version, version_id, match_id, seq, before, after, _ = point
    return {
        "version": version,
        "version_id": version_id,
        "pool": pool,
        "match": match_id,
        "seq": seq,
        "before": before,
        "after": after,
        "at": at,
    }


def rating_points(
    *, bot: Bot, pool: str, limit: int = HISTORY_POINTS, numbers: dict[int, int] | None = None
) -> list[tuple]:
    """``rating_history`` as plain tuples (version number, version id, match, seq, before,
    after, time; the ratings rounded to a tenth as the history shows them, the time as the
    text of its ``isoformat()``), oldest first:
    for readers that write each point out themselves (a dict per point was most of the
    cost of the bot page's chart)."""
    if numbers is None:
        # No ordering: the versions' default one joins their bot for its name.
        versions = BotVersion.objects.filter(bot=bot).order_by()
        numbers = dict(versions.values_list("pk", "number"))
    # Plain rows, not model instances: building 500 of each version's was most of the
    # time this read took (a busy bot's page, its first reader after every result).
    changes = _latest_changes(list(numbers), pool=pool, limit=limit)
    changes.sort(key=lambda change: change[0])
    return [
        (numbers[version_id], version_id, match_id, seq, round(before, 1), round(after, 1), at)
        for seq, version_id, match_id, before, after, at in changes[-limit:]
    ]


HISTORY_COLUMNS = ("seq", "version_id", "match_id", "before", "after", "created_at")


def _latest_changes(version_ids: list[int], *, pool: str, limit: int) -> list[tuple]:
    """Each version's latest ``limit`` changes in ``pool`` (``HISTORY_COLUMNS``, the time as
    the text of its ``isoformat()``), all in one query: a UNION ALL of one range of
    ``rating_change_history`` per version, written out (the ORM's building of the union
    cost more than running it)."""
    if not version_ids:
        return []
    meta = RatingChange._meta
    quote = connection.ops.quote_name
    names = [quote(meta.get_field(name).column) for name in HISTORY_COLUMNS]
    # PostgreSQL writes the time itself, in UTC (when the connection's aware datetimes
    # are in UTC): the driver's parsing of 500 of them, then their isoformat(), cost more
    # than the rest of this read.
    postgresql = (
        connection.vendor == "postgresql" and settings.USE_TZ and connection.timezone_name == "UTC"
    )
    if postgresql:
        names[-1] = f"to_char({names[-1]} AT TIME ZONE 'UTC', '{ISO_UTC}')"
    # Each range in a subquery of its own: a compound's members may not order or limit
    # themselves in every database.
    one = (
        f"SELECT * FROM (SELECT {', '.join(names)} FROM {quote(meta.db_table)}"
        " WHERE version_id = %s AND pool = %s ORDER BY seq DESC LIMIT %s) r"
    )
    sql = " UNION ALL ".join(f"{one}{i}" for i in range(len(version_ids)))
    params = [value for pk in version_ids for value in (pk, pool, limit)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if postgresql:
        # isoformat() leaves out a zero fraction.
        return [
            (*rest, (at[:-7] if at.endswith(".000000") else at) + "+00:00") for *rest, at in rows
        ]
    created = meta.get_field("created_at")
    column = created.get_col(meta.db_table)
    # What the ORM would make of the time (SQLite's text parsed).
    converters = connection.ops.get_db_converters(column) + created.get_db_converters(connection)
    out = []
    for *rest, at in rows:
        for convert in converters:
            at = convert(at, column, connection)
        out.append((*rest, at.isoformat()))
    return out


# A UTC time as datetime.isoformat() writes it (but a zero fraction), in to_char's terms.
ISO_UTC = 'YYYY-MM-DD"T"HH24:MI:SS.US'


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
    # The two bots' versions first: the matches both played are then the meeting of two
    # runs of the seats' (version, match) index, and the query names four tables instead
    # of eight (planning it cost more than running it).
    bot_of = dict(
        BotVersion.objects.filter(bot__in=[first.pk, second.pk])
        .order_by()
        .values_list("pk", "bot_id")
    )

    def played_by(bot: Bot):
        mine = [pk for pk, bot_id in bot_of.items() if bot_id == bot.pk]
        return MatchSeat.objects.filter(version__in=mine).values("match_id")

    # Every seat of those matches as a plain row, in one query: matches and seats as model
    # instances (a query each) were most of this read on its first reader. Seats of other
    # bots only fill their places (their key is never compared).
    both = played_by(first).filter(match_id__in=played_by(second))
    seats = (
        MatchSeat.objects.filter(
            match_id__in=both, match__pool=pool, match__rated_seq__isnull=False
        )
        .order_by("match__rated_seq", "match_id", "seat")
        .values_list("match_id", "match__seed", "rank", "version_id")
    )
    tables: dict[int, tuple[int, list, list]] = {}
    for match_id, seed, rank, version_id in seats:
        _, keys, ranks = tables.setdefault(match_id, (seed, [], []))
        keys.append(bot_of.get(version_id))
        ranks.append(rank)
    scores = []
    by_deal: dict[int, list[tuple[tuple, float]]] = defaultdict(list)
    for seed, keys, ranks in tables.values():
        found = match_stats.head_to_head_scores([(keys, ranks)], first.pk, second.pk)
        if not found:
            continue
        scores.append(found[0])
        where = (keys.index(first.pk), keys.index(second.pk))
        by_deal[seed].append((where, found[0]))
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


def bot_has_gates() -> Exists:
    """Whether the outer query's bot has a version gate ``gates_of_bot`` lists."""
    return Exists(Gate.objects.filter(candidate__bot_id=OuterRef("pk")))


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
        ranked = _most_met(bot_id=bot.pk, pool=pool, limit=limit)
    else:
        scores = _scores_by_match(bot=bot, pool=pool)
        records = {other: match_stats.wdl(found) for other, found in scores.items()}
        ranked = sorted(records.items(), key=lambda item: (-sum(item[1]), item[0]))[:limit]
        names = dict(Bot.objects.filter(pk__in=[o for o, _ in ranked]).values_list("pk", "name"))
        ranked = [(other, names.get(other, "?"), record) for other, record in ranked]
    table = []
    for other, name, (wins, draws, losses) in ranked:
        elo, margin = stats.elo_margin(wins, losses, draws)
        games = wins + draws + losses
        table.append(
            {
                "bot_id": other,
                "bot": name,
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


def _two_seat_pool(pool: str) -> bool:
    try:
        return pools.parse(pool).players == 2
    except (pools.InvalidPool, registry.UnknownGame):
        return False


def _most_met(*, bot_id: int, pool: str, limit: int) -> list[tuple[int, str, tuple]]:
    """The ``limit`` bots ``bot_id`` met most in a two-seat pool, most games first, each
    with its name and W-D-L: the bot's rows of ``BotOpponent`` (its versions' pair sums
    kept per pair of bots; in a two-seat pool each rated match adds one win, draw or loss
    to its pair), one range of their index, with the names, in one query."""
    quote = connection.ops.quote_name
    # The ten rows first, then their names (joined before the limit, the planner hashed
    # every bot of the game to name a few hundred rows).
    order = "ORDER BY o.wins + o.draws + o.losses DESC, o.opponent_id"
    sql = (
        "SELECT o.opponent_id, b.name, o.wins, o.draws, o.losses FROM ("
        f"SELECT opponent_id, wins, draws, losses FROM {quote(BotOpponent._meta.db_table)} o"
        f" WHERE pool = %s AND bot_id = %s {order} LIMIT %s) o"
        f" JOIN {quote(Bot._meta.db_table)} b ON b.id = o.opponent_id {order}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [pool, bot_id, limit])
        rows = cursor.fetchall()
    return [
        (other, name, (round(wins), round(draws), round(losses)))
        for other, name, wins, draws, losses in rows
    ]


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
