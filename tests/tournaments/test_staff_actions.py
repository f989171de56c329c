"""Staff's actions: re-queue a failed match (a service and the admin action), cancel a
tournament from the admin; and the admin lists answer with their filters."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from tests.support.builders import active_bots, outcome, started_tournament, user
from tournaments import services
from tournaments.models import Match, Tournament
from tournaments.services.playing import claim_match, record_result
from tournaments.services.requeue import requeue_failed_match


@pytest.fixture
def tournament(db):
    owner = user(name="org")
    bots = active_bots(owner=owner, count=2)
    return started_tournament(organiser=owner, bots=bots, games_per_pairing=2, seed=5)


@pytest.fixture
def staff_client(client, db):
    staff = get_user_model().objects.create_user(
        username="staff", password="a long password 1", is_staff=True, is_superuser=True
    )
    client.force_login(staff)
    return client


def fail(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FAILED, attempts=3, error="out of attempts", finished_at=timezone.now()
    )


def test_a_failed_match_is_queued_again_and_can_then_finish_its_tournament(
    tournament, django_capture_on_commit_callbacks
):
    first, second = tournament.matches.order_by("pk")[:2]
    fail(first)
    attempt = claim_match(match_id=second.pk)
    assert record_result(
        match_id=second.pk, attempt=attempt, outcome=outcome(match=second, ranks=[1, 2])
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED  # nothing left: one failed, one done

    with django_capture_on_commit_callbacks() as sent:
        match = requeue_failed_match(match=first)
    assert len(sent) == 1  # the task leaves once the transaction commits
    assert (match.status, match.attempts, match.error) == (Match.Status.QUEUED, 0, "")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.finished_at is None

    attempt = claim_match(match_id=first.pk)
    assert attempt == 1
    assert record_result(
        match_id=first.pk, attempt=attempt, outcome=outcome(match=first, ranks=[2, 1])
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_only_failed_matches_outside_cancelled_tournaments_are_queued_again(tournament):
    match = tournament.matches.first()
    with pytest.raises(ValidationError, match="only a failed match"):
        requeue_failed_match(match=match)
    fail(match)
    services.cancel_tournament(tournament=tournament)
    with pytest.raises(ValidationError, match="cancelled"):
        requeue_failed_match(match=match)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FAILED


def test_admin_requeue_action(staff_client, tournament):
    failed, queued = tournament.matches.order_by("pk")[:2]
    fail(failed)
    response = staff_client.post(
        "/admin/tournaments/match/",
        {"action": "requeue", "_selected_action": [failed.pk, queued.pk]},
        follow=True,
    )
    text = response.content.decode()
    assert "1 match(es) queued again" in text
    assert "only a failed match can be queued again" in text
    assert Match.objects.get(pk=failed.pk).status == Match.Status.QUEUED


def test_admin_cancel_action(staff_client, tournament):
    response = staff_client.post(
        "/admin/tournaments/tournament/",
        {"action": "cancel", "_selected_action": [tournament.pk]},
        follow=True,
    )
    assert "1 tournament(s) cancelled" in response.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert not tournament.matches.exclude(status=Match.Status.CANCELLED).exists()


def test_admin_lists_and_filters_answer(staff_client, tournament):
    match = tournament.matches.first()
    for url in [
        "/admin/tournaments/tournament/?status__exact=running",
        "/admin/tournaments/match/?status__exact=queued&game=pairs",
        f"/admin/tournaments/match/{match.pk}/change/",
        f"/admin/tournaments/tournament/{tournament.pk}/change/",
        "/admin/bots/bot/?game=pairs",
        "/admin/bots/botversion/?status__exact=active",
        "/admin/bots/bot/?q=bot0",
    ]:
        assert staff_client.get(url).status_code == 200, url
    listing = staff_client.get("/admin/tournaments/match/?status__exact=queued").content.decode()
    assert f"match {match.pk} (pairs)" in listing


@pytest.mark.parametrize("format", ["swiss", "single_elimination", "double_elimination"])
def test_a_failed_match_of_a_paired_format_is_not_played_again(db, format):
    """Its failure counted as a draw and the event went on from it (a re-run would crash
    the bracket planner once the series had moved on)."""
    owner = get_user_model().objects.create_user(username="org")
    bots = active_bots(owner=owner, count=4)
    t = services.create_tournament(
        organiser=owner, name="cup", game="pairs", bot_ids=[b.pk for b in bots], format=format
    )
    services.start_tournament(tournament_id=t.pk)
    match = Match.objects.filter(tournament=t).first()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FAILED, error="out of attempts")
    match.refresh_from_db()
    with pytest.raises(ValidationError, match="cannot be played again"):
        requeue_failed_match(match=match)
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
