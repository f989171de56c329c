"""A tournament under options (or at a player count) its entrants' versions were never
validated under waits for one validation match of each before round 1, within a bound; a
version that failed it is withdrawn with the fault kept for its owner, and plays nothing;
a version validated under these options before is not asked again. The verdicts here are
stored as a worker stores them (tests/bots/test_options_validation.py plays them for real,
tests/integration/test_options_validation_worker.py end to end)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import BotVersion, OptionsValidation
from games import registry
from tests.support.builders import active_bots, user
from tournaments import services
from tournaments.models import Entry, Ladder, Match, MatchSeat, Tournament
from tournaments.ratings import pools
from tournaments.services import admission
from tournaments.services.ladder import ladder_candidates

CONTINUOUS = {"continuous": True}


@pytest.fixture
def organiser(db):
    return user(name="org")


def create(organiser, bots, *, options=CONTINUOUS, **fields) -> Tournament:
    return services.create_tournament(
        organiser=organiser, name="cup", game="pairs", bot_ids=[b.pk for b in bots],
        options=options, seeding="entry", seed=5, **fields,
    )  # fmt: skip


def decide(version: BotVersion, status: str, reason: str = "") -> None:
    """A worker's verdict on the version's validation under continuous Pairs."""
    updated = OptionsValidation.objects.filter(version=version).update(
        status=status, reason=reason, validated_at=timezone.now()
    )
    assert updated == 1


def version_of(bot) -> BotVersion:
    return bot.versions.get()


def test_default_options_need_no_validation_and_start_at_once(organiser):
    bots = active_bots(owner=organiser, count=3)
    tournament = create(organiser, bots, options={})
    assert services.start_due_tournaments() == [tournament.pk]
    assert not OptionsValidation.objects.exists()


def test_a_tournament_waits_for_its_entrants_validations_then_withdraws_the_failed(organiser):
    bots = active_bots(owner=organiser, count=4)
    tournament = create(organiser, bots)
    # Asked for at creation, one per entrant's version, under the tournament's options.
    rows = OptionsValidation.objects.order_by("version__bot__name")
    assert [r.version.bot.name for r in rows] == ["bot0", "bot1", "bot2", "bot3"]
    assert {(r.key, r.players, r.options["continuous"], r.status) for r in rows} == {
        ('pairs:2:{"continuous":true}', 2, True, "pending")
    }
    assert services.start_due_tournaments() == []  # still validating
    assert Tournament.objects.get(pk=tournament.pk).status == "scheduled"
    for bot in bots[:3]:
        decide(version_of(bot), "passed")
    assert services.start_due_tournaments() == []  # one left
    decide(version_of(bots[3]), "failed", "in a test match as seat 0, the bot crashed: boom")
    assert services.start_due_tournaments() == [tournament.pk]

    entry = Entry.objects.get(tournament=tournament, bot=bots[3])
    assert entry.withdrawn and entry.seed_number is None
    assert entry.withdrawal_reason == "in a test match as seat 0, the bot crashed: boom"
    assert entry.version == version_of(bots[3])  # the version that failed, for its owner
    # Round 1 is paired without it: three entrants, no game of it, no forfeit.
    assert tournament.matches.count() == 3 * 2
    assert not MatchSeat.objects.filter(version=version_of(bots[3])).exists()
    seeded = Entry.objects.filter(tournament=tournament, seed_number__isnull=False)
    assert sorted(e.bot.name for e in seeded) == ["bot0", "bot1", "bot2"]


def test_a_version_validated_under_these_options_before_is_not_asked_again(organiser):
    bots = active_bots(owner=organiser, count=3)
    first = create(organiser, bots)
    for bot in bots[:2]:
        decide(version_of(bot), "passed")
    decide(version_of(bots[2]), "failed", "crashed")
    assert services.start_due_tournaments() == [first.pk]
    second = create(organiser, bots)
    assert OptionsValidation.objects.count() == 3  # nothing new asked for
    assert services.start_due_tournaments() == [second.pk]  # no wait
    assert Entry.objects.get(tournament=second, bot=bots[2]).withdrawn


def test_another_player_count_is_another_configuration(organiser):
    bots = active_bots(owner=organiser, count=3)
    create(organiser, bots, options={}, players_per_match=3, games_per_pairing=3)
    assert set(OptionsValidation.objects.values_list("key", "players")) == {("pairs:3", 3)}


def test_the_wait_is_bounded_and_an_undecided_entrant_then_plays(organiser, settings):
    settings.ARENA_OPTIONS_VALIDATION_WAIT_SECONDS = 600
    bots = active_bots(owner=organiser, count=3)
    tournament = create(organiser, bots)
    for bot in bots[:2]:
        decide(version_of(bot), "passed")
    start = tournament.start_at
    assert services.start_due_tournaments(now=start + timedelta(seconds=599)) == []
    assert services.start_due_tournaments(now=start + timedelta(seconds=600)) == [tournament.pk]
    entry = Entry.objects.get(tournament=tournament, bot=bots[2])
    assert not entry.withdrawn and entry.seed_number is not None
    assert tournament.matches.count() == 3 * 2


def test_a_validation_that_could_not_run_holds_nobody_out(organiser):
    bots = active_bots(owner=organiser, count=2)
    tournament = create(organiser, bots)
    decide(version_of(bots[0]), "passed")
    decide(version_of(bots[1]), "unrun", "the sandbox failed")
    assert services.start_due_tournaments() == [tournament.pk]
    assert not Entry.objects.filter(tournament=tournament, withdrawn=True).exists()


def test_a_version_uploaded_while_waiting_is_validated_in_its_turn(organiser):
    bots = active_bots(owner=organiser, count=2)
    tournament = create(organiser, bots)
    for bot in bots:
        decide(version_of(bot), "passed")
    newer = BotVersion.objects.create(
        bot=bots[1], number=2, upload=b"#2\n", size=3, sha256="2" * 64,
        status=BotVersion.Status.ACTIVE,
    )  # fmt: skip
    assert services.start_due_tournaments() == []  # the newer version is current: asked
    assert OptionsValidation.objects.get(version=newer).status == "pending"
    decide(newer, "failed", "crashed")
    assert services.start_due_tournaments() == [tournament.pk]
    entry = Entry.objects.get(tournament=tournament, bot=bots[1])
    assert entry.withdrawn and entry.version == newer


def test_too_few_entrants_left_cancels_the_tournament_saying_why(organiser):
    bots = active_bots(owner=organiser, count=2)
    tournament = create(organiser, bots)
    decide(version_of(bots[0]), "passed")
    decide(version_of(bots[1]), "failed", "crashed: a secret from stderr")
    assert services.start_due_tournaments() == [tournament.pk]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == (
        "cancelled at the start: 1 of 2 entrants could play; 1 failed validation under "
        "this event's options (1 entrants cannot fill 2-seat matches)"
    )
    assert "secret" not in tournament.cancel_reason
    assert not Match.objects.filter(tournament=tournament).exists()


def test_a_ladder_of_other_options_admits_a_version_once_it_passed(organiser):
    bots = active_bots(owner=organiser, count=3)
    options = registry.get("pairs").resolve_options(CONTINUOUS)
    ladder = Ladder.objects.create(
        key=pools.pool_key("pairs", 2, options), game="pairs", players=2, options=options
    )
    assert ladder_candidates(ladder=ladder) == {}  # each one's validation asked for
    assert OptionsValidation.objects.filter(status="pending").count() == 3
    decide(version_of(bots[0]), "passed")
    decide(version_of(bots[1]), "failed", "crashed")
    assert list(ladder_candidates(ladder=ladder)) == [version_of(bots[0]).pk]


def test_every_games_standard_ladder_plays_what_a_versions_own_validation_plays():
    """So the standard ladders (the only ones made by themselves) never seat a version
    under anything it was not validated under."""
    for slug in registry.slugs():
        engine = registry.get(slug)
        key = admission.configuration_key(
            game=slug, players=pools.standard_players(engine), options={}
        )
        assert admission.validated_by_default(game=slug, key=key), slug
