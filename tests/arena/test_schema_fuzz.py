"""Schemathesis against the WSGI app: no 5xx, and every answer is one the schema documents.

Bounded and derandomized (a fixed number of generated requests per operation, the
same ones on every run), signed in with a real token, over a database that holds a
bot with a version, a tournament and a finished match, so generated ids often name
real objects. Besides the generated requests, every documented query parameter gets
a short list of hostile values (NUL, non-ASCII digits, words where numbers belong).
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.cache import cache
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from bots.models import Bot
from games import registry
from games.policies import play_out, random_policy
from games.rng import Rng
from tournaments import selectors
from tournaments.models import Match, MatchSeat, Tournament

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
EXAMPLES_PER_OPERATION_AND_MODE = 6
HOSTILE_QUERY_VALUES = ["\x00", "a\x00b", "²", "١", "abc", "-1", "0", "1.5", "9" * 30, ""]


@pytest.fixture
def wsgi_app():
    """Django's WSGI app, kept on the test's connection (as Django's test client does)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def world(make_user, stored_version, settings):
    """A few real objects for generated ids to land on, and alice's token."""
    settings.ALLOWED_HOSTS = ["*"]
    alice, bob = make_user("alice"), make_user("bob")
    bots = [
        Bot.objects.create(owner=owner, name=f"b{i}", game="paiute")
        for i, owner in enumerate([alice, bob])
    ]
    versions = [stored_version(bot) for bot in bots]
    game = registry.get("paiute")
    state = play_out(game.new_match(players=2, seed=3), [random_policy] * 2, Rng(3))
    tournament = Tournament.objects.create(
        name="cup",
        organiser=alice,
        game="paiute",
        players_per_match=2,
        seed=3,
        start_at=timezone.now(),
        status=Tournament.Status.FINISHED,
    )
    match = Match.objects.create(
        tournament=tournament,
        game="paiute",
        engine_version=game.version,
        seed=3,
        status=Match.Status.FINISHED,
        result={"seats": [{"seat": 0}, {"seat": 1}]},
        moves=[],
        record=state.to_json(),
    )
    for seat, version in enumerate(versions):
        MatchSeat.objects.create(match=match, seat=seat, version=version, rank=seat + 1)
    ids = {
        "bots": [b.pk for b in bots],
        "versions": [v.pk for v in versions],
        "tournaments": [tournament.pk],
        "matches": [match.pk],
    }
    token = Token.objects.create(user=alice).key
    yield ids, {"Authorization": f"Token {token}"}
    for seat in (None, 0, 1):
        cache.delete(selectors.replay_cache_key(match=match, seat=seat))


def aim(case, ids: dict) -> None:
    """Point a generated integer id at a real object most of the time (same input, same aim)."""
    value = case.path_parameters.get("id") if case.path_parameters else None
    if not isinstance(value, int):
        return
    kind = case.operation.path.split("/")[2]
    known = ids.get(kind, [])
    if known and value % 4:
        case.path_parameters["id"] = known[value % len(known)]


def fuzz(operation, mode, headers: dict, ids: dict) -> int:
    """Run a fixed, derandomized number of generated requests; return how many were sent."""
    sent = 0

    @settings(
        max_examples=EXAMPLES_PER_OPERATION_AND_MODE // 2,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        nonlocal sent
        aim(case, ids)
        sent += 1
        case.call_and_validate(headers=headers, checks=CHECKS)

    try:
        run()
    except Unsatisfiable:
        # Nothing in the operation can be made invalid (no parameters, no body).
        assert mode is schemathesis.GenerationMode.NEGATIVE, operation.label
    return sent


# The operations in shards, so that parallel test processes share the work (the whole
# schema takes a minute and a half in one process).
SHARDS = 4


@pytest.mark.parametrize("shard", range(SHARDS))
def test_api_answers_what_its_schema_says(world, wsgi_app, shard):
    ids, auth = world
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 20
    requests = 0
    for operation in operations[shard::SHARDS]:
        for mode in schemathesis.GenerationMode:
            for headers in (auth, {}):
                requests += fuzz(operation, mode, headers, ids)
        for parameter in operation.query:
            for value in HOSTILE_QUERY_VALUES:
                case = operation.Case(
                    query={parameter.name: value},
                    path_parameters={
                        p.name: (ids["matches"][0] if p.name == "id" else "paiute")
                        for p in operation.path_parameters
                    },
                )
                requests += 1
                case.call_and_validate(headers=auth, checks=CHECKS)
    assert requests > 200 // SHARDS
