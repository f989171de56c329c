"""The Bradley-Terry refit of a pool, run on the maintenance queue after results arrive.

Match recording never waits for it: rating a match only adds to the pool's pairwise
sums (``RatingPair``) and asks for a refit, at most one pending per pool. The fit
reads one row per pair of versions that met, plus one virtual draw between each
version and its parent (a new version starts at its parent's strength, with a wide
interval, until its own games speak), is anchored at the mean live Elo of the
fitted versions (so the pool's average stays where the live ratings have it), and
replaces the pool's fitted rows in one transaction.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Avg
from django.utils import timezone

from bots.models import BotVersion
from tournaments.models import PoolFit, Rating, RatingFit, RatingLedger, RatingPair
from tournaments.ratings import bradley_terry as bt
from tournaments.read_models import leaderboard_rows
from tournaments.services.queueing import publish_fit

log = logging.getLogger(__name__)

# Virtual draws tying a version to its parent: one draw is an interval of about
# +-680 Elo on its own, so a version's own games soon outweigh it.
PARENT_PRIOR_DRAWS = 1.0
# The fit's convergence: 1e-5 natural-log units is 0.0004 Elo.
FIT_TOLERANCE = 1e-5


def fit_pool(*, pool: str) -> PoolFit | None:
    """Refit ``pool`` from its pairwise sums; the stored fit, or None for an empty pool."""
    # Clear the request first: a result rated from now on asks for a fit of its own.
    RatingLedger.objects.filter(pool=pool).update(fit_requested_at=None)
    seq = RatingLedger.objects.filter(pool=pool).values_list("last_seq", flat=True).first()
    if not seq:
        return None
    started = time.perf_counter()
    rows = np.array(
        RatingPair.objects.filter(pool=pool).values_list(
            "first_id", "second_id", "wins", "draws", "losses"
        ),
        dtype=float,
    ).reshape(-1, 5)
    ids = np.unique(rows[:, :2]).astype(np.int64)
    links = [
        (version, parent)
        for version, parent in BotVersion.objects.filter(
            pk__in=ids.tolist(), parent_id__in=ids.tolist()
        ).values_list("pk", "parent_id")
    ]
    first = np.concatenate([rows[:, 0], [v for v, _ in links]]).astype(np.int64)
    second = np.concatenate([rows[:, 1], [p for _, p in links]]).astype(np.int64)
    extra = np.zeros(len(links))
    wins = np.concatenate([rows[:, 2], extra])
    draws = np.concatenate([rows[:, 3], extra + PARENT_PRIOR_DRAWS])
    losses = np.concatenate([rows[:, 4], extra])
    players = ids.tolist()
    # ``ids`` is sorted: a version's position is where it sorts.
    first, second = np.searchsorted(ids, first), np.searchsorted(ids, second)
    anchor = Rating.objects.filter(pool=pool, version_id__in=players).aggregate(a=Avg("elo"))["a"]
    anchor = float(anchor if anchor is not None else settings.ARENA_ELO_START)
    previous = dict(RatingFit.objects.filter(pool=pool).values_list("version_id", "elo"))
    fitted = bt.fit_arrays(
        players,
        first,
        second,
        wins,
        draws,
        losses,
        anchor=anchor,
        initial_elo=previous or None,
        tolerance=FIT_TOLERANCE,
    )
    seconds = time.perf_counter() - started
    with transaction.atomic():
        record, _ = PoolFit.objects.select_for_update().get_or_create(pool=pool)
        if record.seq > seq:  # a later fit was stored meanwhile
            return record
        RatingFit.objects.filter(pool=pool).delete()
        RatingFit.objects.bulk_create(
            [
                RatingFit(
                    pool=pool,
                    version_id=key,
                    elo=fitted.elo[key],
                    stdev=fitted.stdev[key],
                    games=fitted.games[key],
                )
                for key in fitted.players
            ],
            batch_size=2000,
        )
        record.seq = seq
        record.anchor = anchor
        record.players = len(fitted.players)
        record.pairs = len(rows)
        record.converged = fitted.converged
        record.seconds = seconds
        record.fitted_at = timezone.now()
        record.save()
        leaderboard_rows.rebuild_pool(pool=pool)
    log.info("refit %s: %d versions, %d pairs, %.2f s", pool, len(players), len(rows), seconds)
    return record


def refit_stale_pools() -> list[str]:
    """Ask again for refits whose request is old (a lost message) or was never made."""
    stale_before = timezone.now() - timedelta(
        seconds=max(60.0, 6 * settings.ARENA_FIT_DELAY_SECONDS)
    )
    fitted = dict(PoolFit.objects.values_list("pool", "seq"))
    asked = []
    for ledger in RatingLedger.objects.all():
        behind = fitted.get(ledger.pool, 0) < ledger.last_seq
        lost = ledger.fit_requested_at is not None and ledger.fit_requested_at < stale_before
        if (behind and ledger.fit_requested_at is None) or lost:
            RatingLedger.objects.filter(pk=ledger.pk).update(fit_requested_at=timezone.now())
            if publish_fit(ledger.pool):
                asked.append(ledger.pool)
    return asked
