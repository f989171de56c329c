"""End to end on a real worker: a bot that crashes only under continuous Pairs passes its own
validation (default options) and is entered in a continuous tournament. Before round 1 it
plays one validation match under those options, fails it, and is withdrawn: it plays no
game of the event and forfeits nothing, its owner reads why and nobody else does, and the
bots that cope with the option play the event out. A second such event asks nothing again.
The reaper sends these validations again as it does a version's own."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from bots import services as bot_services
from bots.models import OptionsValidation
from bots.queueing import VALIDATE_OPTIONS, VALIDATIONS, held_first_args
from tests.support import builders
from tests.support.raw_bot import option_shy_source
from tests.support.servers import wait_for
from tests.support.user_journey import RAW_BOT, SDK_BOT, register, upload, version_status
from tests.support.workers import purge_broker
from tournaments.models import Entry, MatchSeat, Tournament

pytestmark = [pytest.mark.integration]


@pytest.fixture(autouse=True)
def production_shape():
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def finished(tournament_id: int) -> Tournament | None:
    tournament = Tournament.objects.get(pk=tournament_id)
    return tournament if tournament.status in ("finished", "cancelled") else None


def test_a_bot_that_fails_under_the_events_options_is_withdrawn_before_round_1(
    celery_worker_process,
):
    worker = celery_worker_process
    alice, bob = register("shy-owner"), register("steady-owner")
    shy_bot, shy = upload(alice, "shy", "shy.py", option_shy_source("continuous", "no lap"))
    steady1_bot, steady1 = upload(bob, "steady1", "steady1.py", SDK_BOT)
    steady2_bot, steady2 = upload(bob, "steady2", "steady2.py", RAW_BOT)
    for client, version_id in ((alice, shy), (bob, steady1), (bob, steady2)):
        body = wait_for(
            lambda c=client, v=version_id: version_status(c, v), 90, "a verdict", worker
        )
        assert body["status"] == "active", body  # the defaults: every one of them copes

    entered = [shy_bot, steady1_bot, steady2_bot]
    body = {"name": "continuous cup", "game": "pairs", "bots": entered,
            "options": {"continuous": True}, "seeding": "entry"}  # fmt: skip
    answer = bob.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.content
    first = answer.json()["id"]
    tournament = wait_for(lambda: finished(first), 240, "the tournament to end", worker)
    assert tournament.status == "finished", tournament.cancel_reason

    entry = Entry.objects.get(tournament=tournament, bot_id=shy_bot)
    assert entry.withdrawn and entry.seed_number is None
    assert "no lap" in entry.withdrawal_reason  # its stderr's tail: for alice only
    assert not MatchSeat.objects.filter(match__tournament=tournament, version_id=shy).exists()
    seats = MatchSeat.objects.filter(match__tournament=tournament)
    assert seats.count() == 2 * 2  # one pairing, a game per seat rotation
    assert all(seat.fault is None for seat in seats)  # the others play the option cleanly
    verdicts = dict(OptionsValidation.objects.values_list("version_id", "status"))
    assert verdicts == {shy: "failed", steady1: "passed", steady2: "passed"}

    mine = alice.get(f"/api/tournaments/{first}/").json()["entrants"]
    theirs = bob.get(f"/api/tournaments/{first}/").json()["entrants"]
    assert "no lap" in next(r for r in mine if r["bot_id"] == shy_bot)["withdrawal_reason"]
    row = next(r for r in theirs if r["bot_id"] == shy_bot)
    assert row["withdrawn"] == "withdrawn: failed validation under this event's options"
    assert "withdrawal_reason" not in row and "no lap" not in str(theirs)

    # The same versions under the same options: nothing is validated again.
    answer = bob.post("/api/tournaments/", {**body, "name": "again"}, format="json")
    second = answer.json()["id"]
    tournament = wait_for(lambda: finished(second), 240, "the second tournament", worker)
    assert tournament.status == "finished"
    assert OptionsValidation.objects.count() == 3
    assert Entry.objects.get(tournament=tournament, bot_id=shy_bot).withdrawn


def test_the_reaper_resends_lost_options_validations_and_frees_abandoned_ones(
    transactional_db, settings
):
    """As for a version's own validation (test_queues.py): a pending one whose message the
    broker lost is sent again, once; one validating past ARENA_STALE_VALIDATION_SECONDS
    since its delivery goes back to pending and is sent again."""
    purge_broker()
    settings.ARENA_LOST_MESSAGE_SECONDS = 30
    settings.ARENA_STALE_VALIDATION_SECONDS = 600
    _, version = builders.bot_with_version(name="reaped", announce=False)
    now = timezone.now()

    def held() -> set:
        ours = set(OptionsValidation.objects.values_list("pk", flat=True))
        args = held_first_args(task_name=VALIDATE_OPTIONS, queue=VALIDATIONS, delivered_within=600)
        return args & ours

    lost = OptionsValidation.objects.create(
        version=version, key="pairs:3", players=3, queued_at=now - timedelta(minutes=1)
    )
    assert bot_services.requeue_stuck_validations() == 1
    assert held() == {lost.pk}
    OptionsValidation.objects.filter(pk=lost.pk).update(queued_at=now - timedelta(minutes=1))
    assert bot_services.requeue_stuck_validations() == 0  # the broker holds it
    abandoned = OptionsValidation.objects.create(
        version=version, key="pairs:4", players=4, status="validating",
        queued_at=now - timedelta(minutes=11),
    )  # fmt: skip
    assert bot_services.requeue_stuck_validations() == 1
    abandoned.refresh_from_db()
    assert abandoned.status == "pending"
    assert held() == {lost.pk, abandoned.pk}
    purge_broker()
