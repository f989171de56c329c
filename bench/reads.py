"""Read latency at scale: every read endpoint and page against a big data set, beside /api/games/.

    .venv/bin/python bench/reads.py               # build the full data set, time, drop it
    .venv/bin/python bench/reads.py --scale 0.1   # a tenth of it, for a quick run
    .venv/bin/python bench/reads.py --keep        # leave the database for a later --reuse
    .venv/bin/python bench/reads.py --reuse       # time again without rebuilding (same scale)

Goal (issue 18): the p95 of every read endpoint and page at most 3x the p95 of /api/games/
(which reads no table) in the same run, on 10,000 Pairs bots, 1,000,000 rated ladder
matches, a 200-bot round robin of about 20,000 finished matches, a Swiss and an elimination
tournament, and one long Paks match whose replay is read (goal 5: replays of long matches are
served from a stored or cached form, not rebuilt per request).

The data set is written with COPY from arrays the bench computes (no ORM row by row): the
ladder's duplicate tables, seats, results, moves and records taken from real Pairs matches
played by the built-in policies, the live Elo with its history, the pairwise sums and the
record of each version, as tournaments.services.rating would have left them. Then the
product's own services finish the job: ``rebuild_read_models`` when that command exists and
the pool's Bradley-Terry fit (tournaments.services.fitting.fit_pool).

Requests go through Django's test client in this process (no network): 2 warm-ups, then 25
timed ones per endpoint (fewer when one takes so long that 25 would exceed --budget seconds;
the n column says how many). See bench/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/arena_benchreads"
DEFAULT_CACHE_URL = "redis://127.0.0.1:6379/5"
GOAL_RATIO = 3.0
YARDSTICK = "/api/games/"
WARMUPS = 2
TIMED = 25
POOL = "pairs:2"
LONG_MOVES = 800  # the long match has at least this many moves
BUILD_MARK = "bench_reads_build"  # a table holding what was built, for --reuse
BUILD_VERSION = 1  # bump when build() changes what it writes: --reuse then rebuilds


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 10,000 bots, 1M matches")
    parser.add_argument("--keep", action="store_true", help="leave the database when done")
    parser.add_argument(
        "--reuse", action="store_true", help="skip the build if the database holds this scale"
    )
    parser.add_argument(
        "--database",
        default=os.environ.get("BENCH_READS_DATABASE_URL", DEFAULT_DATABASE_URL),
        help="the bench's own database (dropped and created unless --reuse finds it built)",
    )
    parser.add_argument(
        "--cache",
        default=os.environ.get("BENCH_READS_CACHE_URL", DEFAULT_CACHE_URL),
        help="CACHE_URL for the run (redis://... as in production, or locmem://); "
        "the bench clears it before timing",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=60.0,
        help="seconds of timed requests per endpoint at most (fewer than 25 if slower); "
        "0 = always 25",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="after the build, compare the loaded ratings with the product's own "
        "recompute_ratings and recompute_pairs (ORM over every match: small scales only)",
    )
    parser.add_argument("--only", default="", help="time only endpoints whose label has this")
    return parser.parse_args()


ARGS = parse_args() if __name__ == "__main__" else None

# The environment is the bench's own before Django reads its settings.
if ARGS is not None:
    os.environ["DATABASE_URL"] = ARGS.database
    os.environ["CACHE_URL"] = ARGS.cache
    os.environ.setdefault("CELERY_BROKER_URL", ARGS.cache if "redis" in ARGS.cache else "")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    os.environ["DEBUG"] = "0"


# --------------------------------------------------------------------------- database


def _admin_url(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    return urlunsplit(parts._replace(path="/postgres")), name


def database_built(url: str, scale: float) -> bool:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("select 1 from pg_database where datname = %s", [name]).fetchone():
            return False
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute(f"select scale, info from {BUILD_MARK}").fetchone()
        except psycopg.errors.UndefinedTable:
            return False
    if row is None or abs(row[0] - scale) > 1e-9:
        return False
    info = row[1] if isinstance(row[1], dict) else json.loads(row[1])
    return info.get("version") == BUILD_VERSION


def recreate_database(url: str) -> None:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')
        conn.execute(f'create database "{name}"')


def drop_database(url: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


# --------------------------------------------------------------------------- COPY helpers


def _text(value) -> str:
    """One value in COPY's text format."""
    if value is None:
        return "\\N"
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (dict, list)):
        value = json.dumps(value, separators=(",", ":"))
    return (
        str(value)
        .replace("\\", "\\\\")
        .replace("\t", "\\t")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
    )


def copy_rows(table: str, columns: list[str], rows, *, chunk: int = 50_000) -> int:
    """COPY an iterable of row tuples (plain values) into ``table``."""
    return copy_lines(table, columns, ("\t".join(map(_text, row)) for row in rows), chunk=chunk)


_EXTRA: dict[tuple[str, tuple[str, ...]], tuple[list[str], str]] = {}


def extra_columns(table: str, columns: list[str]) -> tuple[list[str], str]:
    """Columns a newer migration added that the bench does not write, with their model
    default: NOT NULL columns without a database default would refuse the COPY otherwise."""
    key = (table, tuple(columns))
    if key in _EXTRA:
        return _EXTRA[key]
    from django.apps import apps
    from django.utils import timezone

    missing = sql(
        "select column_name from information_schema.columns where table_name = %s"
        " and is_nullable = 'NO' and column_default is null and is_identity = 'NO'"
        " and not (column_name = any(%s))",
        [table, list(columns)],
    )
    names, values = [], []
    model = next((m for m in apps.get_models() if m._meta.db_table == table), None)
    for (name,) in missing or []:
        field_ = next((f for f in model._meta.concrete_fields if f.column == name), None)
        if field_ is None or not (field_.has_default() or getattr(field_, "auto_now", False)):
            raise SystemExit(
                f"{table}.{name} is NOT NULL without a default: bench/reads.py must write it"
            )
        value = field_.get_default() if field_.has_default() else timezone.now()
        names.append(name)
        values.append(_text(value))
    _EXTRA[key] = (names, "".join("\t" + v for v in values))
    return _EXTRA[key]


