"""The leaderboard read model, kept up to date as results are recorded: rows of every pool.

A ``LeaderboardRow`` holds what the board shows of a bot in a pool (its current version,
the shown Elo and its spread, where the figure comes from, live Elo, record). Every
write that changes one of those values refreshes the rows it touches in its own
transaction, so a committed rating change and its rows are never apart:

- a rated result (``tournaments.services.rating.rate_match``): the rows of the bots that
  played, or the whole pool when it is new;
- a refit (``tournaments.services.fitting.fit_pool``): the whole pool;
- a change of a bot's current version, its activation or its disabling
  (``bots.hooks.bot_changed``, and ``tournaments.services.gating``): that bot's rows in
  every pool of its game.

Writers take the game's leaderboard lock (a PostgreSQL advisory lock held to the end of
the transaction) after their own writes and before reading for the rows, so two writers
never compute a row from each other's uncommitted state. ``rebuild_leaderboards`` writes
every row again from the ratings alone (``manage.py rebuild_read_models``); a test checks
that it equals the rows kept incrementally.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import connection, transaction

from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from games import registry
from tournaments import readcache
from tournaments.models import LeaderboardRow, Rating, RatingFit, RatingLedger
from tournaments.models.row_statements import Batch, update_rows
from tournaments.ratings import bradley_terry as bt
from tournaments.ratings import pools

# pg_advisory_xact_lock's first key: this module's locks, apart from any other user's.
LOCK_NAMESPACE = 0x4C42  # "LB"
STORED_FIELDS = [
    "version",
    "bot_name",
    "version_number",
    "sort_key",
    "elo",
    "stdev",
    "estimate",
    "live_elo",
    "games",
    "wins",
    "draws",
    "losses",
    "average_rank",
]
# What a rated game changes in the row of a version that played, whatever its estimate.
PLAYED_FIELDS = ["live_elo", "games", "wins", "draws", "losses", "average_rank"]


def ancestors(version_id: int, parents: dict[int, int]):
    """The versions `version_id` descends from, nearest first (a cycle ends the walk)."""
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
    for ancestor in ancestors(version_id, parents):
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


def lock_game(game: str, batch: Batch | None = None) -> None:
    """Serialise leaderboard writers of ``game`` until the transaction ends (PostgreSQL;
    SQLite runs one writer at a time anyway); sent at once, or with the ``batch``. Every
    writer of what ratings show takes it, so it is also where their cached reads' mark
    moves, once the writer commits."""
    readcache.bump_after_commit(f"board:{game}")
    if connection.vendor != "postgresql":
        return
    key = zlib.crc32(game.encode()) - 2**31  # a signed int4
    statement = ("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, key])
    if batch is not None:
        batch.add(*statement)
        return
    with connection.cursor() as cursor:
        cursor.execute(*statement)


def pools_of(game: str) -> list[str]:
    """The pools whose boards hold rows: the game's standard one and every rated one."""
    standard = pools.default_pool(game)
    keys = RatingLedger.objects.filter(pool__startswith=f"{game}:").values_list("pool", flat=True)
    return [standard] + sorted(k for k in keys if k != standard and pools.is_pool_of(k, game))


def two_sided(pool: str) -> bool:
    parsed = pools.parse(pool)
    return parsed.players == 2 and not registry.get(parsed.game).teams(
        parsed.players, parsed.options
    )


