"""Schemathesis on the competitions' routes over a database that holds a competition with an
entry, a team and an announcement, so generated ids land on real rows: no 5xx, and every
answer is one the schema documents (the whole schema's fuzzing, test_schema_fuzz.py, has no
competition to aim at)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import schemathesis
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.arena.test_schema_fuzz import fuzz, wsgi_app  # noqa: F401 (a fixture)
from tests.support.builders import bot_with_version
from tournaments.services import competitions, teams


@pytest.fixture
def season(make_user, settings):
    settings.ALLOWED_HOSTS = ["*"]
    alice, bob = make_user("alice"), make_user("bob")
    now = timezone.now()
    competition = competitions.create_competition(
        organiser=alice,
        name="season",
        game="pairs",
        players=2,
        options={},
        opens_at=None,
        deadline=now + timedelta(days=1),
        final_at=now + timedelta(days=2),
        final_settings={},
        eligibility="approval",
    )
    bot, _ = bot_with_version(name="bobs", owner=bob, announce=False)
    competitions.enter_competition(competition=competition, bot=bot, user=bob)
    teams.create_team(competition=competition, name="owls", user=bob)
    competitions.announce(competition=competition, text="welcome")
    ids = {"competitions": [competition.pk]}
    return ids, {"Authorization": f"Token {Token.objects.create(user=alice).key}"}


def test_competition_routes_answer_what_the_schema_says(season, wsgi_app):  # noqa: F811
    ids, auth = season
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app)
    operations = [
        result.ok()
        for result in schema.get_all_operations()
        if result.ok().path.startswith("/api/competitions/")
    ]
    assert len(operations) >= 15
    requests = 0
    for operation in operations:
        for mode in schemathesis.GenerationMode:
            for headers in (auth, {}):
                requests += fuzz(operation, mode, headers, ids)
    assert requests > 50
