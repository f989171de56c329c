"""A challenge's answer is read at one moment: a result recorded by another connection
between the answer's first query and the rest shows in none of it, so its progress and its
W-D-L always agree (a live page polling it once showed "2 of 4 games played" beside 1-0-0)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from tests.support.builders import bot_with_version, outcome, user
from tournaments.models import Match
from tournaments.selectors.challenges import challenge_with_answer
from tournaments.selectors.moment import one_moment
from tournaments.services.playing import claim_match
from tournaments.services.recording import record_result

pytestmark = pytest.mark.django_db(transaction=True)


def record_one_game() -> None:
    """Play the next queued game of the challenge as a worker does (seat 0 wins)."""
    match = Match.objects.filter(status="queued").order_by("round", "number").first()
    attempt = claim_match(match_id=match.pk)
    assert record_result(
        match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
    )


def in_another_connection(job) -> None:
    def run() -> None:
        try:
            job()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()


class RecordAfterFirstQuery:
    """Records a game from another connection right after the wrapped connection's first
    query: the moment a read in two steps could tear."""

    def __init__(self) -> None:
        self.done = False

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not self.done and "tournaments_challenge" in sql:
            self.done = True
            in_another_connection(record_one_game)
        return result


@pytest.fixture
def running_challenge():
    alice, bob = user(name="alice"), user(name="bob")
    mine, _ = bot_with_version(name="mine", owner=alice)
    theirs, _ = bot_with_version(name="theirs", owner=bob)
    client = APIClient()
    client.force_authenticate(alice)
    body = {"bot": mine.pk, "opponents": [theirs.pk], "games": 4}
    answer = client.post("/api/challenges/", body, format="json")
    assert answer.status_code == 201, answer.content
    record_one_game()
    return alice, answer.json()["id"]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite's write lock keeps the other connection out until the read ends",
)
def test_a_result_recorded_during_the_read_shows_in_none_of_it(running_challenge):
    alice, challenge_id = running_challenge
    record = RecordAfterFirstQuery()
    with connection.execute_wrapper(record):
        _, answer = challenge_with_answer(challenge_id=challenge_id, user=alice)
    assert record.done
    assert answer["played"] == 1
    assert (answer["wins"], answer["draws"], answer["losses"]) == (1, 0, 0)
    assert [game["status"] for game in answer["table"]].count("finished") == 1
    # The game was recorded all the same: the next read sees it everywhere.
    _, after = challenge_with_answer(challenge_id=challenge_id, user=alice)
    assert after["played"] == 2
    assert (after["wins"], after["draws"], after["losses"]) == (1, 0, 1)


def test_one_moment_inside_a_begun_transaction_keeps_the_callers_isolation(running_challenge):
    with transaction.atomic():
        Match.objects.count()  # the transaction has begun: its isolation is fixed
        with one_moment():
            assert Match.objects.filter(status="finished").count() == 1
