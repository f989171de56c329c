"""Elo updates applied live, in ledger order, and recomputed from scratch."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from tournaments import elo
from tournaments.models import Match, Rating, RatingChange, RatingLedger


def _rated_result(match: Match) -> elo.RatedResult:
    keys = [seat.version_id for seat in sorted(match.seats.all(), key=lambda s: s.seat)]
    return elo.sides_from_match_result(match.result, keys)


@transaction.atomic
def rate_match(*, match: Match) -> None:
    """Apply one finished match to its game's ratings, under the game's ledger lock."""
    if match.rated_seq is not None:
        return
    RatingLedger.objects.get_or_create(game=match.game)
    ledger = RatingLedger.objects.select_for_update().get(game=match.game)
    result = _rated_result(match)
    keys = {key for side in result.sides for key in side}
    rows = {
        r.version_id: r
        for r in Rating.objects.select_for_update().filter(game=match.game, version_id__in=keys)
    }
    current = {key: rows[key].elo for key in keys if key in rows}
    moved = elo.apply(current, result, settings.ARENA_ELO_K, settings.ARENA_ELO_START)
    seq = ledger.last_seq + 1
    for key, (before, after) in moved.items():
        row = rows.get(key) or Rating(game=match.game, version_id=key, elo=before)
        row.elo = after
        row.matches += 1
        row.save()
        RatingChange.objects.create(
            match=match, version_id=key, game=match.game, seq=seq, before=before, after=after
        )
    ledger.last_seq = seq
    ledger.save(update_fields=["last_seq"])
    Match.objects.filter(pk=match.pk).update(rated_seq=seq)
    match.rated_seq = seq


def recompute_ratings(*, game: str) -> dict[int, float]:
    """Every version's Elo for ``game`` from the ordered rated results alone."""
    matches = (
        Match.objects.filter(game=game, rated_seq__isnull=False)
        .order_by("rated_seq")
        .prefetch_related("seats")
    )
    return elo.recompute(
        (_rated_result(m) for m in matches), settings.ARENA_ELO_K, settings.ARENA_ELO_START
    )