def compute_rows(*, pool: str, bots: Iterable[Bot]) -> dict[int, LeaderboardRow]:
    """The rows of ``bots`` in ``pool`` from the ratings alone: bot id -> unsaved row, for
    the bots that have a current version (the others have no row)."""
    bots = {bot.pk: bot for bot in bots}
    if not bots:
        return {}
    current = bot_selectors.current_versions_of(bots=list(bots.values()))
    parents = dict(
        BotVersion.objects.filter(bot_id__in=list(current), parent__isnull=False).values_list(
            "pk", "parent_id"
        )
    )
    lines = {version.pk for version in current.values()}
    for version_id in list(lines):
        lines.update(ancestors(version_id, parents))
    live = {r.version_id: r for r in Rating.objects.filter(pool=pool, version_id__in=lines)}
    fitted = {f.version_id: f for f in RatingFit.objects.filter(pool=pool, version_id__in=lines)}
    sided = two_sided(pool)
    rows = {}
    for bot_id, version in current.items():
        shown = version_estimate(version.pk, live=live, fitted=fitted, parents=parents)
        rating = live.get(version.pk)
        games = rating.matches if rating else 0
        rows[bot_id] = LeaderboardRow(
            pool=pool,
            bot_id=bot_id,
            version_id=version.pk,
            bot_name=bots[bot_id].name,
            version_number=version.number,
            sort_key=(LeaderboardRow.UNRATED_KEY if shown["estimate"] == "none" else -shown["elo"]),
            elo=shown["elo"],
            stdev=shown["stdev"],
            estimate=shown["estimate"],
            live_elo=rating.elo if rating else None,
            games=games,
            wins=rating.wins if rating and sided else None,
            draws=rating.draws if rating and sided else None,
            losses=rating.losses if rating and sided else None,
            average_rank=(
                round(rating.rank_total / rating.matches, 2)
                if rating and rating.matches and not sided
                else None
            ),
        )
    return rows


def _write(pool: str, bot_ids: set[int], rows: dict[int, LeaderboardRow]) -> None:
    """Store ``rows`` and drop the rows of the other ``bot_ids`` (no current version now)."""
    gone = bot_ids - set(rows)
    if gone:
        LeaderboardRow.objects.filter(pool=pool, bot_id__in=gone).delete()
    if rows:
        LeaderboardRow.objects.bulk_create(
            list(rows.values()),
            update_conflicts=True,
            unique_fields=["pool", "bot"],
            update_fields=STORED_FIELDS,
            batch_size=2000,
        )


def refresh_bots(*, pool: str, bot_ids: Iterable[int]) -> None:
    """Recompute the rows of ``bot_ids`` in ``pool`` (the caller's transaction)."""
    bot_ids = set(bot_ids)
    # Everything read for the rows is read after the lock: a bot's current version read
    # before it could be one another writer has replaced meanwhile.
    lock_game(pools.parse(pool).game)
    bots = list(Bot.objects.filter(pk__in=bot_ids))
    _write(pool, bot_ids, compute_rows(pool=pool, bots=bots))


def rebuild_pool(*, pool: str) -> int:
    """Every row of ``pool`` again from the ratings alone; how many rows it holds."""
    game = pools.parse(pool).game
    with transaction.atomic():
        lock_game(game)
        rows = compute_rows(pool=pool, bots=Bot.objects.filter(game=game))
        LeaderboardRow.objects.filter(pool=pool).delete()
        LeaderboardRow.objects.bulk_create(list(rows.values()), batch_size=2000)
    return len(rows)


def after_rating(
    *,
    pool: str,
    version_ids: Iterable[int],
    ratings: dict[int, Rating] | None = None,
    batch: Batch | None = None,
    send: bool = True,
) -> Callable[[], None] | None:
    """A result was just rated in ``pool`` (called by ``rate_match`` under the ledger lock):
    the rows of the bots whose versions played, or every row when the pool is new.

    ``ratings`` (version -> its rating row as just written) lets the usual case skip the
    reads: see :func:`_update_played`. Anything it cannot vouch for is computed as before.
    ``batch``: the caller's writes still waiting, sent (with the lock) before any read.
    Without ``send``, and with ``ratings``, the rows' UPDATE waits in the caller's ``batch``
    too, for statements of its own to join that round trip: then the check of its count
    (and the rows computed if it falls short) is returned, for the caller to call once it
    has sent the batch, still in its transaction. Otherwise everything is done here (None).
    """
    batch = batch if batch is not None else Batch()
    if ratings:
        at = _update_played(pool, ratings, batch)

        def settle() -> None:
            # Every played version's row, or the caller computes them from the ratings.
            if batch.results[at].rowcount != len(ratings):
                _compute_played(pool, version_ids)

        if not send:
            return settle
        batch.send()
        settle()
        return None
    batch.send()
    _compute_played(pool, version_ids)
    return None


