"""A competition's life through its services and the beat's task function: creation refused
by field, entries three ways, the freeze at the deadline (exactly the last valid version
before it), the final created unrated with pinned versions and a committed seed, phases that
follow the final, pause and resume, disqualification."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from bots.models import BotVersion
from tests.support.builders import bot_with_version, play_queued, user, version
from tournaments import tasks
from tournaments.models import Competition, CompetitionEntry, Entry, Tournament
from tournaments.services import (
    cancel_tournament,
    competition_phases,
    competitions,
    start_due_tournaments,
)
from tournaments.services.scheduling import seed_commitment

pytestmark = pytest.mark.django_db

Phase = Competition.Phase


def _competition(organiser, *, days: int = 2, **fields) -> Competition:
    now = timezone.now()
    settings = {
        "name": "Spring cup",
        "game": "pairs",
        "players": 2,
        "options": {},
        "opens_at": now - timedelta(hours=1),
        "deadline": now + timedelta(days=days),
        "final_at": now + timedelta(days=days, hours=1),
        "final_settings": {"format": "round_robin", "games_per_pairing": 2},
    }
    settings.update(fields)
    return competitions.create_competition(organiser=organiser, **settings)


def _age(version_row: BotVersion, at) -> None:
    BotVersion.objects.filter(pk=version_row.pk).update(created_at=at)


def _entered(competition, count: int) -> list:
    entries = []
    for i in range(count):
        author = user(name=f"author{i}")
        bot, _ = bot_with_version(name=f"entrant{i}", owner=author, announce=False)
        entries.append(
            competitions.enter_competition(competition=competition, bot=bot, user=author)
        )
    return entries


def test_creation_checks_every_field_and_commits_the_seed():
    organiser = user(name="org")
    now = timezone.now()
    with pytest.raises(ValidationError) as refused:
        _competition(
            organiser,
            name=" ",
            game="pairs",
            players=9,
            deadline=now - timedelta(days=1),
            final_at=now - timedelta(days=2),
            eligibility="invite",
            final_settings={"format": "knockout", "colour": "red"},
        )
    errors = refused.value.message_dict
    assert {"name", "players", "deadline", "final_at", "invite_code"} <= set(errors)
    assert "final_settings.colour" in errors
    with pytest.raises(ValidationError) as refused:
        _competition(organiser, final_settings={"format": "knockout"})
    assert "final_settings.format" in refused.value.message_dict
    with pytest.raises(ValidationError) as refused:
        _competition(organiser, players=3, final_settings={"format": "double_elimination"})
    assert "final_settings.format" in refused.value.message_dict
    with pytest.raises(ValidationError) as refused:
        _competition(organiser, game="chess")
    assert "game" in refused.value.message_dict
    assert not Competition.objects.exists()

    competition = _competition(organiser, seed=1234)
    assert competition.phase == Phase.OPEN
    assert competition.seed_commitment == seed_commitment(seed=1234, salt=competition.seed_salt)


def test_entries_open_invite_and_approval():
    organiser = user(name="org")
    author = user(name="author")
    stranger = user(name="stranger")
    open_one = _competition(organiser)
    bot, _ = bot_with_version(name="b1", owner=author, announce=False)
    entry = competitions.enter_competition(competition=open_one, bot=bot, user=author)
    assert entry.status == CompetitionEntry.Status.ACCEPTED
    with pytest.raises(ValidationError):  # once
        competitions.enter_competition(competition=open_one, bot=bot, user=author)
    other, _ = bot_with_version(name="b2", owner=author, announce=False)
    with pytest.raises(PermissionDenied):  # not theirs
        competitions.enter_competition(competition=open_one, bot=other, user=stranger)

    invite = _competition(organiser, name="Invited", eligibility="invite", invite_code="s3cret")
    with pytest.raises(PermissionDenied, match="invite code"):
        competitions.enter_competition(competition=invite, bot=bot, user=author, invite_code="no")
    assert not invite.entries.exists()
    entry = competitions.enter_competition(
        competition=invite, bot=bot, user=author, invite_code="s3cret"
    )
    assert entry.status == CompetitionEntry.Status.ACCEPTED

    approval = _competition(organiser, name="Approved", eligibility="approval")
    first = competitions.enter_competition(competition=approval, bot=bot, user=author)
    second = competitions.enter_competition(competition=approval, bot=other, user=author)
    assert first.status == second.status == CompetitionEntry.Status.PENDING
    assert competitions.decide_entry(entry=first, accept=True).status == "accepted"
    refused = competitions.decide_entry(entry=second, accept=False, reason="one bot each")
    assert (refused.status, refused.reason) == ("refused", "one bot each")
    with pytest.raises(ValidationError):  # decided already
        competitions.decide_entry(entry=second, accept=True)


def test_entries_close_at_the_deadline():
    competition = _competition(user(name="org"))
    author = user(name="late")
    bot, _ = bot_with_version(name="late-bot", owner=author, announce=False)
    with pytest.raises(ValidationError, match="closed"):
        competitions.enter_competition(
            competition=competition, bot=bot, user=author, now=competition.deadline
        )


def test_the_freeze_takes_the_last_valid_version_before_the_deadline_and_not_one_second_after():
    competition = _competition(user(name="org"))
    first, second = _entered(competition, 2)
    deadline = competition.deadline
    counted = first.bot.versions.get()
    _age(counted, deadline - timedelta(seconds=30))
    invalid = version(bot=first.bot, status=BotVersion.Status.INVALID, announce=False)
    _age(invalid, deadline - timedelta(seconds=2))  # invalid: does not count
    late = version(bot=first.bot, announce=False)
    _age(late, deadline + timedelta(seconds=1))  # one second after: does not count
    only = second.bot.versions.get()
    _age(only, deadline + timedelta(seconds=1))  # the second entry has none before

    assert tasks.advance_competitions.run() is None  # before the deadline: nothing moves
    assert Competition.objects.get(pk=competition.pk).phase == Phase.OPEN
    moved = competition_phases.advance_competitions(now=deadline)
    assert moved == [competition.pk]
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.frozen_version_id == counted.pk
    assert second.frozen_version_id is None  # not eligible for the final


def test_the_freeze_waits_for_a_version_still_validating_within_the_grace(settings):
    settings.ARENA_COMPETITION_FREEZE_GRACE_SECONDS = 600
    competition = _competition(user(name="org"))
    (entry,) = _entered(competition, 1)
    deadline = competition.deadline
    _age(entry.bot.versions.get(), deadline - timedelta(minutes=5))
    pending = version(bot=entry.bot, status=BotVersion.Status.PENDING, announce=False)
    _age(pending, deadline - timedelta(seconds=1))
    assert competition_phases.advance_competitions(now=deadline + timedelta(seconds=10)) == []
    assert Competition.objects.get(pk=competition.pk).phase == Phase.OPEN
    BotVersion.objects.filter(pk=pending.pk).update(status=BotVersion.Status.ACTIVE)
    assert competition_phases.advance_competitions(now=deadline + timedelta(seconds=20))
    entry.refresh_from_db()
    assert entry.frozen_version_id == pending.pk


def test_past_the_grace_the_freeze_ignores_a_version_still_validating(settings):
    settings.ARENA_COMPETITION_FREEZE_GRACE_SECONDS = 600
    competition = _competition(user(name="org"))
    (entry,) = _entered(competition, 1)
    deadline = competition.deadline
    old = entry.bot.versions.get()
    _age(old, deadline - timedelta(minutes=5))
    _age(
        version(bot=entry.bot, status="validating", announce=False), deadline - timedelta(seconds=1)
    )
    assert competition_phases.advance_competitions(now=deadline + timedelta(seconds=601))
    entry.refresh_from_db()
    assert entry.frozen_version_id == old.pk


def test_the_final_is_created_at_the_freeze_with_pinned_versions_and_plays_them():
    organiser = user(name="org")
    competition = _competition(organiser)
    entries = _entered(competition, 3)
    deadline = competition.deadline
    frozen = {}
    for entry in entries:
        v = entry.bot.versions.get()
        _age(v, deadline - timedelta(minutes=1))
        frozen[entry.bot_id] = v.pk
        # A newer version after the deadline is current elsewhere, not in the final.
        _age(version(bot=entry.bot, announce=False), deadline + timedelta(seconds=1))

    competition_phases.advance_competitions(now=deadline)
    competition.refresh_from_db()
    final = competition.final
    assert competition.phase == Phase.FROZEN and competition.frozen_at == deadline
    assert final.rated is False
    assert final.seeding == Tournament.Seeding.ENTRY
    assert final.start_at == competition.final_at
    assert final.status == Tournament.Status.SCHEDULED
    assert final.seed_commitment == seed_commitment(seed=final.seed, salt=final.seed_salt)
    assert {e.bot_id: e.version_id for e in final.entries.all()} == frozen

    # At final_at the tournament start keeps the pinned versions.
    assert start_due_tournaments(now=competition.final_at) == [final.pk]
    assert {e.bot_id: e.version_id for e in Entry.objects.filter(tournament=final)} == frozen
    assert competition_phases.advance_competitions(now=competition.final_at) == [competition.pk]
    assert Competition.objects.get(pk=competition.pk).phase == Phase.FINAL
    while play_queued(tournament_id=final.pk):
        pass
    final.refresh_from_db()
    assert final.status == Tournament.Status.FINISHED
    later = competition.final_at + timedelta(hours=1)
    assert competition_phases.advance_competitions(now=later) == [competition.pk]
    competition.refresh_from_db()
    assert (competition.phase, competition.closed_at) == (Phase.CLOSED, later)


def test_a_cancelled_final_closes_the_competition():
    competition = _competition(user(name="org"))
    for entry in _entered(competition, 2):
        _age(entry.bot.versions.get(), competition.deadline - timedelta(minutes=1))
    competition_phases.advance_competitions(now=competition.deadline)
    competition.refresh_from_db()
    cancel_tournament(tournament=competition.final)
    competition_phases.advance_competitions(now=competition.deadline + timedelta(minutes=1))
    assert Competition.objects.get(pk=competition.pk).phase == Phase.CLOSED


def test_too_few_eligible_entrants_close_the_competition_saying_why():
    competition = _competition(user(name="org"))
    (entry,) = _entered(competition, 1)
    _age(entry.bot.versions.get(), competition.deadline - timedelta(minutes=1))
    competition_phases.advance_competitions(now=competition.deadline)
    competition.refresh_from_db()
    assert competition.phase == Phase.CLOSED and competition.final is None
    assert "No final" in competition.announcements.get().text


def test_pause_holds_the_dates_and_the_final_until_the_resume():
    competition = _competition(user(name="org"))
    for entry in _entered(competition, 2):
        _age(entry.bot.versions.get(), competition.deadline - timedelta(minutes=1))
    competition_phases.set_competition_paused(competition=competition, paused=True)
    assert competition_phases.advance_competitions(now=competition.deadline) == []
    assert Competition.objects.get(pk=competition.pk).phase == Phase.OPEN
    competition_phases.set_competition_paused(competition=competition, paused=False)
    assert competition_phases.advance_competitions(now=competition.final_at) == [competition.pk]
    competition.refresh_from_db()
    assert competition.phase == Phase.FROZEN
    competition_phases.set_competition_paused(competition=competition, paused=True)
    assert start_due_tournaments(now=competition.final_at) == []
    competition_phases.set_competition_paused(competition=competition, paused=False)
    assert start_due_tournaments(now=competition.final_at) == [competition.final_id]


def test_disqualification_takes_the_entry_out_of_a_final_not_started():
    competition = _competition(user(name="org"))
    entries = _entered(competition, 3)
    for entry in entries:
        _age(entry.bot.versions.get(), competition.deadline - timedelta(minutes=1))
    with pytest.raises(ValidationError):  # a reason is required
        competitions.disqualify_entry(entry=entries[0], reason=" ")
    competition_phases.advance_competitions(now=competition.deadline)
    competition.refresh_from_db()
    out = competitions.disqualify_entry(entry=entries[0], reason="copied another's bot")
    assert (out.status, out.reason) == ("disqualified", "copied another's bot")
    assert not competition.final.entries.filter(bot_id=entries[0].bot_id).exists()
    assert competition.final.entries.count() == 2
    # Once the final runs, a disqualified entry is withdrawn instead.
    start_due_tournaments(now=competition.final_at)
    competitions.disqualify_entry(entry=entries[1], reason="broke the rules")
    withdrawn = competition.final.entries.get(bot_id=entries[1].bot_id)
    assert withdrawn.withdrawn and "broke the rules" in withdrawn.withdrawal_reason


def test_disqualified_entries_are_not_in_the_final():
    competition = _competition(user(name="org"))
    entries = _entered(competition, 3)
    for entry in entries:
        _age(entry.bot.versions.get(), competition.deadline - timedelta(minutes=1))
    competitions.disqualify_entry(entry=entries[2], reason="late fees")
    competition_phases.advance_competitions(now=competition.deadline)
    competition.refresh_from_db()
    assert sorted(competition.final.entries.values_list("bot_id", flat=True)) == sorted(
        e.bot_id for e in entries[:2]
    )


def test_release_and_reveal():
    competition = _competition(user(name="org"), release="hidden")
    competitions.set_release(competition=competition, release="participants")
    assert Competition.objects.get(pk=competition.pk).release == "participants"
    with pytest.raises(ValidationError):
        competitions.set_release(competition=competition, release="everyone")
    revealed = competitions.reveal_results(competition=competition)
    assert revealed.release == "public" and revealed.revealed_at is not None
    with pytest.raises(ValidationError):
        competitions.announce(competition=competition, text="")
    assert competitions.announce(competition=competition, text="Final at noon").pk


def test_edits_follow_the_phase():
    competition = _competition(user(name="org"))
    _entered(competition, 1)
    with pytest.raises(ValidationError) as refused:
        competitions.update_competition(competition=competition, game="paks")
    assert "game" in refused.value.message_dict
    later = competition.final_at + timedelta(hours=2)
    updated = competitions.update_competition(competition=competition, final_at=later, name="Cup")
    assert (updated.final_at, updated.name) == (later, "Cup")


def test_the_final_is_seeded_by_the_competitions_standings(settings):
    from tests.support.builders import outcome
    from tournaments.models import Match
    from tournaments.selectors.competition_standings import competition_standings
    from tournaments.services.competition_ladder import schedule_competition_ladders
    from tournaments.services.playing import claim_match, record_result

    settings.ARENA_LADDER_SLOTS = 3
    competition = _competition(user(name="org"))
    entries = _entered(competition, 3)
    # The last entrant is the strongest, the first the weakest: the reverse of entry order.
    strength = {e.bot_id: i for i, e in enumerate(entries)}
    for _ in range(4):
        schedule_competition_ladders(now=timezone.now())
        for match in Match.objects.filter(competition=competition, status=Match.Status.QUEUED):
            attempt = claim_match(match_id=match.pk)
            bots = [
                s.version.bot_id for s in match.seats.select_related("version").order_by("seat")
            ]
            order = sorted(bots, key=lambda b: -strength[b])
            ranks = [order.index(b) + 1 for b in bots]
            assert record_result(
                match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=ranks)
            )
    competition.refresh_from_db()
    standings = [row["bot_id"] for row in competition_standings(competition=competition)]
    assert standings == [e.bot_id for e in reversed(entries)]
    for entry in entries:
        _age(entry.bot.versions.get(), competition.deadline - timedelta(minutes=1))
    competition_phases.advance_competitions(now=competition.deadline)
    competition.refresh_from_db()
    start_due_tournaments(now=competition.final_at)
    seeded = competition.final.entries.order_by("seed_number").values_list("bot_id", flat=True)
    assert list(seeded) == standings


def test_the_beat_tasks_move_every_phase_when_its_date_has_come():
    competition = _competition(user(name="org"))
    entries = _entered(competition, 2)
    tasks.advance_competitions.run()
    assert Competition.objects.get(pk=competition.pk).phase == Phase.OPEN  # not yet
    # The dates come (moved into the past, as time would).
    now = timezone.now()
    for entry in entries:
        _age(entry.bot.versions.get(), now - timedelta(minutes=2))
    Competition.objects.filter(pk=competition.pk).update(
        deadline=now - timedelta(minutes=1), final_at=now - timedelta(seconds=1)
    )
    tasks.advance_competitions.run()
    competition.refresh_from_db()
    assert competition.phase == Phase.FROZEN and competition.final is not None
    tasks.start_due_tournaments.run()
    tasks.advance_competitions.run()
    assert Competition.objects.get(pk=competition.pk).phase == Phase.FINAL
    while play_queued(tournament_id=competition.final_id):
        pass
    tasks.advance_competitions.run()
    assert Competition.objects.get(pk=competition.pk).phase == Phase.CLOSED


def test_a_closed_competition_changes_only_its_words_and_its_release():
    competition = _competition(user(name="org"), release="hidden")
    Competition.objects.filter(pk=competition.pk).update(phase=Phase.CLOSED)
    competition.refresh_from_db()
    with pytest.raises(ValidationError):
        competitions.update_competition(competition=competition, eligibility="approval")
    changed = competitions.update_competition(
        competition=competition, name="Spring cup 2026", release="public"
    )
    assert (changed.name, changed.release) == ("Spring cup 2026", "public")
    assert changed.revealed_at is not None


def test_an_edit_of_the_final_keeps_its_pinned_versions():
    from tournaments.services import update_tournament

    organiser = user(name="org")
    competition = _competition(organiser)
    entries = _entered(competition, 3)
    frozen = {}
    for entry in entries:
        old = entry.bot.versions.get()
        _age(old, competition.deadline - timedelta(minutes=1))
        frozen[entry.bot_id] = old.pk
        _age(version(bot=entry.bot, announce=False), competition.deadline + timedelta(seconds=1))
    competition_phases.advance_competitions(now=competition.deadline)
    competition.refresh_from_db()
    kept = [e.bot_id for e in entries[:2]]
    update_tournament(
        tournament_id=competition.final_id, editor=organiser, bot_ids=kept, games_per_pairing=4
    )
    final = Tournament.objects.get(pk=competition.final_id)
    assert {e.bot_id: e.version_id for e in final.entries.all()} == {b: frozen[b] for b in kept}


def test_one_competition_that_cannot_move_does_not_hold_back_the_others():
    broken = _competition(user(name="org"), name="Broken")
    sound = _competition(user(name="org"), name="Sound")
    for entry in _entered(broken, 2):
        _age(entry.bot.versions.get(), broken.deadline - timedelta(minutes=1))
    # Settings no check would let through (written straight to the row): its freeze fails.
    Competition.objects.filter(pk=broken.pk).update(final_settings={"colour": "red"})
    later = max(broken.deadline, sound.deadline)
    assert competition_phases.advance_competitions(now=later) == [sound.pk]
    assert Competition.objects.get(pk=broken.pk).phase == Phase.OPEN  # rolled back whole
    assert not Competition.objects.get(pk=broken.pk).entries.exclude(frozen_version=None).exists()
