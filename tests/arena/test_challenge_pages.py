"""Challenge pages read anonymously and as another user: nothing of the owner's leaks, and
only the right people change anything."""

from __future__ import annotations

import html
import json
from urllib.parse import quote

import pytest
from django.test import Client

from tests.support.builders import bot_with_version, outcome, user
from tournaments.models import Challenge, Match
from tournaments.ratings import pools
from tournaments.services.challenges import Asked, create_challenge
from tournaments.services.playing import claim_match
from tournaments.services.recording import record_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    alice, bob = user(name="alice"), user(name="bob")
    mine, _ = bot_with_version(name="mine", owner=alice)
    theirs, _ = bot_with_version(name="theirs", owner=bob)
    challenge = create_challenge(
        user=alice, asked=Asked(bot_id=mine.pk, opponent_ids=[theirs.pk], games=2, options={})
    )
    while match := Match.objects.filter(challenge=challenge, status="queued").first():
        attempt = claim_match(match_id=match.pk)
        record_result(
            match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
        )
    challenge.refresh_from_db()
    assert challenge.status == "finished"
    return challenge, alice, bob, mine, theirs


def client_of(person=None) -> Client:
    client = Client()
    if person is not None:
        client.force_login(person)
    return client


def test_the_result_page_to_anyone_and_the_logs_to_their_owners(played):
    challenge, alice, bob, *_ = played
    for reader, logs in ((None, 0), (bob, 2), (alice, 2)):
        page = client_of(reader).get(f"/challenges/{challenge.pk}/")
        assert page.status_code == 200
        assert page.content.decode().count('class="log"') == logs
        again = 'id="again"' in page.content.decode()
        assert again == (reader == alice)


def test_only_the_right_people_change_anything(played):
    challenge, alice, bob, mine, theirs = played
    assert client_of().get(f"/bots/{theirs.pk}/challenge/").status_code == 302  # log in first
    assert client_of().post(f"/challenges/{challenge.pk}/again/").status_code == 302
    assert client_of(bob).post(f"/challenges/{challenge.pk}/again/").status_code == 403
    assert client_of(bob).post(f"/challenges/{challenge.pk}/cancel/").status_code == 403
    assert (
        client_of(alice)
        .post(f"/bots/{theirs.pk}/challenges/", {"accepts_challenges": "nobody"})
        .status_code
        == 404
    )
    theirs.refresh_from_db()
    assert theirs.accepts_challenges == "anyone"
    assert (
        client_of(bob)
        .post(f"/bots/{theirs.pk}/challenges/", {"accepts_challenges": "nobody"})
        .status_code
        == 302
    )
    theirs.refresh_from_db()
    assert theirs.accepts_challenges == "nobody"
    refused = client_of(alice).post(f"/bots/{theirs.pk}/challenge/", {"bot": mine.pk, "games": 2})
    assert refused.status_code == 403 and Challenge.objects.count() == 1


def test_the_bot_page_lists_its_challenges_both_ways(played):
    challenge, _, _, mine, theirs = played
    for bot in (mine, theirs):
        page = client_of().get(f"/bots/{bot.pk}/").content.decode()
        assert f'href="/challenges/{challenge.pk}/"' in page and "1-0-1" in page


def test_the_leaderboard_offers_a_challenge(played):
    *_, theirs = played
    page = client_of().get("/games/pairs/").content.decode()
    assert f"/bots/{theirs.pk}/challenge/" in page


def test_pick_for_me_from_the_dashboard(played):
    _, alice, bob, mine, theirs = played
    assert client_of().get("/challenges/pick/").status_code == 302
    page = client_of(alice).get(f"/challenges/pick/?bot={mine.pk}")
    assert page.status_code == 200
    made = client_of(alice).post("/challenges/pick/", {"bot": mine.pk, "games": 2, "options": "{}"})
    assert made.status_code == 302, made.content.decode()
    newest = Challenge.objects.order_by("-id").first()
    assert [o.bot_id for o in newest.opponents.all()] == [theirs.pk]
    # Another's bot is not a choice.
    refused = client_of(bob).post("/challenges/pick/", {"bot": mine.pk, "games": 2})
    assert refused.status_code == 200 and Challenge.objects.count() == 2
    bad = client_of(alice).post(
        "/challenges/pick/", {"bot": mine.pk, "games": 2, "options": '{"nope": 1}'}
    )
    assert bad.status_code == 400 and Challenge.objects.count() == 2


def test_a_leaderboard_row_challenges_under_that_board_s_options(played):
    _, alice, _, _, theirs = played
    # The standard board (the one with rows here: challenges rate nothing) links its pool.
    standard = pools.pool_key("pairs", 2, {})
    board = client_of().get("/games/pairs/").content.decode()
    assert f"/bots/{theirs.pk}/challenge/?pool={quote(standard)}" in board
    key = pools.pool_key("pairs", 2, {"continuous": True})
    form = client_of(alice).get(f"/bots/{theirs.pk}/challenge/", {"pool": key}).content.decode()
    assert f'value="{html.escape(json.dumps({"continuous": True}), quote=True)}"' in form
    # A key that is no pool, or another game's, leaves the defaults.
    for other in ("nonsense", pools.pool_key("stax", 2, {})):
        form = client_of(alice).get(f"/bots/{theirs.pk}/challenge/", {"pool": other})
        assert form.status_code == 200
        assert 'value="{}"' in form.content.decode()


def test_a_table_of_three_from_the_dashboard(played):
    _, alice, bob, mine, theirs = played
    third, _ = bot_with_version(name="third", owner=bob)
    made = client_of(alice).post(
        f"/bots/{theirs.pk}/challenge/",
        {"bot": mine.pk, "games": 3, "options": "{}", "more": "third, theirs"},
    )
    assert made.status_code == 302, made.content.decode()
    newest = Challenge.objects.order_by("-id").first()
    assert newest.players == 3
    assert sorted(o.bot_id for o in newest.opponents.all()) == sorted([theirs.pk, third.pk])
    unknown = client_of(alice).post(
        f"/bots/{theirs.pk}/challenge/",
        {"bot": mine.pk, "games": 3, "options": "{}", "more": "nobody-here"},
    )
    assert (
        unknown.status_code == 200 and "no pairs bot named nobody-here" in unknown.content.decode()
    )
    assert Challenge.objects.count() == 2


def test_a_bot_s_challenges_through_the_api_to_anyone(played):
    challenge, alice, bob, mine, theirs = played
    for reader in (None, bob, alice):
        for bot in (mine, theirs):
            answer = client_of(reader).get(f"/api/bots/{bot.pk}/challenges/")
            assert answer.status_code == 200
            rows = answer.json()["results"]
            assert [row["id"] for row in rows] == [challenge.pk]
            assert (rows[0]["wins"], rows[0]["draws"], rows[0]["losses"]) == (1, 0, 1)
    missing = client_of().get("/api/bots/999999/challenges/")
    assert missing.status_code == 404 and "detail" in missing.json()
