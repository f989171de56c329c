"""Events reach people: the inbox (and its bell on every page), email when chosen, per
kind; a validation verdict, a challenge and a tournament tell whom they concern."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from rest_framework.test import APIClient

from arena.integrations import services
from arena.integrations.models import ChannelPreference, Notification
from bots import services as bot_services
from bots.models import BotVersion
from tests.support import builders
from tests.support.competitions import enter_bots, new_competition
from tournaments.models import Challenge, Match
from tournaments.services import challenges, competition_phases, competitions, teams
from tournaments.services.playing import claim_match, record_result


@pytest.fixture
def alice(make_user):
    user = make_user("alice")
    user.email = "alice@example.org"
    user.save()
    return user


def validating_version(owner):
    bot, _ = builders.bot_with_version(name="alpha", owner=owner)
    return builders.version(bot=bot, status=BotVersion.Status.VALIDATING, announce=False)


def test_a_refused_version_tells_its_owner_in_the_inbox_and_by_email_when_chosen(
    alice, django_capture_on_commit_callbacks
):
    services.set_channels(
        user=alice, kind="version.refused", inbox=True, email=True, webhooks=False
    )
    version = validating_version(alice)
    with django_capture_on_commit_callbacks(execute=True):
        bot_services._record_verdict(version=version, ok=False, reason="it crashed at move 3")
    note = Notification.objects.get(user=alice)
    assert note.kind == "version.refused"
    assert "alpha@v2 was refused: it crashed at move 3" == note.text
    assert note.data["reason"] == "it crashed at move 3" and note.link == f"/bots/{version.bot_id}/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.org"]
    assert "it crashed at move 3" in mail.outbox[0].body


def test_a_validated_version_goes_nowhere_its_owner_turned_off(
    alice, django_capture_on_commit_callbacks
):
    services.set_channels(
        user=alice, kind="version.validated", inbox=False, email=False, webhooks=False
    )
    version = validating_version(alice)
    with django_capture_on_commit_callbacks(execute=True):
        bot_services._record_verdict(version=version, ok=True, reason="")
    assert BotVersion.objects.get(pk=version.pk).status == "active"
    assert not Notification.objects.exists() and not mail.outbox


def test_the_bell_counts_unread_notifications_on_every_page(alice, client):
    for n in range(3):
        Notification.objects.create(user=alice, kind="webhook.test", text=f"note {n}")
    client.force_login(alice)
    for path in ("/", "/bots/", "/tournaments/", "/account/tokens/"):
        page = client.get(path).content.decode()
        assert 'id="bell"' in page and "Notifications: 3 unread" in page, path
    client.post("/account/notifications/")  # mark all read
    assert "Notifications: 0 unread" in client.get("/bots/").content.decode()
    client.logout()
    assert 'id="bell"' not in client.get("/bots/").content.decode()


def test_the_inbox_api_is_each_user_s_own(alice, make_user, client_for):
    Notification.objects.create(user=alice, kind="webhook.test", text="hers")
    bob = make_user("bob")
    Notification.objects.create(user=bob, kind="webhook.test", text="his")
    assert APIClient().get("/api/notifications/").status_code == 401
    assert APIClient().post("/api/notifications/read/", {}, format="json").status_code == 401
    mine = client_for(alice).get("/api/notifications/").json()
    assert mine["unread"] == 1 and [n["text"] for n in mine["results"]] == ["hers"]
    his = Notification.objects.get(user=bob)
    # Marking another user's notification read marks nothing.
    answer = client_for(alice).post("/api/notifications/read/", {"ids": [his.pk]}, format="json")
    assert answer.json() == {"marked": 0, "unread": 1}
    his.refresh_from_db()
    assert his.read_at is None
    answer = client_for(alice).post("/api/notifications/read/", {}, format="json")
    assert answer.json() == {"marked": 1, "unread": 0}
    bad = client_for(alice).post("/api/notifications/read/", {"ids": ["x"]}, format="json")
    assert bad.status_code == 400 and "ids.0" in bad.json()["errors"]


def test_the_settings_page_stores_each_kind_s_channels(alice, client):
    client.force_login(alice)
    page = client.get("/account/notifications/settings/")
    assert page.status_code == 200 and b"challenge.finished" in page.content
    client.post(
        "/account/notifications/settings/",
        {"challenge.finished:email": "on", "version.refused:inbox": "on"},
    )
    finished = ChannelPreference.objects.get(user=alice, kind="challenge.finished")
    assert (finished.inbox, finished.email, finished.webhooks) == (False, True, False)
    refused = ChannelPreference.objects.get(user=alice, kind="version.refused")
    assert (refused.inbox, refused.email, refused.webhooks) == (True, False, False)


@pytest.mark.parametrize(
    "path", ["/account/notifications/", "/account/tokens/", "/account/webhooks/"]
)
def test_account_pages_ask_anonymous_readers_to_log_in(client, path):
    answer = client.get(path)
    assert answer.status_code == 302 and "/login/" in answer["Location"]


def play_challenge(challenge: Challenge) -> None:
    while match := Match.objects.filter(challenge=challenge, status="queued").first():
        attempt = claim_match(match_id=match.pk)
        seats = list(match.seats.order_by("seat"))
        ranks = [1 if s.version_id == challenge.version_id else 2 for s in seats]
        assert record_result(
            match_id=match.pk, attempt=attempt, outcome=builders.outcome(match=match, ranks=ranks)
        )


def test_a_challenge_tells_both_sides_and_its_score(
    alice, make_user, django_capture_on_commit_callbacks
):
    bob = make_user("bob")
    mine, _ = builders.bot_with_version(name="mine", owner=alice)
    theirs, _ = builders.bot_with_version(name="theirs", owner=bob, accepts_challenges="ask")
    asked = challenges.Asked(bot_id=mine.pk, opponent_ids=[theirs.pk], games=2, options={})
    with django_capture_on_commit_callbacks(execute=True):
        challenge = challenges.create_challenge(user=alice, asked=asked)
    received = Notification.objects.get(user=bob)
    assert received.kind == "challenge.received" and "alice's mine@v1" in received.text
    with django_capture_on_commit_callbacks(execute=True):
        challenges.answer_challenge(user=bob, challenge_id=challenge.pk, accept=True)
    assert Notification.objects.get(user=alice).kind == "challenge.accepted"
    with django_capture_on_commit_callbacks(execute=True):
        play_challenge(challenge)
    for user in (alice, bob):
        finished = Notification.objects.get(user=user, kind="challenge.finished")
        assert "2 wins, 0 draws, 0 losses" in finished.text, finished.text
        assert finished.data["wins"] == 2 and finished.data["challenge_id"] == challenge.pk


def test_a_tournament_tells_its_entrants_owners_and_organiser_the_places(
    alice, make_user, django_capture_on_commit_callbacks
):
    bob = make_user("bob")
    organiser = make_user("org")
    bots = [
        builders.bot_with_version(name="a1", owner=alice)[0],
        builders.bot_with_version(name="b1", owner=bob)[0],
    ]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = builders.started_tournament(organiser=organiser, bots=bots)
        builders.play_queued(tournament_id=tournament.pk)
    for user in (alice, bob, organiser):
        kinds = list(
            Notification.objects.filter(user=user).order_by("pk").values_list("kind", flat=True)
        )
        assert kinds == ["tournament.started", "tournament.finished"], (user, kinds)
    finished = Notification.objects.get(user=bob, kind="tournament.finished")
    assert [p["bot"] for p in finished.data["places"]] == ["a1", "b1"]
    assert finished.text == "Tournament cup finished: 1. a1, 2. b1; yours: b1 2nd of 2"
    organisers = Notification.objects.get(user=organiser, kind="tournament.finished")
    assert organisers.text == "Tournament cup finished: 1. a1, 2. b1"


def test_the_channels_api_changes_only_the_reader_s_choices(alice, make_user, client_for):
    assert APIClient().get("/api/notifications/channels/").status_code == 401
    path = "/api/notifications/channels/challenge.finished/"
    assert APIClient().patch(path, {"email": True}, format="json").status_code == 401
    api = client_for(alice)
    rows = {r["kind"]: r for r in api.get("/api/notifications/channels/").json()}
    assert (rows["challenge.finished"]["inbox"], rows["challenge.finished"]["email"]) == (
        True,
        False,
    )
    answer = api.patch(path, {"email": True, "webhooks": False}, format="json")
    assert answer.json() == {
        "kind": "challenge.finished",
        "label": rows["challenge.finished"]["label"],
        "inbox": True,
        "email": True,
        "webhooks": False,
    }
    missing = api.patch("/api/notifications/channels/no.such/", {"email": True}, format="json")
    assert missing.status_code == 404
    bad = api.patch(path, {"email": "maybe"}, format="json")
    assert bad.status_code == 400 and "email" in bad.json()["errors"]
    bob = client_for(make_user("bob"))
    theirs = {r["kind"]: r for r in bob.get("/api/notifications/channels/").json()}
    assert theirs["challenge.finished"]["email"] is False


def test_a_competition_announcement_tells_its_entrants_and_teams(
    alice, make_user, django_capture_on_commit_callbacks
):
    organiser, bob, mate, outsider = (make_user(n) for n in ("org", "bob", "mate", "outsider"))
    competition = new_competition(organiser, name="Winter cup", final_settings=None)
    entries = enter_bots(competition, [alice, bob])
    team = teams.create_team(competition=competition, user=bob, name="bobs")
    teams.add_team_member(team=team, user=mate, by=bob)
    with django_capture_on_commit_callbacks(execute=True):
        competitions.announce(competition=competition, text="Final at noon")
    told = set(
        Notification.objects.filter(kind="competition.announcement").values_list(
            "user__username", flat=True
        )
    )
    assert told == {"alice", "bob", "mate"}  # not the author, not an outsider
    note = Notification.objects.get(user=alice, kind="competition.announcement")
    assert note.text == "Winter cup: Final at noon"
    assert note.data == {
        "competition_id": competition.pk,
        "announcement_id": competition.announcements.get().pk,
    }
    assert note.link == f"/competitions/{competition.pk}/"
    # The competition's own announcements reach the organiser too; a disqualified entry's
    # owner no more (here: one entrant left, so no final can be played).
    competitions.disqualify_entry(entry=entries[0], reason="shared code")
    with django_capture_on_commit_callbacks(execute=True):
        competition_phases.advance_competitions(now=competition.deadline + timedelta(minutes=1))
    own = set(
        Notification.objects.filter(kind="competition.announcement")
        .exclude(text="Winter cup: Final at noon")
        .values_list("user__username", flat=True)
    )
    assert own == {"org", "bob", "mate"}, own
