"""Elo updates per rating pool, applied live in ledger order, and recomputed from scratch.

A finished match is rated in exactly one pool (``tournaments.pools.pool_key`` of its
game, seat count and options). Under the pool's ledger lock it gets the next
position, the live Elo moves, the version's record there grows, the pairwise
sums the Bradley-Terry refit reads are updated, and a refit is asked for (at most
one pending per pool: ``tournaments.services.fitting``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from bots.models import BotVersion
from tournaments import elo, leaderboards, pools
from tournaments.models import Match, Rating, RatingChange, RatingLedger, RatingPair
from tournaments.services.queueing import request_fit_after_commit

log = logging.getLogger(__name__)


def rated_result(match: Match) -> elo.RatedResult:
    keys = [seat.version_id for seat in sorted(match.seats.all(), key=lambda s: s.seat)]
    return elo.sides_from_match_result(match.result, keys)


def pool_of(match: Match) -> str:
    return pools.pool_key(match.game, match.seats.count(), match.options)


def version_parents(version_ids: Iterable[int]) -> dict[int, int]:
    """{version: parent} for every version of the bots of ``version_ids`` (ancestor walks)."""
    bots = BotVersion.objects.filter(pk__in=list(version_ids)).values("bot_id")
    return dict(
        BotVersion.objects.filter(bot_id__in=bots, parent__isnull=False).values_list(
            "pk", "parent_id"
        )
    )


@transaction.atomic
def rate_match(*, match: Match) -> None:
    """Apply one finished match to its pool's ratings, under the pool's ledger lock."""
    if match.rated_seq is not None:
        return
    try:
        pool = pool_of(match)
    except pools.InvalidPool:
        # Options the engine no longer accepts (a rules change): no pool to rate it in.
        log.warning("match %s is not rated: no pool for its options", match.pk)
        return
    RatingLedger.objects.get_or_create(pool=pool)
    ledger = RatingLedger.objects.select_for_update().get(pool=pool)
    result = rated_result(match)
    keys = {key for side in result.sides for key in side}
    parents = version_parents(keys)
    rows = {
        r.version_id: r
        for r in Rating.objects.select_for_update().filter(pool=pool, version_id__in=keys)
    }
    # Ancestors' ratings, for a version's first match (only this lock writes them).
    known = dict(
        Rating.objects.filter(pool=pool, version_id__in=set(parents.values())).values_list(
            "version_id", "elo"
        )
    )
    known.update({key: row.elo for key, row in rows.items()})
    current = dict(known)
    moved = elo.apply(current, result, settings.ARENA_ELO_K, settings.ARENA_ELO_START, parents)
    seq = ledger.last_seq + 1
    sides = len(result.sides)
    side_of = {key: i for i, side in enumerate(result.sides) for key in side}
    for key, (before, after) in moved.items():
        row = rows.get(key) or Rating(pool=pool, version_id=key, elo=before)
        row.elo = after
        row.matches += 1
        rank = result.ranks[side_of[key]]
        row.rank_total += rank
        row.sides_total += sides
        if sides == 2:
            other = result.ranks[1 - side_of[key]]
            row.wins += rank < other
            row.draws += rank == other
            row.losses += rank > other
        row.save()
        RatingChange.objects.create(
            match=match, version_id=key, pool=pool, seq=seq, before=before, after=after
        )
    _add_pairs(pool, elo.pair_records(result))
    ledger.last_seq = seq
    fields = ["last_seq"]
    if ledger.fit_requested_at is None:
        ledger.fit_requested_at = timezone.now()
        fields.append("fit_requested_at")
        request_fit_after_commit(pool)
    ledger.save(update_fields=fields)
    Match.objects.filter(pk=match.pk).update(rated_seq=seq, pool=pool)
    leaderboards.after_rating(pool=pool, version_ids=keys)
    match.rated_seq = seq
    match.pool = pool


def _add_pairs(pool: str, records: list[tuple]) -> None:
    """Add the result's pairwise records to the pool's sums (the caller holds the lock)."""
    totals: dict[tuple[int, int], list[float]] = {}
    for first, second, wins, draws, losses in records:
        if first > second:
            first, second, wins, losses = second, first, losses, wins
        total = totals.setdefault((first, second), [0.0, 0.0, 0.0])
        total[0] += wins
        total[1] += draws
        total[2] += losses
    for (first, second), (wins, draws, losses) in totals.items():
        updated = RatingPair.objects.filter(pool=pool, first_id=first, second_id=second).update(
            wins=F("wins") + wins, draws=F("draws") + draws, losses=F("losses") + losses
        )
        if not updated:
            RatingPair.objects.create(
                pool=pool, first_id=first, second_id=second, wins=wins, draws=draws, losses=losses
            )


def rated_matches(pool: str):
    return (
        Match.objects.filter(pool=pool, rated_seq__isnull=False)
        .order_by("rated_seq")
        .prefetch_related("seats")
    )


def recompute_ratings(*, pool: str) -> dict[int, float]:
    """Every version's Elo in ``pool`` from the ordered rated results alone."""
    results = [rated_result(m) for m in rated_matches(pool)]
    keys = {key for result in results for side in result.sides for key in side}
    return elo.recompute(
        results, settings.ARENA_ELO_K, settings.ARENA_ELO_START, version_parents(keys)
    )


def recompute_pairs(*, pool: str) -> dict[tuple[int, int], tuple[float, float, float]]:
    """The pool's pairwise sums from the ordered rated results alone (a check on RatingPair)."""
    totals: dict[tuple[int, int], list[float]] = {}
    for match in rated_matches(pool):
        for first, second, wins, draws, losses in elo.pair_records(rated_result(match)):
            if first > second:
                first, second, wins, losses = second, first, losses, wins
            total = totals.setdefault((first, second), [0.0, 0.0, 0.0])
            total[0] += wins
            total[1] += draws
            total[2] += losses
    return {pair: tuple(values) for pair, values in totals.items()}
