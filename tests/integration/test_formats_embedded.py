"""A Swiss event on the embedded default: SQLite and the filesystem broker, no servers."""

import pytest
from django.db import connection

from tests.integration.test_formats_worker import (
    active_bots,
    each_match_counted_once,
    finished_body,
)

pytestmark = [pytest.mark.embedded]


def test_a_swiss_event_plays_to_the_end_embedded(celery_worker_process, organiser):
    assert connection.vendor == "sqlite"
    user, client = organiser
    bots = active_bots(user, 4)
    body = {"name": "embedded swiss", "game": "pairs", "bots": bots, "format": "swiss", "rounds": 2}
    answer = client.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    data = finished_body(client, answer.json()["id"], celery_worker_process)
    each_match_counted_once(data["id"])
    assert [r["round"] for r in data["round_tables"]] == [1, 2]
