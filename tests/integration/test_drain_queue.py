"""Draining a queue from the operations page with a real worker (Redis): the worker stops
consuming it, its messages wait, and taking it up again gives it back to that worker,
which then does the waiting work."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bots import operations
from bots import services as bot_services
from bots.models import BotVersion
from tests.integration.test_queues import QUICK_BOT, needs_redis_and_postgres
from tests.support.servers import wait_for

pytestmark = [pytest.mark.integration]


def queues_of_the_worker() -> list[str]:
    (worker,) = operations.workers_alive(timeout=1)
    return worker.queues


def test_drain_and_take_up_again(celery_worker_process, client):
    needs_redis_and_postgres()
    staff = get_user_model().objects.create_user("drainer", is_staff=True)
    client.force_login(staff)
    assert queues_of_the_worker() == ["human_games", "maintenance", "matches", "validations"]

    page = client.post("/operations/act/", {"action": "drain", "queue": "validations"}, follow=True)
    assert "Queue validations drained: 1 worker(s)" in page.content.decode()
    assert queues_of_the_worker() == ["human_games", "maintenance", "matches"]
    assert len(operations.drained_by("validations")) == 1
    assert 'value="undrain"' in client.get("/operations/live/").content.decode()

    bot = bot_services.create_bot(owner=staff, name="drained", game="pairs")
    version = bot_services.upload_version(bot=bot, filename="quick.py", data=QUICK_BOT)
    wait_for(
        lambda: operations.queue_depths(timeout=2)["validations"] == 1,
        10,
        "the validation to wait in its queue",
    )
    assert BotVersion.objects.get(pk=version.pk).status == "pending"

    page = client.post(
        "/operations/act/", {"action": "undrain", "queue": "validations"}, follow=True
    )
    assert "Queue validations taken up again by 1 worker(s)" in page.content.decode()
    assert operations.drained_by("validations") == []
    wait_for(
        lambda: BotVersion.objects.get(pk=version.pk).status == "active",
        60,
        "the waiting validation to be done",
        celery_worker_process,
    )
    assert queues_of_the_worker() == ["human_games", "maintenance", "matches", "validations"]
