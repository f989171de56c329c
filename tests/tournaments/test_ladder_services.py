"""The ladder's scheduler against the database: what it queues, when it holds back, who may pause it."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from tests.support.builders import (
    active_bots,
    bot_with_version,
    play_queued_ladder_matches,
)
from tournaments import services
from tournaments.models import Ladder, Match, Rating
from tournaments.services.ladder import schedule_ladders


def ladder_matches():
    return Match.objects.filter(ladder__isnull=False)


def test_no_ladder_until_two_bots_are_active(owner, settings):
    settings.ARENA_LADDER = True
    active_bots(owner=owner, count=1)
    assert schedule_ladders() == 0 and not Ladder.objects.exists()
    bot_with_version(owner=owner, name="second", announce=False)[1]
    assert schedule_ladders() == 2
    ladder = Ladder.objects.get()
    assert (ladder.game, ladder.players) == ("pairs", 2)
    first, second = ladder_matches().order_by("number")
    assert first.seed == second.seed  # one deal, seats swapped
    seats = [[s.version_id for s in m.seats.order_by("seat")] for m in (first, second)]
    assert seats[0] == seats[1][::-1]


def test_slots_bound_the_ladder_and_results_free_them(owner, settings):
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 1
    active_bots(owner=owner, count=4)
    assert schedule_ladders() == 2
    assert schedule_ladders() == 0  # the one slot is busy
    play_queued_ladder_matches()
    assert Rating.objects.filter(pool="pairs:2").count() == 2  # ladder games are rated
    assert schedule_ladders() == 2


def test_the_ladder_waits_while_a_tournament_has_matches_queued(owner, settings):
    settings.ARENA_LADDER = True
    bots = active_bots(owner=owner, count=3)
    tournament = services.create_tournament(
        organiser=owner, name="cup", game="pairs", bot_ids=[b.pk for b in bots]
    )
    services.start_tournament(tournament_id=tournament.pk)
    assert schedule_ladders() == 0
    services.cancel_tournament(tournament=tournament)
    assert schedule_ladders() == 2


def test_a_new_version_is_seated_first(owner, settings):
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 1
    settings.ARENA_LADDER_PLACEMENT_GAMES = 6
    active_bots(owner=owner, count=5)
    while Rating.objects.filter(matches__gte=6).count() < 5:
        schedule_ladders()
        play_queued_ladder_matches()
    newcomer = bot_with_version(owner=owner, name="newcomer", announce=False)[1]
    for _ in range(3):
        schedule_ladders()
        table = ladder_matches().filter(status="queued").first()
        assert newcomer.pk in [s.version_id for s in table.seats.all()]
        play_queued_ladder_matches()


def test_a_settled_ladder_trickles(owner, settings):
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 3
    settings.ARENA_LADDER_TRICKLE_SECONDS = 600
    active_bots(owner=owner, count=2)
    Rating.objects.all().delete()
    assert schedule_ladders() == 6  # three tables while unsettled
    play_queued_ladder_matches()
    Rating.objects.filter(pool="pairs:2").update(matches=500)
    assert schedule_ladders() == 0  # settled: nothing within ten minutes of the last table
    later = timezone.now() + timedelta(seconds=601)
    assert services.schedule_ladders(now=later) == 2  # then one table
    play_queued_ladder_matches()
    assert services.schedule_ladders(now=later + timedelta(seconds=5)) == 0


def test_a_paused_ladder_queues_nothing_and_only_staff_may_pause(owner, settings):
    settings.ARENA_LADDER = True
    active_bots(owner=owner, count=2)
    schedule_ladders()
    ladder = Ladder.objects.get()
    stranger = APIClient()
    stranger.force_authenticate(owner)
    refused = stranger.post(f"/api/ladders/{ladder.pk}/pause/")
    assert refused.status_code == 403 and refused.json()["detail"]
    staff = get_user_model().objects.create_user(username="staff", is_staff=True)
    client = APIClient()
    client.force_authenticate(staff)
    assert client.post(f"/api/ladders/{ladder.pk}/pause/").json()["paused"] is True
    play_queued_ladder_matches()
    assert schedule_ladders() == 0
    assert client.post(f"/api/ladders/{ladder.pk}/resume/").json()["paused"] is False
    assert schedule_ladders() == 2
    listed = APIClient().get("/api/ladders/").json()["results"]
    assert listed[0]["game"] == "pairs" and listed[0]["progress"]["finished"] == 2
    matches = APIClient().get(f"/api/ladders/{ladder.pk}/matches/").json()["results"]
    assert len(matches) == 4 and all(m["ladder"] == ladder.pk for m in matches)


def test_the_setting_turns_the_ladder_off(owner, settings):
    settings.ARENA_LADDER = False
    active_bots(owner=owner, count=3)
    assert schedule_ladders() == 0 and not Ladder.objects.exists()