def _compute_played(pool: str, version_ids: Iterable[int]) -> None:
    """The rows of the bots whose versions played from the ratings (every row of a new
    pool), the game's lock held."""
    if not LeaderboardRow.objects.filter(pool=pool).exists():
        rebuild_pool(pool=pool)
        return
    bot_ids = set(
        BotVersion.objects.filter(pk__in=list(version_ids)).values_list("bot_id", flat=True)
    )
    refresh_bots(pool=pool, bot_ids=bot_ids)


def _update_played(pool: str, ratings: dict[int, Rating], batch: Batch) -> int:
    """Add to ``batch`` the game's lock and one UPDATE writing the rows of the versions that
    just played from their new ratings; the UPDATE's position in the batch's answers. When
    its count is short of ``ratings``, some version had no such row.

    A row whose version is the one that played and whose figure is its own (``fit`` or
    ``live``: it had played here before) depends on nothing but that version's rating and
    fit (``version_estimate``): the live Elo and record move, the shown figure too unless
    a fit holds it. Any other case (a first game here, a row showing a parent's figure, a
    bot whose current version is not the one that played, a new pool) updates fewer rows
    than asked, and the caller computes those bots' rows from the ratings. Taken under the
    game's leaderboard lock, as every writer does, so the row read is the committed one.
    """
    lock_game(pools.parse(pool).game, batch)
    sided = two_sided(pool)
    rows = [
        (
            pool,
            version,
            rating.elo,
            rating.matches,
            rating.wins if sided else None,
            rating.draws if sided else None,
            rating.losses if sided else None,
            None if sided or not rating.matches else round(rating.rank_total / rating.matches, 2),
            rating.elo,
            bt.new_player_stdev(rating.matches),
            -rating.elo,
        )
        for version, rating in ratings.items()
    ]
    estimate = connection.ops.quote_name("estimate")
    live_or_kept = f"CASE WHEN {{table}}.{estimate} = 'live' THEN {{new}} ELSE {{old}} END"
    # In the round trip of the caller's writes and the lock, after them: a statement of
    # its own, so it reads the rows as committed when the lock was granted.
    at = len(batch)
    update_rows(
        LeaderboardRow,
        keys=["pool", "version"],
        fields=[*PLAYED_FIELDS, "elo", "stdev", "sort_key"],
        rows=rows,
        set_sql={name: live_or_kept for name in ("elo", "stdev", "sort_key")},
        where=f"{{table}}.{estimate} IN ('fit', 'live')",
        batch=batch,
    )
    return at


def after_bot_change(bot_id: int) -> None:
    """The bot's current version may have changed: its rows in every pool of its game."""
    game = Bot.objects.filter(pk=bot_id).values_list("game", flat=True).first()
    if game is None:
        return
    lock_game(game)
    for pool in pools_of(game):
        refresh_bots(pool=pool, bot_ids=[bot_id])


def rebuild_leaderboards(*, game: str | None = None) -> dict[str, int]:
    """Every leaderboard row of ``game`` (every game by default) from the ratings alone, and
    no row left in a pool that is no longer one of its game's: pool -> rows."""
    games = [game] if game else registry.slugs()
    counts = {}
    for slug in games:
        keep = pools_of(slug)
        for pool in keep:
            counts[pool] = rebuild_pool(pool=pool)
        stale = LeaderboardRow.objects.filter(pool__startswith=f"{slug}:").exclude(pool__in=keep)
        stale.delete()
    if connection.vendor == "postgresql":  # every row is new: let the planner know
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {LeaderboardRow._meta.db_table}")
    return counts


def stored_rows(*, pool: str) -> list[dict]:
    """The stored rows of ``pool`` in board order, as comparable values (tests, checks)."""
    return list(
        LeaderboardRow.objects.filter(pool=pool)
        .order_by("sort_key", "bot_name")
        .values("bot_id", *[f if f != "version" else "version_id" for f in STORED_FIELDS])
    )