def copy_lines(table: str, columns: list[str], lines, *, chunk: int = 50_000) -> int:
    """COPY an iterable of ready text-format lines (no newline) into ``table``."""
    from django.db import connection

    extra, suffix = extra_columns(table, columns)
    count = 0
    sql_ = f"COPY {table} ({', '.join(columns + extra)}) FROM STDIN"
    with connection.cursor() as cursor:
        with cursor.cursor.copy(sql_) as copy:
            buffer = []
            for line in lines:
                buffer.append(line + suffix if suffix else line)
                if len(buffer) >= chunk:
                    copy.write("\n".join(buffer) + "\n")
                    count += len(buffer)
                    buffer = []
            if buffer:
                copy.write("\n".join(buffer) + "\n")
                count += len(buffer)
    return count


class Sink:
    """Lines for one table, sent by COPY every ``chunk`` lines (the data set never sits
    whole in memory)."""

    def __init__(self, table: str, columns: list[str], chunk: int = 50_000):
        self.table, self.columns, self.chunk = table, columns, chunk
        self.lines: list[str] = []
        self.count = 0

    def append(self, line: str) -> None:
        self.lines.append(line)
        if len(self.lines) >= self.chunk:
            self.flush()

    def flush(self) -> None:
        if self.lines:
            self.count += copy_lines(self.table, self.columns, self.lines, chunk=self.chunk)
            self.lines = []

    def close(self) -> int:
        self.flush()
        return self.count


def sql(statement: str, params=None):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        try:
            return cursor.fetchall()
        except Exception:  # statements without rows
            return None


# --------------------------------------------------------------------------- templates


@dataclass
class Game:
    """One real match played by the built-in policies: what its rows copy."""

    seed: int
    ranks: tuple[int, int]
    scores: tuple[int, int]
    result: str  # COPY-escaped JSON with {label0} / {label1} placeholders
    moves: str  # COPY-escaped JSON
    record: str  # COPY-escaped JSON
    game: str = "pairs"

    def outcome(self) -> int:
        """0: seat 0 ranked first, 1: a draw, 2: seat 1 ranked first."""
        a, b = self.ranks
        return 0 if a < b else (1 if a == b else 2)

    def result_for(self, label0: str, label1: str) -> str:
        return self.result.replace("@@LABEL0@@", label0).replace("@@LABEL1@@", label1)


def _escaped(value) -> str:
    return _text(json.dumps(value, separators=(",", ":")))


def play_game(slug: str, seed: int, policies: tuple[str, str], options: dict | None = None):
    from bots.players import BuiltinPlayer
    from bots.runner import Clock, play_match
    from games import registry

    game = registry.get(slug)
    players = [BuiltinPlayer(game, name, seed + i) for i, name in enumerate(policies)]
    return play_match(
        game_slug=slug, players=players, options=options or {}, seed=seed, clock=Clock()
    )


def template_game(outcome, slug: str = "pairs") -> Game:
    result = json.loads(json.dumps(outcome.result))
    for i, seat in enumerate(result["seats"]):
        seat["bot"] = f"@@LABEL{i}@@"
    seats = outcome.result["seats"]
    return Game(
        seed=outcome.seed,
        ranks=(seats[0]["rank"], seats[1]["rank"]),
        scores=(seats[0]["score"], seats[1]["score"]),
        result=_escaped(result),
        moves=_escaped(outcome.moves),
        record=_escaped(outcome.record),
        game=slug,
    )


def pairs_templates(tables: int, rng: np.random.Generator):
    """Duplicate tables of real Pairs matches: (game, the same deal with seats swapped)."""
    out = []
    for _ in range(tables):
        seed = int(rng.integers(1, 2**62))
        first = play_game("pairs", seed, ("heuristic", "random"))
        second = play_game("pairs", seed, ("random", "heuristic"))
        out.append((template_game(first), template_game(second)))
    return out


# --------------------------------------------------------------------------- the data set


@dataclass
class Sizes:
    bots: int
    matches: int  # ladder matches (two per table)
    round_robin: int  # entrants
    swiss: int
    elimination: int

    @classmethod
    def of(cls, scale: float) -> Sizes:
        bots = max(100, round(10_000 * scale))
        matches = max(2_000, round(1_000_000 * scale)) // 2 * 2
        return cls(
            bots=bots,
            matches=matches,
            round_robin=min(bots, max(20, round(200 * math.sqrt(scale)))),
            swiss=min(bots, 64),
            elimination=min(bots, 32),
        )


@dataclass
class Built:
    """What the timing needs to know of the data set."""

    ids: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


def iso(moment: datetime) -> str:
    return moment.isoformat()


