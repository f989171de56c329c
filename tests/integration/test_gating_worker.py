"""Version gates through a real worker: a stronger version passes, an identical one fails.

The bot's first version plays at random; its second is the card-counting example
(examples/bots/pairs_cautious.py wins about nineteen Pairs matches in twenty against
random), which must pass; its third is the same program again, which must fail, and
the bot keeps its second. Every gate match is claimed, played in the sandbox and
recorded by the ordinary lifecycle on the matches queue.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from bots.models import BotVersion
from bots.selectors import current_version
from tests.support.servers import wait_for
from tests.support.user_journey import register
from tournaments.models import Gate, Match

pytestmark = [pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = b"""import random

from arena_sdk import run

run(lambda observation, legal: random.choice(legal))
"""
CAUTIOUS_BOT = (ROOT / "examples" / "bots" / "pairs_cautious.py").read_bytes()


@pytest.fixture(autouse=True)
def production_shape():
    if not settings.CELERY_BROKER_URL.startswith("redis://") or connection.vendor != "postgresql":
        pytest.skip("needs Redis and PostgreSQL (make test sets them)")


def upload_version(client, bot_id: int, data: bytes) -> int:
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        f"/api/bots/{bot_id}/versions/",
        {"file": SimpleUploadedFile("main.py", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def gate_verdict(version_id: int) -> Gate | None:
    gate = Gate.objects.filter(candidate_id=version_id).first()
    return gate if gate is not None and gate.status != Gate.Status.RUNNING else None


def test_a_stronger_version_passes_its_gate_and_an_identical_one_fails(celery_worker_process):
    worker = celery_worker_process
    client = register("gater")
    bot_id = client.post("/api/bots/", {"name": "gated", "game": "pairs"}, format="json").json()[
        "id"
    ]
    first = upload_version(client, bot_id, RANDOM_BOT)
    wait_for(
        lambda: BotVersion.objects.get(pk=first).status == "active", 90, "the first version", worker
    )
    settings_answer = client.patch(
        f"/api/bots/{bot_id}/gating/",
        {"gating": True, "elo0": 0, "elo1": 100, "max_games": 120},
        format="json",
    )
    assert settings_answer.status_code == 200, settings_answer.content

    stronger = upload_version(client, bot_id, CAUTIOUS_BOT)
    gate = wait_for(lambda: gate_verdict(stronger), 600, "the stronger version's gate", worker)
    assert gate.status == Gate.Status.PASSED, (gate.counts, gate.llr)
    assert gate.parent_id == first and gate.llr >= gate.upper
    shown = client.get(f"/api/bots/{bot_id}/gating/").json()["gates"][0]
    assert shown["status"] == "passed" and shown["llr"] >= shown["upper"]
    # The gate's matches were real: played, recorded once, on paired deals.
    played = Match.objects.filter(gate=gate, status=Match.Status.FINISHED)
    assert played.count() >= 2 * sum(gate.counts)
    assert all(m.tournament_id is None and m.moves for m in played)

    # The same program (a byte-identical upload is refused as a duplicate).
    identical = upload_version(client, bot_id, CAUTIOUS_BOT + b"\n# the same bot again\n")
    gate = wait_for(lambda: gate_verdict(identical), 600, "the identical version's gate", worker)
    assert gate.status == Gate.Status.FAILED, (gate.counts, gate.llr)
    assert gate.parent_id == stronger and gate.llr <= gate.lower
    # The same program on the same deal with seats swapped: every pair splits evenly.
    assert gate.counts[2] == sum(gate.counts)
    versions = BotVersion.objects.filter(bot_id=bot_id).order_by("number")
    assert [v.gating for v in versions] == ["", "passed", "failed"]
    assert current_version(bot=versions[0].bot).pk == stronger
