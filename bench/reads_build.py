"""The reads bench's data set, written with COPY from arrays computed here (see
bench/README.md): users, bots and versions, the ladder's duplicate tables, three tournaments
the product's own planner decided, one long Paks match, then the ratings (reads_ratings)."""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from reads_db import POOL, Built, Sink, _text, copy_lines, copy_rows, sql
from reads_games import Game, pairs_templates, play_game, template_game
from reads_ratings import load_ratings

LONG_MOVES = 800  # the long match has at least this many moves


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

    # Ratings in ledger order, as rate_match leaves them (reads_ratings).
    parent = {int(v2_of[i]): int(bot_id[i]) for i in np.flatnonzero(has_v2)}
    change_count, pair_count, rated_versions = load_ratings(
        rated, parent, k=k, start=start, now=now, versions=versions
    )
    t = lap(
        f"ratings: {len(rated)} rated, {change_count} changes, {rated_versions} versions,"
        f" {pair_count} pairs",
        t,
    )

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
        "rating_pairs": pair_count,
        "template_tables": len(table_templates),
        "round_robin_matches": rr_games,
        "swiss_matches": swiss_games,
        "knockout_matches": elim_games,
    }
    built.seconds["raw rows"] = time.perf_counter() - started
    built.ids["long_match"] = long_match
    return built
