"""A version whose seat faults in ARENA_CRASH_STREAK of its matches in a row is taken out of
play and its owner told, with the last match linked; a match without a fault breaks the
streak; the opponent is untouched."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.integrations.models import Notification
from bots import services as bot_services
from bots.models import BotVersion
from bots.selectors import current_version
from games import registry
from tests.support import builders
from tournaments.models import Competition, Entry, Ladder, Match, MatchSeat, Tournament
from tournaments.services.playing import claim_match, record_result


@pytest.fixture
def streak(settings):
    settings.ARENA_CRASH_STREAK = 3
    return 3


def play(crasher: BotVersion, other: BotVersion, *, faults: bool, **where) -> Match:
    match = Match.objects.create(
        **where,
        game="pairs",
        engine_version=registry.get("pairs").version,
        seed=Match.objects.count() + 1,
        status=Match.Status.QUEUED,
    )
    for seat, version in enumerate([crasher, other]):
        MatchSeat.objects.create(match=match, seat=seat, version=version)
    attempt = claim_match(match_id=match.pk)
    outcome = builders.outcome(match=match, ranks=[2, 1])
    if faults:
        outcome["result"]["seats"][0]["fault"] = {"kind": "crashed", "reason": "exit code 1"}
    assert record_result(match_id=match.pk, attempt=attempt, outcome=outcome)
    return match


@pytest.fixture
def versions(db):
    owner = get_user_model().objects.create_user("crasher-owner")
    bot, old = builders.bot_with_version(name="crasher", owner=owner)
    new = builders.version(bot=bot)
    bot.current = new
    bot.save()
    _, other = builders.bot_with_version(name="steady")
    return owner, old, new, other


def test_a_crash_streak_takes_the_version_out_of_play_and_tells_its_owner(
    streak, versions, django_capture_on_commit_callbacks
):
    owner, old, new, other = versions
    with django_capture_on_commit_callbacks(execute=True):
        play(new, other, faults=True)
        play(new, other, faults=True)
        play(new, other, faults=False)  # breaks the streak
        play(new, other, faults=True)
        play(new, other, faults=True)
    new.refresh_from_db()
    assert new.status == BotVersion.Status.ACTIVE
    assert not Notification.objects.filter(kind="version.crash_streak").exists()
    with django_capture_on_commit_callbacks(execute=True):
        last = play(new, other, faults=True)
    new.refresh_from_db()
    assert new.status == BotVersion.Status.DISABLED
    assert new.reason == "taken out of play: it faulted in 3 matches in a row"
    assert current_version(bot=new.bot) == old  # the bot plays its other active version
    other.refresh_from_db()
    assert other.status == BotVersion.Status.ACTIVE
    note = Notification.objects.get(user=owner, kind="version.crash_streak")
    assert note.link == f"/matches/{last.pk}/" and "exit code 1" in note.text
    assert note.data["match_id"] == last.pk


def test_no_streak_is_counted_when_the_setting_is_zero(
    settings, versions, django_capture_on_commit_callbacks
):
    settings.ARENA_CRASH_STREAK = 0
    _, _, new, other = versions
    for _ in range(4):
        play(new, other, faults=True)
    new.refresh_from_db()
    assert new.status == BotVersion.Status.ACTIVE


def test_a_version_taken_out_of_play_leaves_its_queued_ladder_tables(
    streak, versions, django_capture_on_commit_callbacks
):
    _, _, new, other = versions
    ladder = Ladder.objects.create(key="pairs-crash", game="pairs", players=2)
    tournament = Tournament.objects.create(
        name="cup",
        organiser=new.bot.owner,
        game="pairs",
        players_per_match=2,
        seed=1,
        start_at=timezone.now(),
        status=Tournament.Status.RUNNING,
    )

    def queued(versions_seated, **where) -> Match:
        match = Match.objects.create(
            game="pairs",
            engine_version=registry.get("pairs").version,
            seed=7,
            status=Match.Status.QUEUED,
            **where,
        )
        for seat, version in enumerate(versions_seated):
            MatchSeat.objects.create(match=match, seat=seat, version=version)
        return match

    waiting = queued([new, other], ladder=ladder)
    rotated = queued([other, new], ladder=ladder)
    others = queued([other, other], ladder=ladder)
    in_tournament = queued([new, other], tournament=tournament)
    running = queued([new, other], ladder=ladder)
    Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(streak):
            play(new, other, faults=True)
    statuses = dict(
        Match.objects.filter(
            pk__in=[waiting.pk, rotated.pk, others.pk, in_tournament.pk, running.pk]
        ).values_list("pk", "status")
    )
    assert statuses == {
        waiting.pk: Match.Status.CANCELLED,
        rotated.pk: Match.Status.CANCELLED,
        others.pk: Match.Status.QUEUED,  # not this bot's
        in_tournament.pk: Match.Status.QUEUED,  # its format waits for the result
        running.pk: Match.Status.RUNNING,  # claimed: plays on
    }
    assert "taken out of play" in Match.objects.get(pk=waiting.pk).error
    # A claim that comes after the cancel finds nothing to play.
    assert claim_match(match_id=waiting.pk) is None


def test_staff_disabling_a_bot_pulls_its_queued_ladder_tables(versions):
    _, _, new, other = versions
    ladder = Ladder.objects.create(key="pairs-disable", game="pairs", players=2)
    match = Match.objects.create(
        game="pairs",
        engine_version=registry.get("pairs").version,
        seed=8,
        status=Match.Status.QUEUED,
        ladder=ladder,
    )
    MatchSeat.objects.create(match=match, seat=0, version=new)
    MatchSeat.objects.create(match=match, seat=1, version=other)
    bot_services.disable_bot(bot=new.bot, reason="cheating")
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED


def test_faults_in_a_final_whose_results_are_held_start_no_streak(
    streak, versions, django_capture_on_commit_callbacks
):
    owner, _, new, other = versions
    final = Tournament.objects.create(
        name="season: final",
        organiser=owner,
        game="pairs",
        players_per_match=2,
        seed=1,
        start_at=timezone.now(),
        status=Tournament.Status.RUNNING,
        rated=False,
    )
    for number, version in enumerate([new, other]):
        Entry.objects.create(tournament=final, bot=version.bot, version=version, seed_number=number)
    now = timezone.now()
    competition = Competition.objects.create(
        name="season",
        organiser=owner,
        game="pairs",
        players=2,
        opens_at=now,
        deadline=now,
        final_at=now,
        phase=Competition.Phase.FINAL,
        final=final,
        release=Competition.Release.HIDDEN,
        seed=1,
        seed_salt="s",
        seed_commitment="c",
    )

    def play_final(faults: bool) -> Match:
        match = play(new, other, faults=faults, tournament=final)
        return match

    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(streak + 1):
            play_final(faults=True)
    new.refresh_from_db()
    assert new.status == BotVersion.Status.ACTIVE
    assert not Notification.objects.filter(kind="version.crash_streak").exists()
    # Once released, the final's games count like any others.
    competition.release = Competition.Release.PUBLIC
    competition.save()
    with django_capture_on_commit_callbacks(execute=True):
        play_final(faults=True)
    new.refresh_from_db()
    assert new.status == BotVersion.Status.DISABLED
