"""Version gates: a new version plays its parent on paired duplicate deals under an SPRT.

When a gated bot's new version becomes active (``bots.hooks``, registered in
``TournamentsConfig.ready``; ``check_gates`` on the beat catches anything missed), a
gate is opened in the bot's game's standard pool. Matches are scheduled in batches of
pairs (``ARENA_GATE_BATCH_PAIRS``): both matches of a pair share a seed (the same
deal), with the seats of the two versions swapped, so the luck of the deal cancels
within the pair. They travel on the matches queue and are played and recorded by the
ordinary lifecycle (``tournaments.services.playing``), which calls ``advance_gate``
as each one finishes. Gate matches are not rated: they are a test between two
versions of one bot, not games of the pool.

``advance_gate`` recomputes the pentanomial counts over the completed pairs, and
fishtest's generalised SPRT on them (``tournaments.ratings.sprt``) decides: H1 makes
the candidate its bot's current version, H0 or the game cap keeps the parent.

At more than two seats the candidate takes the even seats and the parent the odd
ones in the first match of a pair, and the reverse in the second; the candidate's
score in a match is its mean score by rank against the parent's seats, so a pair's
total is rounded to the nearest pentanomial bucket.
"""

from __future__ import annotations

import logging
import secrets
from collections import defaultdict

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots.models import Bot, BotVersion
from games import registry
from games.rng import derive_seed
from tournaments.models import Gate, Match
from tournaments.ratings import match as match_stats
from tournaments.ratings import pools, sprt
from tournaments.read_models import leaderboard_rows
from tournaments.services import telling
from tournaments.services.queueing import queue_match_after_commit

log = logging.getLogger(__name__)
FINAL = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)
VERDICT_STATUS = {sprt.Verdict.H1: Gate.Status.PASSED, sprt.Verdict.H0: Gate.Status.FAILED}


def start_gate(*, version_id: int) -> Gate | None:
    """Open the gate of a version waiting for one; None when it needs none."""
    version = BotVersion.objects.select_related("bot").defer("upload").get(pk=version_id)
    if (
        version.gating != BotVersion.Gating.RUNNING
        or version.status != BotVersion.Status.ACTIVE
        or version.parent_id is None
    ):
        return None
    bot = version.bot
    lower, upper = sprt.bounds(bot.gate_alpha, bot.gate_beta)
    with transaction.atomic():
        gate, created = Gate.objects.get_or_create(
            candidate=version,
            defaults={
                "parent_id": version.parent_id,
                "pool": pools.default_pool(bot.game),
                "elo0": bot.gate_elo0,
                "elo1": bot.gate_elo1,
                "alpha": bot.gate_alpha,
                "beta": bot.gate_beta,
                "max_games": bot.gate_max_games,
                "seed": secrets.randbits(62),
                "counts": [0, 0, 0, 0, 0],
                "lower": lower,
                "upper": upper,
            },
        )
        if created:
            gate = Gate.objects.select_for_update().get(pk=gate.pk)
            _schedule_batch(gate)
    return gate


def start_gate_after_activation(version_id: int) -> None:
    """``bots.hooks`` callback: open the version's gate if it waits for one."""
    start_gate(version_id=version_id)


