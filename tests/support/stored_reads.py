"""What the stored-read tests share: an answer as a reader gets it, the same answer
rendered with nothing stored, a ladder with matches queued, and the writes they make: a
match's claim and result as two, a new version, a gate."""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from tests.support.builders import active_bots, outcome, version
from tournaments.models import Gate, Ladder, Match
from tournaments.services.ladder import schedule_ladders
from tournaments.services.playing import claim_match, record_result


def answer(url: str):
    response = APIClient().get(url)
    assert response.status_code == 200, url
    return response.content, response["Content-Type"], response.get("Vary")


def fresh(url: str):
    """The answer with nothing stored: rendered from the database."""
    cache.clear()
    return answer(url)


def queued_ladder(*, owner, settings) -> Ladder:
    """The pairs ladder of six active bots of ``owner``, its first matches queued (four
    slots)."""
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 4
    active_bots(owner=owner, count=6)
    assert schedule_ladders() > 0
    return Ladder.objects.get()


def claim_then_result(match: Match) -> tuple[Callable[[], None], Callable[[], None]]:
    """Two writes for a queued ``match``: a worker's claim, then its result (ranks 1, 2)
    recorded under the claim's attempt."""
    attempt = None

    def claim() -> None:
        nonlocal attempt
        attempt = claim_match(match_id=match.pk)

    def result() -> None:
        record_result(
            match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
        )

    return claim, result


def new_version(*, bot: Bot, number: int, status: str = BotVersion.Status.PENDING) -> BotVersion:
    """Version ``number`` of ``bot`` as uploaded (pending unless ``status`` says otherwise);
    the read models are left to the triggers under test."""
    return version(bot=bot, number=number, status=status, announce=False)


def open_gate(*, candidate: BotVersion) -> Gate:
    """A gate testing ``candidate`` against its bot's first version."""
    return Gate.objects.create(
        candidate=candidate,
        parent=candidate.bot.versions.get(number=1),
        pool="pairs",
        elo0=0.0,
        elo1=20.0,
        max_games=100,
        seed=1,
        counts=[0, 0, 0, 0, 0],
        lower=-2.9,
        upper=2.9,
    )
