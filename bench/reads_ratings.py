"""The reads bench's ratings, as tournaments.services.rating.rate_match leaves them, then the
product's own finishing work (read models, the pool's fit) and an optional check."""

from __future__ import annotations

import time
from datetime import datetime

import numpy as np
from reads_db import POOL, Sink, copy_rows


def load_ratings(
    rated: list, parent: dict[int, int], *, k: float, start: float, now: datetime, versions: int
) -> tuple[int, int, int]:
    """Fold ``rated`` ((match id, seat 0's version, seat 1's, Game, time) in ledger order)
    into live Elo (a new version starts from its parent's), the history, each version's
    record and the pairwise sums, all written by COPY: (changes, pairs, versions rated)."""
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
        stamp = at.isoformat()
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
    return change_count, len(keys), len(record)


def finish_build(built) -> None:
    """The product's own work on the loaded rows (``built``: reads_build.Built): read
    models, then the pool's fit."""
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