def _schedule_batch(gate: Gate) -> int:
    """Create and queue the next batch of pairs (the caller holds the gate's lock)."""
    pool = pools.parse(gate.pool)
    engine = registry.get(pool.game)
    options = engine.resolve_options(pool.options)
    cap_pairs = max(1, gate.max_games // 2)
    batch = min(settings.ARENA_GATE_BATCH_PAIRS, cap_pairs - gate.pairs_scheduled)
    for number in range(gate.pairs_scheduled + 1, gate.pairs_scheduled + batch + 1):
        seed = derive_seed(gate.seed, "pair", number) >> 2
        for half in (1, 2):
            match = Match.objects.create(
                gate=gate,
                round=number,
                number=half,
                game=pool.game,
                engine_version=engine.version,
                options=options,
                seed=seed,
                status=Match.Status.QUEUED,
                queued_at=timezone.now(),
            )
            match.seats.bulk_create(
                [
                    match.seats.model(
                        match=match,
                        seat=seat,
                        version_id=_seat_version(gate, seat, half),
                    )
                    for seat in range(pool.players)
                ]
            )
            queue_match_after_commit(match.pk)
    gate.pairs_scheduled += max(batch, 0)
    gate.save(update_fields=["pairs_scheduled"])
    return max(batch, 0)


def _seat_version(gate: Gate, seat: int, half: int) -> int:
    candidate_seat = (seat % 2 == 0) == (half == 1)
    return gate.candidate_id if candidate_seat else gate.parent_id


def candidate_score(gate: Gate, seats: list[tuple[int, int]]) -> float:
    """The candidate's mean score by rank against the parent's seats in one match.

    ``seats`` holds (version id, rank) per seat; a faulted seat ranks last already.
    """
    mine = [rank for version, rank in seats if version == gate.candidate_id]
    theirs = [rank for version, rank in seats if version == gate.parent_id]
    scores = [match_stats.rank_score(a, b) for a in mine for b in theirs]
    return sum(scores) / len(scores)


def pentanomial(gate: Gate) -> list[int]:
    """Counts of completed pairs by the candidate's points over the pair (0, 1/2, ..., 2)."""
    by_pair: dict[int, dict[int, list]] = defaultdict(dict)
    finished = gate.matches.filter(status=Match.Status.FINISHED).prefetch_related("seats")
    for match in finished:
        seats = [(seat.version_id, seat.rank) for seat in match.seats.all()]
        by_pair[match.round][match.number] = seats
    pairs = [
        (candidate_score(gate, halves[1]), candidate_score(gate, halves[2]))
        for halves in by_pair.values()
        if len(halves) == 2
    ]
    return match_stats.pentanomial_counts(pairs)


def advance_gate(*, gate_id: int) -> Gate:
    """Recount, test, and finish the gate or schedule the next batch when this one is done."""
    with transaction.atomic():
        gate = Gate.objects.select_for_update().get(pk=gate_id)
        if gate.status != Gate.Status.RUNNING:
            return gate
        counts = pentanomial(gate)
        state = sprt.sprt_pentanomial(
            counts, gate.elo0, gate.elo1, alpha=gate.alpha, beta=gate.beta
        )
        gate.counts = counts
        gate.llr = state.llr
        gate.save(update_fields=["counts", "llr"])
        unfinished = gate.matches.exclude(status__in=FINAL).exists()
        status = VERDICT_STATUS.get(state.verdict)
        if status is None and not unfinished:
            if 2 * gate.pairs_scheduled >= gate.max_games:
                status = Gate.Status.CAPPED
            else:
                _schedule_batch(gate)
        if status is not None:
            _finish(gate, status)
    return gate


def _finish(gate: Gate, status: str) -> None:
    gate.status = status
    gate.finished_at = timezone.now()
    gate.save(update_fields=["status", "finished_at"])
    gate.matches.filter(status__in=[Match.Status.SCHEDULED, Match.Status.QUEUED]).update(
        status=Match.Status.CANCELLED, finished_at=timezone.now()
    )
    passed = status == Gate.Status.PASSED
    BotVersion.objects.filter(pk=gate.candidate_id).update(
        gating=BotVersion.Gating.PASSED if passed else BotVersion.Gating.FAILED
    )
    if passed:  # the candidate becomes the version that plays
        Bot.objects.filter(versions=gate.candidate_id).update(current_id=gate.candidate_id)
    bot_id = BotVersion.objects.filter(pk=gate.candidate_id).values_list("bot_id", flat=True)
    leaderboard_rows.after_bot_change(bot_id.get())
    telling.gate_decided(gate)
    log.info("gate %s of version %s: %s (LLR %.2f)", gate.pk, gate.candidate_id, status, gate.llr)


def check_gates() -> int:
    """The beat's safety net: open gates a hook missed, and move on gates whose matches
    all ended without a result arriving (failed out of attempts). How many it touched."""
    touched = 0
    waiting = BotVersion.objects.filter(
        status=BotVersion.Status.ACTIVE, gating=BotVersion.Gating.RUNNING, gate__isnull=True
    ).values_list("pk", flat=True)
    for version_id in waiting:
        if start_gate(version_id=version_id) is not None:
            touched += 1
    for gate_id in Gate.objects.filter(status=Gate.Status.RUNNING).values_list("pk", flat=True):
        if not Match.objects.filter(gate_id=gate_id).exclude(status__in=FINAL).exists():
            advance_gate(gate_id=gate_id)
            touched += 1
    return touched
