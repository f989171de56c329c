"""A competition's ladder match (``competition`` set; no ladder, no tournament) beside the
rest: the public ladder, the reaper and the staff's requeue, and the match's own pages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tests.support.builders import (
    active_bots,
    fail_every_attempt,
    outcome,
    play_for_real,
    play_queued_ladder_matches,
    user,
)
from tournaments import services
from tournaments.models import Competition, Ladder, Match, RatingChange
from tournaments.selectors.competition_standings import division_tables
from tournaments.services import competitions
from tournaments.services.competition_ladder import schedule_competition_ladders
from tournaments.services.ladder import schedule_ladders
from tournaments.services.playing import claim_match, record_result
from tournaments.services.requeue import requeue_failed_match


@pytest.fixture
def competition(db) -> Competition:
    organiser = user(name="organiser")
    now = timezone.now()
    competition = competitions.create_competition(
        organiser=organiser,
        name="season",
        game="pairs",
        players=2,
        options={},
        opens_at=now,
        deadline=now + timedelta(days=1),
        final_at=now + timedelta(days=2),
        final_settings={},
    )
    for bot in active_bots(owner=organiser, count=3):
        competitions.enter_competition(competition=competition, bot=bot, user=organiser)
    return competition


def competition_matches(status=Match.Status.QUEUED) -> list[Match]:
    return list(Match.objects.filter(competition__isnull=False, status=status).order_by("pk"))


def games_counted(competition: Competition) -> int:
    competition.refresh_from_db()
    (table,) = division_tables(competition=competition)
    return sum(row["games"] for row in table["rows"])


def test_the_public_ladder_goes_on_beside_a_competition(competition, settings):
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 1
    assert schedule_competition_ladders() == 2
    # The competition's queued games hold nothing of the public ladder back.
    assert schedule_ladders() == 2
    ladder = Ladder.objects.get()
    assert Match.objects.filter(ladder=ladder).count() == 2
    assert not Match.objects.filter(ladder=ladder, competition__isnull=False).exists()
    for match in competition_matches():
        play_for_real(match=match)
    play_queued_ladder_matches()
    assert not RatingChange.objects.filter(match__competition__isnull=False).exists()
    assert RatingChange.objects.filter(match__ladder=ladder).count() == 4
    client = APIClient()
    listed = client.get("/api/ladders/").json()["results"]
    assert [row["progress"]["finished"] for row in listed] == [2]
    rows = client.get(f"/api/ladders/{ladder.pk}/matches/").json()["results"]
    assert len(rows) == 2 and all(row["ladder"] == ladder.pk for row in rows)
    assert games_counted(competition) == 4


def test_a_failed_competition_match_is_requeued_and_counts_once_played(competition, settings):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    schedule_competition_ladders()
    failed, other = competition_matches()
    fail_every_attempt(match=failed)
    attempt = claim_match(match_id=other.pk)
    assert record_result(
        match_id=other.pk, attempt=attempt, outcome=outcome(match=other, ranks=[1, 2])
    )
    assert games_counted(competition) == 2  # a failed game counts for nobody
    requeue_failed_match(match=failed)
    failed.refresh_from_db()
    assert failed.status == Match.Status.QUEUED and failed.competition_id == competition.pk
    attempt = claim_match(match_id=failed.pk)
    assert record_result(
        match_id=failed.pk, attempt=attempt, outcome=outcome(match=failed, ranks=[2, 1])
    )
    assert games_counted(competition) == 4


def test_the_reaper_requeues_a_stale_competition_match(competition, settings):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 3
    schedule_competition_ladders()
    match = competition_matches()[0]
    claim_match(match_id=match.pk)
    Match.objects.filter(pk=match.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    services.requeue_stuck_matches()
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.attempts == 1


def test_a_competition_match_reads_like_any_other_match(competition):
    schedule_competition_ladders()
    played = [play_for_real(match=m) for m in competition_matches()]
    match = played[0]
    api = APIClient()
    detail = api.get(f"/api/matches/{match.pk}/")
    assert detail.status_code == 200
    body = detail.json()
    assert body["ladder"] is None and body["tournament"] is None
    assert api.get(f"/api/matches/{match.pk}/replay/").status_code == 200
    pages = Client()
    assert pages.get(f"/matches/{match.pk}/").status_code == 200
    bot_id = match.seats.first().version.bot_id
    assert pages.get(f"/bots/{bot_id}/").status_code == 200
    assert api.get(f"/api/bots/{bot_id}/").status_code == 200
