"""Challenges through the API: planned as play --games plans, unrated, consent, quotas,
the slots that keep tournaments first, and re-challenges on the same deals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from bots.models import OptionsValidation
from tests.support.builders import (
    active_bots,
    bot_with_version,
    fail_every_attempt,
    outcome,
    started_tournament,
    user,
)
from tournaments.bulk.plan import schedule
from tournaments.models import (
    Challenge,
    LeaderboardRow,
    Match,
    Rating,
    RatingChange,
    RatingLedger,
    RatingPair,
)
from tournaments.services.challenges import check_challenges, feed_challenges
from tournaments.services.playing import claim_match
from tournaments.services.recording import record_result

pytestmark = pytest.mark.django_db


def client_of(person) -> APIClient:
    client = APIClient()
    client.force_authenticate(person)
    return client


@pytest.fixture
def two_authors():
    alice, bob = user(name="alice"), user(name="bob")
    mine, _ = bot_with_version(name="mine", owner=alice)
    theirs, _ = bot_with_version(name="theirs", owner=bob)
    return alice, bob, mine, theirs


def challenge(client, bot, opponents, games=4, **extra):
    body = {"bot": bot.pk, "opponents": [o.pk for o in opponents], "games": games, **extra}
    return client.post("/api/challenges/", body, format="json")


def play_queued_challenge_games() -> int:
    """Claim and record every queued challenge game as a worker does, the seats ranked in
    order (seat 0 wins); the slots refill as results are recorded, so this plays every
    challenge to its end."""
    played = 0
    while True:
        match = Match.objects.filter(challenge__isnull=False, status="queued").first()
        if match is None:
            return played
        attempt = claim_match(match_id=match.pk)
        assert record_result(
            match_id=match.pk,
            attempt=attempt,
            outcome=outcome(match=match, ranks=list(range(1, match.seats.count() + 1))),
        )
        played += 1


def test_a_challenge_is_planned_as_play_plans_it_and_answers_with_its_figures(two_authors):
    alice, _, mine, theirs = two_authors
    answer = challenge(client_of(alice), mine, [theirs], games=6)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["status"] == "running" and len(body["matches"]) == 6
    stored = Challenge.objects.get(pk=body["id"])
    plans = schedule(groups=[(0, 1)], games=6, seed=stored.seed)
    matches = list(stored.matches.order_by("round", "number"))
    assert [m.seed for m in matches] == [p.seed for p in plans]
    versions = {0: stored.version_id, 1: stored.opponents.get().version_id}
    for match, plan in zip(matches, plans):
        seats = list(match.seats.order_by("seat").values_list("version_id", flat=True))
        assert seats == [versions[who] for who in plan.lineup]
    # Seat 0 always wins: each deal's pair splits 1-1, so the score is even.
    assert play_queued_challenge_games() == 6
    result = client_of(alice).get(f"/api/challenges/{body['id']}/").json()
    assert result["status"] == "finished"
    assert (result["wins"], result["draws"], result["losses"]) == (3, 0, 3)
    assert result["pentanomial"] == [0, 0, 3, 0, 0]
    assert result["elo_diff"] == 0.0 and result["los"] == 50.0
    assert result["played"] == result["total"] == 6
    assert any("pentanomial 0-0-3-0-0" in line for line in result["lines"])


def test_challenges_are_unrated(two_authors):
    alice, _, mine, theirs = two_authors
    before = list(LeaderboardRow.objects.values_list("pool", "bot_id", "elo", "sort_key"))
    body = challenge(client_of(alice), mine, [theirs], games=4).json()
    play_queued_challenge_games()
    assert Challenge.objects.get(pk=body["id"]).status == "finished"
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert not RatingLedger.objects.exists() and not RatingPair.objects.exists()
    assert set(Match.objects.filter(challenge_id=body["id"]).values_list("pool", "rated_seq")) == {
        ("", None)
    }
    after = list(LeaderboardRow.objects.values_list("pool", "bot_id", "elo", "sort_key"))
    assert after == before


def test_anonymous_and_others_cannot_challenge_with_a_bot_they_do_not_own(two_authors):
    alice, bob, mine, theirs = two_authors
    assert challenge(APIClient(), mine, [theirs]).status_code in (401, 403)
    refused = challenge(client_of(bob), mine, [theirs])
    assert refused.status_code == 403 and refused.json()["code"]
    assert not Challenge.objects.exists()


@pytest.mark.parametrize(
    "body, field",
    [
        ({"games": 0}, "games"),
        ({"games": 100000}, "games"),
        ({"opponents": []}, "opponents"),
        ({"options": {"no_such_option": 1}}, None),
        ({"players": 99}, None),
        ({"opponents": [999999]}, "opponents"),
        ({"version": 999999}, "version"),
        ({"pick_for_me": True}, "opponents"),
        ({"bot": 999999}, "bot"),
        ({"games": "many"}, "games"),
    ],
)
def test_bad_input_is_a_400_and_stores_nothing(two_authors, body, field):
    alice, _, mine, theirs = two_authors
    fields = {"bot": mine.pk, "opponents": [theirs.pk], "games": 4, **body}
    refused = client_of(alice).post("/api/challenges/", fields, format="json")
    assert refused.status_code == 400, refused.content
    if field:
        assert field in refused.json()["errors"]
    assert not Challenge.objects.exists() and not Match.objects.exists()


def test_consent_anyone_nobody_and_ask(two_authors):
    alice, bob, mine, theirs = two_authors
    owner = client_of(bob)
    assert (
        owner.patch(
            f"/api/bots/{theirs.pk}/", {"accepts_challenges": "nobody"}, format="json"
        ).status_code
        == 200
    )
    refused = challenge(client_of(alice), mine, [theirs])
    assert refused.status_code == 403
    assert not Challenge.objects.exists()

    owner.patch(f"/api/bots/{theirs.pk}/", {"accepts_challenges": "ask"}, format="json")
    asked = challenge(client_of(alice), mine, [theirs]).json()
    assert asked["status"] == "pending" and asked["matches"] == []
    inbox = owner.get("/api/challenges/?inbox=1").json()["results"]
    assert [row["id"] for row in inbox] == [asked["id"]]
    assert client_of(alice).get("/api/challenges/?inbox=1").json()["results"] == []
    # Only the asked bot's owner answers; the challenger cannot accept for them.
    assert client_of(alice).post(f"/api/challenges/{asked['id']}/accept/").status_code == 400
    assert APIClient().post(f"/api/challenges/{asked['id']}/accept/").status_code in (401, 403)
    accepted = owner.post(f"/api/challenges/{asked['id']}/accept/")
    assert accepted.status_code == 200 and accepted.json()["status"] == "running"
    assert len(accepted.json()["matches"]) == 4

    declined_one = challenge(client_of(alice), mine, [theirs]).json()
    assert (
        owner.post(f"/api/challenges/{declined_one['id']}/decline/").json()["status"] == "declined"
    )
    assert not Match.objects.filter(challenge_id=declined_one["id"]).exists()

    # The owner challenges their own bots whatever the setting.
    own, _ = bot_with_version(name="own", owner=bob)
    assert challenge(owner, own, [theirs]).json()["status"] == "running"


def test_an_unanswered_request_expires(two_authors):
    alice, bob, mine, theirs = two_authors
    theirs.accepts_challenges = "ask"
    theirs.save()
    asked = challenge(client_of(alice), mine, [theirs]).json()
    Challenge.objects.filter(pk=asked["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    check_challenges()
    assert client_of(alice).get(f"/api/challenges/{asked['id']}/").json()["status"] == "expired"
    assert client_of(bob).post(f"/api/challenges/{asked['id']}/accept/").status_code == 400


@override_settings(ARENA_CHALLENGES_AT_ONCE=1)
def test_challenges_at_once_is_a_429_with_retry_after_and_staff_are_exempt(two_authors):
    alice, _, mine, theirs = two_authors
    first = challenge(client_of(alice), mine, [theirs], games=2)
    assert first.status_code == 201
    refused = challenge(client_of(alice), mine, [theirs], games=2)
    assert refused.status_code == 429, refused.content
    assert int(refused["Retry-After"]) >= 1
    assert "at once" in refused.json()["detail"]
    play_queued_challenge_games()
    assert challenge(client_of(alice), mine, [theirs], games=2).status_code == 201
    staff = user(name="staff")
    staff.is_staff = True
    staff.save()
    staffs, _ = bot_with_version(name="staffs", owner=staff)
    for _ in range(3):
        assert challenge(client_of(staff), staffs, [theirs], games=2).status_code == 201


@override_settings(ARENA_CHALLENGE_GAMES_PER_DAY=10, ARENA_CHALLENGES_AT_ONCE=10)
def test_games_per_day_says_when_the_quota_frees_up(two_authors):
    alice, _, mine, theirs = two_authors
    early = challenge(client_of(alice), mine, [theirs], games=6).json()
    hours_ago = timezone.now() - timedelta(hours=20)
    Challenge.objects.filter(pk=early["id"]).update(created_at=hours_ago)
    assert challenge(client_of(alice), mine, [theirs], games=4).status_code == 201
    refused = challenge(client_of(alice), mine, [theirs], games=2)
    assert refused.status_code == 429
    # The 6 games of 20 hours ago leave the window in 4 hours.
    retry = int(refused["Retry-After"])
    assert 4 * 3600 - 60 <= retry <= 4 * 3600 + 1
    # A refused request counts for nothing; declined and expired ones neither.
    Challenge.objects.filter(pk=early["id"]).update(created_at=timezone.now() - timedelta(hours=25))
    assert challenge(client_of(alice), mine, [theirs], games=6).status_code == 201


@override_settings(ARENA_CHALLENGE_SLOTS=2, ARENA_CHALLENGES_AT_ONCE=100)
def test_a_flood_of_challenges_holds_no_more_than_its_slots():
    organiser = user(name="org")
    bots = active_bots(owner=organiser, count=3)
    tournament = started_tournament(organiser=organiser, bots=bots, games_per_pairing=2, seed=5)
    queued_before = set(
        Match.objects.filter(tournament=tournament, status="queued").values_list("pk", flat=True)
    )
    alice = user(name="alice")
    mine, _ = bot_with_version(name="mine", owner=alice)
    for _ in range(10):
        assert challenge(client_of(alice), mine, [bots[0]], games=4).status_code == 201
    live = Match.objects.filter(challenge__isnull=False, status__in=["queued", "running"])
    assert live.count() == 2
    assert Match.objects.filter(challenge__isnull=False, status="scheduled").count() == 38
    assert (
        queued_before
        and set(
            Match.objects.filter(tournament=tournament, status="queued").values_list(
                "pk", flat=True
            )
        )
        == queued_before
    )
    assert feed_challenges() == 0  # full: nothing more until a result frees a slot


def test_a_rechallenge_plays_the_same_deals_with_the_new_version(two_authors):
    alice, _, mine, theirs = two_authors
    first = challenge(client_of(alice), mine, [theirs], games=4).json()
    play_queued_challenge_games()
    from tests.support.builders import version

    newer = version(bot=mine)
    again = client_of(alice).post(f"/api/challenges/{first['id']}/again/", {}, format="json")
    assert again.status_code == 201, again.content
    body = again.json()
    assert body["version"] == newer.pk and body["again_of"] == first["id"]
    seeds = lambda pk: list(  # noqa: E731
        Match.objects.filter(challenge_id=pk)
        .order_by("round", "number")
        .values_list("seed", flat=True)
    )
    assert seeds(body["id"]) == seeds(first["id"])
    bob = user(name="bob")
    assert (
        client_of(bob).post(f"/api/challenges/{first['id']}/again/", {}, format="json").status_code
        == 403
    )


def test_pick_for_me_takes_a_bot_that_accepts_anyone(two_authors):
    alice, bob, mine, theirs = two_authors
    shy, _ = bot_with_version(name="shy", owner=bob, accepts_challenges="nobody")
    body = client_of(alice).post(
        "/api/challenges/",
        {"bot": mine.pk, "opponents": [], "pick_for_me": True, "games": 2},
        format="json",
    )
    assert body.status_code == 201, body.content
    assert [o["bot"] for o in body.json()["opponents"]] == [theirs.pk]
    assert shy.pk != theirs.pk


def test_the_result_shows_logs_only_to_their_owner(two_authors):
    alice, bob, mine, theirs = two_authors
    body = challenge(client_of(alice), mine, [theirs], games=2).json()
    play_queued_challenge_games()
    for reader, own in (
        (client_of(alice), "mine"),
        (client_of(bob), "theirs"),
        (APIClient(), None),
    ):
        table = reader.get(f"/api/challenges/{body['id']}/").json()["table"]
        for game in table:
            for seat in game["seats"]:
                assert (seat["log"] is not None) == (seat["bot"] == own)


def test_a_faulted_game_shows_its_public_reason_and_a_failed_one_ends_the_challenge(
    two_authors, settings
):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    alice, _, mine, theirs = two_authors
    body = challenge(client_of(alice), mine, [theirs], games=2).json()
    first, second = Match.objects.filter(challenge_id=body["id"]).order_by("round", "number")
    attempt = claim_match(match_id=first.pk)
    faulted = outcome(match=first, ranks=[2, 1])
    faulted["result"]["seats"][0]["fault"] = {"kind": "timeout", "reason": "no answer in 1000 ms"}
    assert record_result(match_id=first.pk, attempt=attempt, outcome=faulted)
    fail_every_attempt(match=second)  # the host could not play it
    check_challenges()
    result = APIClient().get(f"/api/challenges/{body['id']}/").json()
    assert result["status"] == "finished" and result["played"] == 1
    assert (result["wins"], result["draws"], result["losses"]) == (0, 0, 1)
    seat = next(s for s in result["table"][0]["seats"] if s["fault"])
    assert seat["fault"]["reason"] == "no answer in 1000 ms"


def test_a_table_of_three_plays_every_rotation_and_scores_each_head_to_head(two_authors):
    alice, bob, mine, theirs = two_authors
    third, _ = bot_with_version(name="third", owner=bob)
    body = challenge(client_of(alice), mine, [theirs, third], games=3).json()
    assert body["players"] == 3 and body["total"] == 3
    play_queued_challenge_games()
    result = client_of(alice).get(f"/api/challenges/{body['id']}/").json()
    assert result["status"] == "finished"
    # Seat 0 wins and seat 1 is second: over the rotations, one win, two losses against each.
    assert [f["opponent"] for f in result["figures"]] == ["theirs@v1", "third@v1"]
    assert sum(f["games"] for f in result["figures"]) == 6
    assert result["wins"] + result["draws"] + result["losses"] == 6
    assert result["pentanomial"] == []
    assert any("ranks" in line for line in result["lines"])


def test_other_options_ask_for_validation_under_them(two_authors):
    alice, _, mine, theirs = two_authors
    made = challenge(client_of(alice), mine, [theirs], games=2, options={"continuous": True})
    assert made.status_code == 201, made.content
    assert made.json()["options"]["continuous"] is True
    assert OptionsValidation.objects.count() == 2
    assert set(Match.objects.values_list("options__continuous", flat=True)) == {True}


def test_the_challenger_cancels_and_the_unplayed_games_are_dropped(two_authors):
    alice, bob, mine, theirs = two_authors
    body = challenge(client_of(alice), mine, [theirs], games=6).json()
    assert client_of(bob).post(f"/api/challenges/{body['id']}/cancel/").status_code == 403
    assert APIClient().post(f"/api/challenges/{body['id']}/cancel/").status_code in (401, 403)
    cancelled = client_of(alice).post(f"/api/challenges/{body['id']}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    statuses = set(Match.objects.filter(challenge_id=body["id"]).values_list("status", flat=True))
    assert statuses == {"cancelled"}
    assert play_queued_challenge_games() == 0


def test_the_seed_is_shown_once_no_game_is_left_to_play(two_authors):
    """The seed deals every game: while one is still to play it would give its hands away,
    to the challenger as to anyone."""
    alice, bob, mine, theirs = two_authors
    body = challenge(client_of(alice), mine, [theirs], games=2).json()
    assert body["seed"] is None
    # Nor a log link before there is a log.
    assert all(seat["log"] is None for game in body["table"] for seat in game["seats"])
    for reader in (alice, bob):
        assert client_of(reader).get(f"/api/challenges/{body['id']}/").json()["seed"] is None
    page = client_of(alice).get(f"/challenges/{body['id']}/").content.decode()
    stored = Challenge.objects.get(pk=body["id"])
    assert str(stored.seed) not in page and "seed hidden" in page
    play_queued_challenge_games()
    for reader in (alice, bob):
        answer = client_of(reader).get(f"/api/challenges/{body['id']}/").json()
        assert answer["status"] == "finished" and answer["seed"] == stored.seed