def build(sizes: Sizes) -> Built:  # noqa: C901, PLR0915 - one straight script
    from django.conf import settings
    from django.contrib.auth.hashers import make_password

    from games import registry
    from tournaments import formats
    from tournaments.formats import Event, Finished, Result
    from tournaments.services.scheduling import seed_commitment

    built = Built()
    rng = np.random.default_rng(18)
    now = datetime.now(UTC).replace(microsecond=0)
    started = time.perf_counter()

    def lap(name: str, began: float) -> float:
        built.seconds[name] = time.perf_counter() - began
        print(f"  {name:<34} {built.seconds[name]:7.1f} s", flush=True)
        return time.perf_counter()

    # Foreign keys are checked by triggers; the rows arrive in an order they would refuse
    # (a bot names its current version before the versions exist), all consistent at the end.
    sql("set session_replication_role = replica")
    t = time.perf_counter()
    table_templates = pairs_templates(max(200, min(1000, sizes.matches // 200)), rng)
    by_pattern: dict[int, list[int]] = {}
    for index, (g0, g1) in enumerate(table_templates):
        by_pattern.setdefault(g0.outcome() * 3 + g1.outcome(), []).append(index)
    singles: dict[int, list[Game]] = {0: [], 1: [], 2: []}
    for g0, g1 in table_templates:
        for g in (g0, g1):
            singles[g.outcome()].append(g)
    draw_share = len(singles[1]) / (2 * len(table_templates))
    t = lap(f"play {len(table_templates)} template tables", t)

    pairs = registry.get("pairs")
    k, start = float(settings.ARENA_ELO_K), float(settings.ARENA_ELO_START)

    # Users: one owner per ten bots, and an organiser.
    owners = max(1, sizes.bots // 10)
    password = make_password("bench-reads-password")
    users = [(1, "organiser")] + [(i + 2, f"owner{i:05d}") for i in range(owners)]
    copy_rows(
        "auth_user",
        ["id", "password", "is_superuser", "username", "first_name", "last_name", "email"]
        + ["is_staff", "is_active", "date_joined"],
        ((uid, password, False, name, "", "", "", False, True, now) for uid, name in users),
    )
    organiser = 1

    # Bots and versions: one version each; every tenth bot has a second (parent: the first).
    n = sizes.bots
    truth = rng.normal(0.0, 200.0, n)
    has_v2 = np.arange(n) % 10 == 0
    v2_of = np.full(n, -1, dtype=np.int64)
    v2_of[has_v2] = n + 1 + np.arange(int(has_v2.sum()))  # version ids after the v1 ids
    v2_truth = truth + rng.normal(40.0, 40.0, n)
    bot_id = np.arange(1, n + 1)
    owner_of = 2 + (np.arange(n) % owners)
    created = now - timedelta(days=400)
    source = b"import sys\nfor line in sys.stdin:\n    print('{}')\n"
    sha = hashlib.sha256(source).hexdigest()
    upload = "\\\\x" + source.hex()  # bytea in COPY text format
    names = [f"bench-{i:05d}" for i in range(n)]
    current = np.where(has_v2, v2_of, bot_id)
    # The ladder's history: 360 days; a second version takes over 30% to 90% of the way in.
    tables = sizes.matches // 2
    span = timedelta(days=360).total_seconds()
    ladder_end = now - timedelta(days=2)
    switch = np.where(has_v2, rng.uniform(0.3, 0.9, n) * tables, np.inf)

    def table_time(index: float) -> datetime:
        return ladder_end - timedelta(seconds=span * (1 - index / tables))

    copy_lines(
        "bots_bot",
        ["id", "name", "game", "description", "created_at", "owner_id", "accepts_entries"]
        + ["gate_alpha", "gate_beta", "gate_elo0", "gate_elo1", "gate_max_games", "gating"]
        + ["current_id"],
        (
            f"{bot_id[i]}\t{names[i]}\tpairs\ta bench bot\t{iso(created)}\t{owner_of[i]}\tt"
            f"\t0.05\t0.05\t0\t20\t1000\tf\t{current[i]}"
            for i in range(n)
        ),
    )
    version_cols = ["id", "number", "filename", "upload", "sha256", "size", "status", "reason"]
    version_cols += ["attempts", "created_at", "validated_at", "bot_id", "kind", "gating"]
    version_cols += ["parent_id"]

    def version_lines():
        for i in range(n):
            yield (
                f"{bot_id[i]}\t1\tbot.py\t{upload}\t{sha}\t{len(source)}\tactive\t\t1"
                f"\t{iso(created)}\t{iso(created)}\t{bot_id[i]}\tpy\t\t\\N"
            )
        for i in np.flatnonzero(has_v2):
            at = iso(table_time(math.floor(switch[i])) - timedelta(hours=1))
            yield (
                f"{v2_of[i]}\t2\tbot.py\t{upload}\t{sha}\t{len(source)}\tactive\t\t1"
                f"\t{at}\t{at}\t{bot_id[i]}\tpy\t\t{bot_id[i]}"
            )

    copy_lines("bots_botversion", version_cols, version_lines())
    versions = n + int(has_v2.sum())
    t = lap(f"{len(users)} users, {n} bots, {versions} versions", t)

    # The ladder: duplicate tables (one deal, seats swapped) between bots near in strength.
    order = np.argsort(truth)
    rank_of = np.empty(n, dtype=np.int64)
    rank_of[order] = np.arange(n)
    a = rng.integers(0, n, tables)
    offset = rng.integers(1, 21, tables) * rng.choice([-1, 1], tables)
    b = order[np.clip(rank_of[a] + offset, 0, n - 1)]
    b = np.where(b == a, order[np.clip(rank_of[a] - offset, 0, n - 1)], b)
    table_index = np.arange(tables)
    va = np.where(table_index >= switch[a], v2_of[a], bot_id[a])
    vb = np.where(table_index >= switch[b], v2_of[b], bot_id[b])
    strength = np.concatenate([[0.0], truth, v2_truth[has_v2]])  # by version id
    expected_a = 1.0 / (1.0 + 10.0 ** ((strength[vb] - strength[va]) / 400.0))
    outcomes = []  # a's outcome per game: 0 win, 1 draw, 2 loss
    for _ in range(2):
        roll = rng.random(tables)
        win = roll < expected_a * (1 - draw_share)
        draw = (~win) & (roll < expected_a * (1 - draw_share) + draw_share)
        outcomes.append(np.where(win, 0, np.where(draw, 1, 2)))
    # Game 0 seats a first, game 1 seats b first: in seat terms game 1 is a's outcome mirrored.
    pattern = outcomes[0] * 3 + (2 - outcomes[1])
    chosen = np.empty(tables, dtype=np.int64)
    for code in range(9):
        where = np.flatnonzero(pattern == code)
        if not len(where):
            continue
        pool = by_pattern.get(code)
        if not pool:  # no template with that result: the nearest decisive one
            o0, o1 = divmod(code, 3)
            pool = by_pattern.get((0 if o0 == 1 else o0) * 3 + (0 if o1 == 1 else o1))
            pool = pool or by_pattern[next(iter(by_pattern))]
        chosen[where] = np.asarray(pool)[rng.integers(0, len(pool), len(where))]
    ladder_id = 1
    ladder_options = json.dumps(pairs.resolve_options({}), separators=(",", ":"))
    copy_rows(
        "tournaments_ladder",
        ["id", "key", "game", "players", "options", "paused", "created_at"]
        + ["last_scheduled_at", "tables"],
        [(ladder_id, POOL, "pairs", 2, ladder_options, False, created, ladder_end, tables)],
    )
    label = {int(bot_id[i]): f"{names[i]}@v1" for i in range(n)}
    label.update({int(v2_of[i]): f"{names[i]}@v2" for i in np.flatnonzero(has_v2)})

    # Every rated match in ledger order: (match id, seat 0's version, seat 1's, Game, time).
    rated: list[tuple[int, int, int, Game, datetime]] = []
    engine_versions = {"pairs": pairs.version, "paks": registry.get("paks").version}
    match_cols = ["id", "round", "number", "game", "engine_version", "options", "seed"]
    match_cols += ["move_ms", "bank_ms", "status", "attempts", "worker", "queued_at"]
    match_cols += ["started_at", "finished_at", "result", "moves", "record", "error"]
    match_cols += ["rated_seq", "tournament_id", "pairing_key", "series", "ladder_id", "pool"]
    seat_cols = ["id", "seat", "score", "rank", "match_id", "version_id", "log"]
    match_lines = Sink("tournaments_match", match_cols)
    seat_lines = Sink("tournaments_matchseat", seat_cols)
    next_match = [1]
    next_seat = [1]

    def add_match(
        *, v0, v1, game: Game, at, rnd, number, tournament, key, series, ladder, rate, worker="w1"
    ):
        mid = next_match[0]
        next_match[0] += 1
        seq = len(rated) + 1 if rate else None
        if rate:
            rated.append((mid, v0, v1, game, at))
        began = at - timedelta(seconds=3)
        match_lines.append(
            f"{mid}\t{rnd}\t{number}\t{game.game}"
            f"\t{engine_versions[game.game]}\t{{}}\t{game.seed}\t1000\t10000\tfinished\t1\t{worker}"
            f"\t{iso(began)}\t{iso(began)}\t{iso(at)}\t{game.result_for(label[v0], label[v1])}"
            f"\t{game.moves}\t{game.record}\t\t{_text(seq)}\t{_text(tournament)}\t{key}"
            f"\t{series}\t{_text(ladder)}\t{POOL if rate else ''}"
        )
        for seat, version in enumerate((v0, v1)):
            seat_lines.append(
                f"{next_seat[0]}\t{seat}\t{game.scores[seat]}\t{game.ranks[seat]}\t{mid}"
                f"\t{version}\t"
            )
            next_seat[0] += 1
        return mid

    for i in range(tables):
        at = table_time(i)
        g0, g1 = table_templates[chosen[i]]
        x, y = int(va[i]), int(vb[i])
        common = dict(at=at, rnd=i + 1, tournament=None, key="", series="", ladder=ladder_id)
        add_match(v0=x, v1=y, game=g0, number=1, rate=True, **common)
        add_match(v0=y, v1=x, game=g1, number=2, rate=True, **common)
    t = lap(f"{2 * tables} ladder matches computed", t)

    # Tournaments: the format's own planner decides every game; results follow strength.
    current_version = {int(bot_id[i]): int(current[i]) for i in range(n)}
    tournament_cols = ["id", "name", "game", "options", "format", "players_per_match"]
    tournament_cols += ["games_per_pairing", "rotate_seats", "move_ms", "bank_ms", "rated"]
    tournament_cols += ["seed", "start_at", "status", "created_at", "started_at", "finished_at"]
    tournament_cols += ["organiser_id", "advance", "grand_final_reset", "rounds"]
    tournament_cols += ["seed_commitment", "seed_salt", "seeding", "third_place"]
    entry_cols = ["id", "bot_id", "version_id", "tournament_id", "challenger", "place"]
    entry_cols += ["points", "seed_number", "tiebreaks"]
    tournament_rows: list[tuple] = []
    entry_rows: list[tuple] = []
    next_entry = [1]

    def tournament(tid, name, fmt, entrants, *, game_slug="pairs", rated_=True, games=None):
        """Play ``entrants`` (bot ids, best seed first) through ``fmt``; store every row."""
        event = Event(
            entrants=len(entrants),
            players_per_match=2,
            games_per_pairing=1,
            rotate_seats=True,
            rounds=None,
            challengers=(0,) if fmt == "gauntlet" else (),
        )
        versions_of = [current_version.get(b, b) for b in entrants]
        results: list[Result] = []
        done: set[str] = set()
        number = 0
        day_start = now - timedelta(days=1, hours=12)
        clock = day_start
        while True:
            answer = formats.next_matches(fmt, event, results)
            if isinstance(answer, Finished):
                break
            fresh = [p for p in answer if p.key not in done]
            if not fresh:
                raise RuntimeError(f"{fmt}: the planner is stuck")
            for pairing in fresh:
                s0, s1 = pairing.seats
                v0, v1 = versions_of[s0], versions_of[s1]
                if games is not None:
                    game = games[number % len(games)]
                else:
                    p0 = 1.0 / (1.0 + 10.0 ** ((strength[v1] - strength[v0]) / 400.0))
                    side = 0 if rng.random() < p0 else 2  # decisive: series never stall
                    pool = singles[side] or singles[2 - side]
                    game = pool[int(rng.integers(0, len(pool)))]
                number += 1
                clock += timedelta(seconds=2)
                add_match(
                    v0=v0,
                    v1=v1,
                    game=game,
                    at=clock,
                    rnd=pairing.round,
                    number=number,
                    tournament=tid,
                    key=pairing.key,
                    series=pairing.series or "",
                    ladder=None,
                    rate=rated_,
                )
                done.add(pairing.key)
                results.append(Result(pairing=pairing, ranks=game.ranks, faults=()))
        seed = int(rng.integers(1, 2**62))
        salt = f"{seed % 99991:064x}"[-64:]
        tournament_rows.append(
            (tid, name, game_slug, "{}", fmt, 2, 1, True, 1000, 10000, rated_, seed)
            + (day_start, "finished", day_start - timedelta(days=1), day_start, clock)
            + (organiser, 1, True, None, seed_commitment(seed=seed, salt=salt), salt)
            + ("rating", False)
        )
        for standing in answer.standings:
            entry_rows.append(
                (next_entry[0], entrants[standing.entrant], versions_of[standing.entrant], tid)
                + (False, standing.place, float(standing.points), standing.entrant)
                + ({k_: float(v) for k_, v in standing.tiebreaks.items()},)
            )
            next_entry[0] += 1
        return number

    def best_first(sample: np.ndarray) -> list[int]:
        return [int(bot_id[i]) for i in sorted(sample, key=lambda i: -strength[current[i]])]

    picks = rng.permutation(n)
    rr_bots = best_first(picks[: sizes.round_robin])
    rr_games = tournament(1, "Bench round robin", "round_robin", rr_bots)
    swiss_bots = best_first(picks[: sizes.swiss])
    swiss_games = tournament(2, "Bench Swiss", "swiss", swiss_bots)
    elim_bots = best_first(picks[: sizes.elimination])
    elim_games = tournament(3, "Bench knockout", "single_elimination", elim_bots)
    t = lap(
        f"tournaments: {rr_games} round robin, {swiss_games} Swiss, {elim_games} knockout",
        t,
    )

    # The long match: Paks between two Paks bots, its full record kept.
    paks_seed, long_outcome = None, None
    for seed in range(1, 400):
        outcome = play_game("paks", seed, ("random", "random"))
        if long_outcome is None or len(outcome.moves) > len(long_outcome.moves):
            paks_seed, long_outcome = seed, outcome
        if len(outcome.moves) >= LONG_MOVES:
            break
    long_game = template_game(long_outcome, "paks")
    paks_bots = [n + 1, n + 2]
    paks_versions = [versions + 1, versions + 2]
    copy_lines(
        "bots_bot",
        ["id", "name", "game", "description", "created_at", "owner_id", "accepts_entries"]
        + ["gate_alpha", "gate_beta", "gate_elo0", "gate_elo1", "gate_max_games", "gating"]
        + ["current_id"],
        (
            f"{b}\tbench-paks-{i}\tpaks\ta bench bot\t{iso(created)}\t{organiser}\tt"
            f"\t0.05\t0.05\t0\t20\t1000\tf\t{v}"
            for i, (b, v) in enumerate(zip(paks_bots, paks_versions))
        ),
    )
    copy_lines(
        "bots_botversion",
        version_cols,
        (
            f"{v}\t1\tbot.py\t{upload}\t{sha}\t{len(source)}\tactive\t\t1"
            f"\t{iso(created)}\t{iso(created)}\t{b}\tpy\t\t\\N"
            for b, v in zip(paks_bots, paks_versions)
        ),
    )
    for b, v in zip(paks_bots, paks_versions):
        current_version[b] = v
        label[v] = f"bench-paks-{b - n - 1}@v1"
    long_match = next_match[0]
    tournament(4, "Bench Paks exhibition", "round_robin", paks_bots, game_slug="paks",
               rated_=False, games=[long_game])  # fmt: skip
    t = lap(f"long Paks match: seed {paks_seed}, {len(long_outcome.moves)} moves", t)
    built.ids["long_moves"] = len(long_outcome.moves)
    built.ids["long_seed"] = paks_seed
    match_count, seat_count = match_lines.close(), seat_lines.close()
    copy_rows("tournaments_tournament", tournament_cols, tournament_rows)
    copy_rows("tournaments_entry", entry_cols, entry_rows)
    t = lap(f"COPY {match_count} matches, {seat_count} seats", t)

    # Ratings in ledger order, as rate_match leaves them: live Elo (a new version starts
    # from its parent's), history, record per version, pairwise sums.
    parent = {int(v2_of[i]): int(bot_id[i]) for i in np.flatnonzero(has_v2)}
    elo: dict[int, float] = {}
    record: dict[int, list[int]] = {}  # matches, wins, draws, losses, rank_total
    change_lines = Sink(
        "tournaments_ratingchange",
        ["id", "seq", "before", "after", "created_at", "match_id", "version_id", "pool"],
    )
    pair_first, pair_second, pair_outcome = [], [], []
    for seq, (mid, v0, v1, game, at) in enumerate(rated, start=1):
        for v in (v0, v1):
            if v not in elo:
                elo[v] = elo.get(parent.get(v, -1), start)
                record[v] = [0, 0, 0, 0, 0]
        r0, r1 = elo[v0], elo[v1]
        e0 = 1.0 / (1.0 + 10 ** ((r1 - r0) / 400.0))
        o = game.outcome()
        s0 = 1.0 if o == 0 else (0.5 if o == 1 else 0.0)
        d = k * (s0 - e0)
        elo[v0], elo[v1] = r0 + d, r1 - d
        stamp = iso(at)
        change_lines.append(
            f"{2 * seq - 1}\t{seq}\t{r0!r}\t{r0 + d!r}\t{stamp}\t{mid}\t{v0}\t{POOL}"
        )
        change_lines.append(f"{2 * seq}\t{seq}\t{r1!r}\t{r1 - d!r}\t{stamp}\t{mid}\t{v1}\t{POOL}")
        for v, mine in ((v0, o), (v1, 2 - o)):
            row = record[v]
            row[0] += 1
            row[1 + mine] += 1
            row[4] += 1 if mine != 2 else 2
        pair_first.append(v0)
        pair_second.append(v1)
        pair_outcome.append(o)
    change_count = change_lines.close()
    t = lap(f"Elo over {len(rated)} rated matches, COPY {change_count} changes", t)
    copy_rows(
        "tournaments_rating",
        ["id", "elo", "matches", "updated_at", "version_id", "draws", "losses", "pool"]
        + ["rank_total", "sides_total", "wins"],
        (
            (i, elo[v], r[0], now, v, r[2], r[3], POOL, r[4], 2 * r[0], r[1])
            for i, (v, r) in enumerate(sorted(record.items()), start=1)
        ),
    )
    first = np.asarray(pair_first, dtype=np.int64)
    second = np.asarray(pair_second, dtype=np.int64)
    outcome = np.asarray(pair_outcome, dtype=np.int64)
    swap = first > second
    lo, hi = np.where(swap, second, first), np.where(swap, first, second)
    lo_outcome = np.where(swap, 2 - outcome, outcome)
    keys, inverse = np.unique(lo * (versions + 10) + hi, return_inverse=True)
    sums = np.zeros((len(keys), 3))
    np.add.at(sums, (inverse, lo_outcome), 1.0)
    copy_rows(
        "tournaments_ratingpair",
        ["id", "pool", "wins", "draws", "losses", "first_id", "second_id"],
        (
            (i + 1, POOL, sums[i, 0], sums[i, 1], sums[i, 2])
            + (int(key // (versions + 10)), int(key % (versions + 10)))
            for i, key in enumerate(keys)
        ),
    )
    copy_rows(
        "tournaments_ratingledger",
        ["id", "pool", "last_seq", "fit_requested_at"],
        [(1, POOL, len(rated), None)],
    )
    t = lap(f"ratings: {len(record)} versions, {len(keys)} pairs", t)

    for table in (
        "auth_user",
        "bots_bot",
        "bots_botversion",
        "tournaments_ladder",
        "tournaments_match",
        "tournaments_matchseat",
        "tournaments_tournament",
        "tournaments_entry",
        "tournaments_ratingchange",
        "tournaments_rating",
        "tournaments_ratingpair",
        "tournaments_ratingledger",
    ):
        sql(
            f"select setval(pg_get_serial_sequence('{table}', 'id'), (select max(id) from {table}))"
        )
    sql("set session_replication_role = default")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    t = lap("sequences, VACUUM ANALYZE", t)

    built.counts = {
        "bots": n + 2,
        "versions": versions + 2,
        "matches": match_count,
        "seats": seat_count,
        "rated": len(rated),
        "rating_changes": change_count,
        "rating_pairs": len(keys),
        "template_tables": len(table_templates),
        "round_robin_matches": rr_games,
        "swiss_matches": swiss_games,
        "knockout_matches": elim_games,
    }
    built.seconds["raw rows"] = time.perf_counter() - started
    built.ids["long_match"] = long_match
    return built


def finish_build(built: Built) -> None:
    """The product's own work on the loaded rows: read models, then the pool's fit."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    began = time.perf_counter()
    try:
        call_command("rebuild_read_models")
        built.seconds["rebuild_read_models"] = time.perf_counter() - began
        print(f"  rebuild_read_models {built.seconds['rebuild_read_models']:10.1f} s", flush=True)
    except CommandError as exc:
        if "Unknown command" not in str(exc):
            raise
        print("  rebuild_read_models: no such command yet (skipped)", flush=True)
    from tournaments.services.fitting import fit_pool

    began = time.perf_counter()
    fit = fit_pool(pool=POOL)
    built.seconds["fit_pool"] = time.perf_counter() - began
    print(
        f"  fit_pool({POOL}): {fit.players} versions, {fit.pairs} pairs,"
        f" {built.seconds['fit_pool']:.1f} s",
        flush=True,
    )


def check_ratings() -> None:
    """The loaded ratings against what tournaments.services.rating computes from the matches."""
    from tournaments.models import Rating, RatingPair
    from tournaments.services.rating import recompute_pairs, recompute_ratings

    stored = dict(Rating.objects.filter(pool=POOL).values_list("version_id", "elo"))
    again = recompute_ratings(pool=POOL)
    worst = max(abs(stored[v] - again[v]) for v in again) if set(again) == set(stored) else None
    pairs = {
        (first, second): (wins, draws, losses)
        for first, second, wins, draws, losses in RatingPair.objects.filter(pool=POOL).values_list(
            "first_id", "second_id", "wins", "draws", "losses"
        )
    }
    same_pairs = pairs == recompute_pairs(pool=POOL)
    print(
        f"check: live Elo of {len(stored)} versions vs recompute_ratings: "
        + ("different versions" if worst is None else f"largest difference {worst:.2e}")
        + f"; pair sums {'equal' if same_pairs else 'DIFFERENT'} to recompute_pairs"
    )


def mark_built(scale: float, built: Built) -> None:
    sql(f"create table if not exists {BUILD_MARK} (scale double precision, info jsonb)")
    sql(f"delete from {BUILD_MARK}")
    info = {
        "version": BUILD_VERSION,
        "counts": built.counts,
        "seconds": built.seconds,
        "ids": built.ids,
    }
    sql(f"insert into {BUILD_MARK} values (%s, %s)", [scale, json.dumps(info)])


def read_mark() -> Built:
    scale, info = sql(f"select scale, info from {BUILD_MARK}")[0]
    info = json.loads(info) if isinstance(info, str) else info
    return Built(ids=info["ids"], counts=info["counts"], seconds=info["seconds"])


# --------------------------------------------------------------------------- the endpoints


def next_page(path: str) -> str:
    """The second page of an API list: lists page by keyset cursors (no page numbers), and
    any page costs what the second does."""
    from django.test import Client

    following = Client().get(path).json().get("next")
    return urlsplit(following)._replace(scheme="", netloc="").geturl() if following else path


def endpoints(built: Built) -> list[tuple[str, str]]:
    """(label, url) of every read the bench times, the yardstick first."""
    from django.urls import reverse

    def one(query: str) -> int:
        return sql(query)[0][0]

    rr = 1
    swiss = 2
    knockout = 3
    long_match = built.ids["long_match"]
    rr_match = one(f"select max(id) from tournaments_match where tournament_id = {rr}")
    ladder_match = one("select max(id) from tournaments_match where ladder_id is not null")
    # The bot page's bot: in the round robin, with two versions, many rated matches.
    bot = one(
        f"select e.bot_id from tournaments_entry e join bots_botversion v on v.bot_id = e.bot_id"
        f" where e.tournament_id = {rr} and v.number = 2 order by e.bot_id limit 1"
    )
    # Its most frequent opponent, for head to head.
    other = one(
        "select o.version_id from tournaments_matchseat s join tournaments_matchseat o"
        " on o.match_id = s.match_id and o.seat <> s.seat join bots_botversion v"
        f" on v.id = s.version_id where v.bot_id = {bot} group by o.version_id"
        " order by count(*) desc limit 1"
    )
    other_bot = one(f"select bot_id from bots_botversion where id = {other}")
    owner = one(f"select owner_id from bots_bot where id = {bot}")
    ladder = one("select min(id) from tournaments_ladder")
    version = one(f"select max(id) from bots_botversion where bot_id = {bot}")
    h2h = f"a={bot}&b={other_bot}"
    built.ids.update(bot=bot, other_bot=other_bot, rr_match=rr_match, ladder_match=ladder_match)
    return [
        ("api games (yardstick)", YARDSTICK),
        ("api root", "/api/"),
        ("api leaderboard", "/api/leaderboards/pairs/"),
        ("api leaderboard ?pool", f"/api/leaderboards/pairs/?pool={POOL}"),
        ("page leaderboard", "/games/pairs/"),
        ("page leaderboard ?pool", f"/games/pairs/?pool={POOL}"),
        ("page leaderboard ?q search", "/games/pairs/?q=bench-001"),
        ("page leaderboard ?cursor=last", "/games/pairs/?cursor=last"),
        ("api tournaments", "/api/tournaments/"),
        ("api tournaments ?game", "/api/tournaments/?game=pairs"),
        ("api tournaments ?status", "/api/tournaments/?status=finished"),
        ("api tournaments ?game&status", "/api/tournaments/?game=pairs&status=finished"),
        ("api tournament round robin", f"/api/tournaments/{rr}/"),
        ("api tournament Swiss", f"/api/tournaments/{swiss}/"),
        ("api tournament knockout", f"/api/tournaments/{knockout}/"),
        ("api tournament matches", f"/api/tournaments/{rr}/matches/"),
        ("api tournament matches, next page", next_page(f"/api/tournaments/{rr}/matches/")),
        ("page tournaments", "/tournaments/"),
        ("page tournament round robin", f"/tournaments/{rr}/"),
        ("page tournament rr ?page=last", f"/tournaments/{rr}/?page=last"),
        ("page tournament rr live part", f"/tournaments/{rr}/live/"),
        ("page tournament Swiss", f"/tournaments/{swiss}/"),
        ("page tournament knockout", f"/tournaments/{knockout}/"),
        ("api match (round robin)", f"/api/matches/{rr_match}/"),
        ("api match (ladder)", f"/api/matches/{ladder_match}/"),
        ("api match (long Paks)", f"/api/matches/{long_match}/"),
        ("api replay long", f"/api/matches/{long_match}/replay/"),
        ("api replay long ?seat=0", f"/api/matches/{long_match}/replay/?seat=0"),
        ("api frames long ?seat=0", f"/api/matches/{long_match}/frames/?seat=0"),
        ("api frames long (spectator)", f"/api/matches/{long_match}/frames/"),
        (f"api replay long {COLD}", f"/api/matches/{long_match}/replay/"),
        (f"api frames long ?seat=0 {COLD}", f"/api/matches/{long_match}/frames/?seat=0"),
        (f"page match long {COLD}", f"/matches/{long_match}/"),
        ("page match long", f"/matches/{long_match}/"),
        ("page match long ?seat=1", f"/matches/{long_match}/?seat=1"),
        ("page match (round robin)", f"/matches/{rr_match}/"),
        ("api bots", "/api/bots/"),
        ("api bots ?game", "/api/bots/?game=pairs"),
        ("api bots ?owner", f"/api/bots/?owner={owner}"),
        ("api bots, next page", next_page("/api/bots/")),
        ("api leaderboard, next page", next_page("/api/leaderboards/pairs/")),
        ("api bot", f"/api/bots/{bot}/"),
        ("api bot versions", f"/api/bots/{bot}/versions/"),
        ("api version", f"/api/versions/{version}/"),
        ("api bot ratings", f"/api/bots/{bot}/ratings/"),
        ("api bot ratings ?pool", f"/api/bots/{bot}/ratings/?pool={POOL}"),
        ("api bot gating", f"/api/bots/{bot}/gating/"),
        ("page bots", "/bots/"),
        ("page bots ?q search", "/bots/?q=bench-0042"),
        ("page bots ?after (a middle page)", "/bots/?after=bench-05000"),
        ("page bot names ?q (head-to-head datalist)", "/games/pairs/bot-names/?q=bench-01"),
        ("page bot", f"/bots/{bot}/"),
        ("page bot ?cancelled=1", f"/bots/{bot}/?cancelled=1"),
        ("api head-to-head", f"/api/head-to-head/?{h2h}"),
        ("page head-to-head", f"/games/pairs/head-to-head/?{h2h}"),
        ("api ladders", "/api/ladders/"),
        ("api ladder", f"/api/ladders/{ladder}/"),
        ("api ladder matches", f"/api/ladders/{ladder}/matches/"),
        ("page ladders", "/ladders/"),
        ("page ladder", f"/ladders/{ladder}/"),
        ("page ladder live part", f"/ladders/{ladder}/live/"),
        ("page home", reverse("home")),
        ("api game pairs", "/api/games/pairs/"),
        ("page rules pairs", "/games/pairs/rules/"),
    ]


# Routes that write, need a login or serve no data: not read endpoints.
NOT_READS = {
    "api-register",
    "api-token",
    "api-tournament-cancel",
    "api-ladder-pause",
    "api-ladder-resume",
    "api-match-seat-log",  # the owner's alone
    "api-version-source",  # the owner's alone
    "api-schema",
    "api-docs",
    "bot-new",
    "bot-upload",
    "bot-entries",
    "bot-gating",
    "bot-current",
    "tournament-new",
    "tournament-cancel",
    "signup",
    "login",
    "logout",
}


def uncovered_routes(urls: list[str]) -> list[str]:
    """Named routes of the project that no timed URL resolves to (new views show up here)."""
    from django.urls import get_resolver, resolve

    covered = {resolve(urlsplit(url).path).url_name for url in urls}

    def names(resolver, prefix=""):
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                if str(pattern.pattern).startswith("admin/"):
                    continue
                yield from names(pattern, prefix + str(pattern.pattern))
            elif pattern.name:
                yield pattern.name, prefix + str(pattern.pattern)

    return sorted(
        f"{name} ({route})"
        for name, route in names(get_resolver())
        if name not in covered and name not in NOT_READS
    )


# --------------------------------------------------------------------------- timing


@dataclass
class Timing:
    label: str
    url: str
    status: int
    queries: int
    kb: float
    samples: list[float]

    def quantile(self, q: float) -> float:
        """Nearest rank: the smallest sample with at least q of them at or below it."""
        ordered = sorted(self.samples)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


# Labels ending so are timed with the cache emptied before every request: a first view.
COLD = "(cache cleared)"


def time_endpoint(client, label: str, url: str, budget: float) -> Timing:
    from django.core.cache import cache
    from django.db import connection

    cold = label.endswith(COLD)

    def get():
        if cold:
            cache.clear()
        began = time.perf_counter()
        response = client.get(url)
        return response, time.perf_counter() - began

    queries = []

    def count(execute, sql_, params, many, context):
        queries.append(sql_)
        return execute(sql_, params, many, context)

    # The wrapper stays on the connection object across the client's reconnections
    # (request_started resets Django's own query log, so CaptureQueriesContext sees none).
    with connection.execute_wrapper(count):
        response, _ = get()
    status = response.status_code
    size = len(response.content) / 1024
    for _ in range(WARMUPS - 1):
        get()
    samples: list[float] = []
    planned = TIMED
    while len(samples) < planned:
        response, seconds = get()
        samples.append(seconds)
        status = status if response.status_code == status else response.status_code
        if budget and len(samples) == 1 and samples[0] * TIMED > budget:
            planned = max(5, int(budget / samples[0]))
    return Timing(label, url, status, len(queries), size, samples)


def main() -> None:
    args = ARGS
    sys.stdout.reconfigure(line_buffering=True)  # progress in order, also into a file
    sizes = Sizes.of(args.scale)
    total_began = time.perf_counter()
    reuse = args.reuse and database_built(args.database, args.scale)
    if not reuse:
        print(f"building {args.database.rsplit('/', 1)[-1]} at scale {args.scale}: {sizes}")
        recreate_database(args.database)
    else:
        print(f"reusing {args.database.rsplit('/', 1)[-1]} (built at scale {args.scale})")

    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0, interactive=False)
    if reuse:
        built = read_mark()
        finish_build(built)  # read models of code newer than the build, and a fresh fit
    else:
        began = time.perf_counter()
        built = build(sizes)
        finish_build(built)
        built.seconds["build"] = time.perf_counter() - began
        mark_built(args.scale, built)
        print(f"build: {built.seconds['build']:.0f} s in all; {built.counts}")
    if args.check:
        check_ratings()

    cache.clear()
    client = Client()
    timings = []
    todo = endpoints(built)
    print(
        f"\nlong match: {built.ids['long_match']} ({built.ids['long_moves']} moves);"
        f" bot {built.ids['bot']} vs {built.ids['other_bot']} for head to head;"
        f" cache {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}"
    )
    print(f"{WARMUPS} warm-ups then {TIMED} timed requests each (fewer past --budget)")
    for label, url in todo + [("api games (yardstick, again)", YARDSTICK)]:
        if args.only and args.only not in label and url != YARDSTICK:
            continue
        timing = time_endpoint(client, label, url, args.budget)
        timings.append(timing)
        print(
            f"  {label:<42} p95 {timing.quantile(0.95) * 1000:9.1f} ms ({len(timing.samples)})",
            flush=True,
        )
    # The yardstick is timed first and last; its p95 is over both runs' samples.
    sticks = [t for t in timings if t.url == YARDSTICK]
    yardstick = Timing(YARDSTICK, YARDSTICK, 200, 0, 0, [x for t in sticks for x in t.samples])
    base = yardstick.quantile(0.95) * 1000
    header = (
        f"{'endpoint':<42} {'st':>3} {'sql':>4} {'KB':>7} {'n':>3} {'p50 ms':>9}"
        f" {'p95 ms':>9} {'ratio':>7} {'goal':>5} {'p50 x':>6}"
    )
    print(f"\n{header}\n{'-' * len(header)}")
    over = []
    for timing in timings:
        p50, p95 = timing.quantile(0.5) * 1000, timing.quantile(0.95) * 1000
        ratio = p95 / base
        p50_ratio = p50 / (yardstick.quantile(0.5) * 1000)
        flag = "OVER" if ratio > GOAL_RATIO else ""
        if timing.url != YARDSTICK and ratio > GOAL_RATIO:
            over.append(timing)
        if timing.status != 200:
            flag = (flag + f" status {timing.status}").strip()
        print(
            f"{timing.label:<42} {timing.status:>3} {timing.queries:>4} {timing.kb:>7.0f}"
            f" {len(timing.samples):>3} {p50:>9.1f} {p95:>9.1f} {ratio:>6.1f}x"
            f" {GOAL_RATIO:>4.0f}x {p50_ratio:>5.0f}x {flag}"
        )
    reads = [t for t in timings if t.url != YARDSTICK]
    print(
        f"\n{len(reads) - len(over)} of {len(reads)} reads within {GOAL_RATIO:.0f}x of"
        f" {YARDSTICK} p95 ({base:.1f} ms over {len(yardstick.samples)} samples, timed first"
        f" and last); {len(over)} over."
    )
    missing = uncovered_routes([url for _, url in todo])
    if missing:
        print("routes not timed (add them to endpoints() if they read data):")
        for route in missing:
            print(f"  {route}")
    print(f"total run {time.perf_counter() - total_began:.0f} s")
    if not args.keep:
        drop_database(args.database)
        print("database dropped (--keep leaves it for --reuse)")


if __name__ == "__main__":
    main()
