"""The tournament list reads its rows' entrants in one query, whatever the page holds."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.support.builders import active_bots
from tournaments import selectors, services
from tournaments.models import Tournament


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


def create(organiser, n: int) -> None:
    bots = list(organiser.bots.all()) or active_bots(owner=organiser, count=3)
    for i in range(n):
        services.create_tournament(
            organiser=organiser, name=f"cup {i}", game="pairs", bot_ids=[b.pk for b in bots]
        )


def test_the_list_costs_the_same_queries_for_more_rows_and_shows_every_entrant(organiser):
    create(organiser, 2)
    with CaptureQueriesContext(connection) as few:
        assert APIClient().get("/api/tournaments/").status_code == 200
    create(organiser, 4)
    with CaptureQueriesContext(connection) as more:
        rows = APIClient().get("/api/tournaments/").json()["results"]
    assert len(rows) == 6 and len(more) == len(few)
    for row in rows:
        fresh = Tournament.objects.get(pk=row["id"])
        assert row["entrants"] == selectors.entrants(tournament=fresh)
        assert len(row["entrants"]) == 3
