"""Item 13: an organiser may enter their own bots, and other people's only while those
accept entries; the owner decides through the API and the dashboard."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots.models import Bot
from tests.support import throttle
from tournaments import services
from tournaments.models import Tournament

clean_throttle_counts = throttle.clean_throttle_counts


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def entrants(alice, bob, stored_version):
    """Alice's bot, Bob's bot that accepts entries and Bob's bot that does not."""
    bots = {}
    for owner, name, accepts in [
        (alice, "alices", True),
        (bob, "bobs-open", True),
        (bob, "bobs-closed", False),
    ]:
        bots[name] = Bot.objects.create(
            owner=owner, name=name, game="pairs", accepts_entries=accepts
        )
        stored_version(bots[name])
    return bots


def test_another_organiser_cannot_enter_a_bot_that_opted_out(alice, entrants, client_for):
    body = {
        "name": "cup",
        "game": "pairs",
        "bots": [entrants["alices"].pk, entrants["bobs-closed"].pk],
    }
    answer = client_for(alice).post("/api/tournaments/", body, format="json")
    assert answer.status_code == 400
    assert "bobs-closed's owner does not accept entries" in str(answer.json())
    assert Tournament.objects.count() == 0

    body["bots"] = [entrants["alices"].pk, entrants["bobs-open"].pk]
    assert client_for(alice).post("/api/tournaments/", body, format="json").status_code == 201


def test_the_owner_may_always_enter_their_own_bots(bob, entrants, client_for):
    body = {
        "name": "own",
        "game": "pairs",
        "bots": [entrants["bobs-open"].pk, entrants["bobs-closed"].pk],
    }
    assert client_for(bob).post("/api/tournaments/", body, format="json").status_code == 201


def test_owner_sets_accepts_entries_through_the_api(alice, bob, entrants, client_for):
    bot = entrants["bobs-open"]
    assert client_for(None).get(f"/api/bots/{bot.pk}/").json()["accepts_entries"] is True
    answer = client_for(bob).patch(
        f"/api/bots/{bot.pk}/", {"description": "", "accepts_entries": False}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["accepts_entries"] is False
    bot.refresh_from_db()
    assert bot.accepts_entries is False
    # Nobody else can change it.
    answer = client_for(alice).patch(
        f"/api/bots/{bot.pk}/", {"description": "", "accepts_entries": True}, format="json"
    )
    assert answer.status_code == 403
    bot.refresh_from_db()
    assert bot.accepts_entries is False

    created = client_for(alice).post(
        "/api/bots/", {"name": "private", "game": "pairs", "accepts_entries": False}, format="json"
    )
    assert created.status_code == 201 and created.json()["accepts_entries"] is False
    assert Bot.objects.get(name="private").accepts_entries is False


def test_dashboard_offers_only_bots_the_organiser_may_enter(alice, entrants, client):
    client.force_login(alice)
    page = client.get("/tournaments/new/").content.decode()
    assert "alices" in page and "bobs-open" in page and "bobs-closed" not in page
    closed = client.get(f"/bots/{entrants['bobs-closed'].pk}/").content.decode()
    assert "Only its owner enters this bot in tournaments." in closed


def test_new_bot_form_records_the_owner_s_choice(alice, client):
    client.force_login(alice)
    broken = SimpleUploadedFile("main.py", b"x = 1\n")
    client.post("/bots/new/", {"name": "shy", "game": "pairs", "file": broken})
    assert Bot.objects.get(name="shy").accepts_entries is False  # an unticked box


def test_an_entry_made_before_the_owner_opted_out_still_plays(alice, entrants):
    tournament = services.create_tournament(
        organiser=alice,
        name="cup",
        game="pairs",
        bot_ids=[entrants["alices"].pk, entrants["bobs-open"].pk],
    )
    Bot.objects.filter(pk=entrants["bobs-open"].pk).update(accepts_entries=False)
    assert services.start_tournament(tournament_id=tournament.pk)
    pinned = {e.bot.name: e.version_id for e in tournament.entries.select_related("bot")}
    assert pinned["bobs-open"] is not None and tournament.matches.count() > 0


def test_the_owner_switches_entries_on_the_bot_page(client, alice, bob, entrants):
    """The dashboard's switch on an existing bot: only its owner may flip it, by POST."""
    bot = entrants["bobs-open"]
    client.force_login(bob)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "Keep it to my own tournaments" in page
    assert client.get(f"/bots/{bot.pk}/entries/").status_code == 405
    client.post(f"/bots/{bot.pk}/entries/")
    bot.refresh_from_db()
    assert not bot.accepts_entries
    assert "Let other organisers enter it" in client.get(f"/bots/{bot.pk}/").content.decode()
    client.post(f"/bots/{bot.pk}/entries/", {"accepts_entries": "on"})
    bot.refresh_from_db()
    assert bot.accepts_entries
    client.force_login(alice)  # not hers: no switch shown, and a POST changes nothing
    assert "entries-switch" not in client.get(f"/bots/{bot.pk}/").content.decode()
    assert client.post(f"/bots/{bot.pk}/entries/").status_code == 404
    bot.refresh_from_db()
    assert bot.accepts_entries
