"""An entry withdrawn at the start (its version failed its validation under the event's
options) shows as withdrawn to everyone, and why only to its bot's owner: the fault may
quote the bot's stderr. On the tournament page, its live part and the API; a tournament
that could not start says why to everyone."""

from __future__ import annotations

from datetime import timedelta
from html import escape

import pytest
from django.test import Client
from django.utils import timezone

from bots.models import Bot, OptionsValidation
from tournaments import services
from tournaments.models import Entry

SECRET = "in a test match as seat 0, the bot crashed: Traceback ... my-secret-table"
PUBLIC = "withdrawn: failed validation under this event's options"


@pytest.fixture
def people(make_user):
    return {name: make_user(name) for name in ("organiser", "alice", "bob")}


def decide(bot: Bot, status: str, reason: str = "") -> None:
    OptionsValidation.objects.filter(version__bot=bot).update(
        status=status, reason=reason, validated_at=timezone.now()
    )


@pytest.fixture
def started(people, stored_version):
    """Alice's bot withdrawn, Bob's two bots playing."""
    bots = {}
    for owner, name in [("alice", "shy"), ("bob", "b1"), ("bob", "b2")]:
        bots[name] = Bot.objects.create(owner=people[owner], name=name, game="pairs")
        stored_version(bots[name])
    tournament = services.create_tournament(
        organiser=people["organiser"], name="continuous cup", game="pairs",
        bot_ids=[b.pk for b in bots.values()], options={"continuous": True},
    )  # fmt: skip
    decide(bots["shy"], "failed", SECRET)
    decide(bots["b1"], "passed")
    decide(bots["b2"], "passed")
    assert services.start_due_tournaments() == [tournament.pk]
    assert Entry.objects.get(bot=bots["shy"]).withdrawn
    return tournament


def page_client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("reader", [None, "bob", "organiser"])
def test_others_see_the_entry_withdrawn_and_not_why(started, people, client_for, reader):
    user = people[reader] if reader else None
    for path in (f"/tournaments/{started.pk}/", f"/tournaments/{started.pk}/live/"):
        html = page_client(user).get(path).content.decode()
        assert f"shy v1</span>: {escape(PUBLIC)}." in html
        assert "my-secret-table" not in html and "only you, its owner" not in html
    body = client_for(user).get(f"/api/tournaments/{started.pk}/").json()
    row = next(r for r in body["entrants"] if r["bot"] == "shy")
    assert row["withdrawn"] == PUBLIC and "withdrawal_reason" not in row
    assert "my-secret-table" not in str(body)
    assert all(r["withdrawn"] is None for r in body["entrants"] if r["bot"] != "shy")


def test_the_owner_reads_why_their_bot_was_withdrawn(started, people, client_for):
    for path in (f"/tournaments/{started.pk}/", f"/tournaments/{started.pk}/live/"):
        html = page_client(people["alice"]).get(path).content.decode()
        assert escape(PUBLIC) in html and "only you, its owner, see this" in html
        assert "my-secret-table" in html
    body = client_for(people["alice"]).get(f"/api/tournaments/{started.pk}/").json()
    row = next(r for r in body["entrants"] if r["bot"] == "shy")
    assert row["withdrawal_reason"] == SECRET
    assert all("withdrawal_reason" not in r for r in body["entrants"] if r["bot"] != "shy")


def test_a_tournament_that_could_not_start_says_why(people, stored_version, client_for):
    bots = []
    for owner, name in [("alice", "shy"), ("bob", "b1")]:
        bots.append(Bot.objects.create(owner=people[owner], name=name, game="pairs"))
        stored_version(bots[-1])
    tournament = services.create_tournament(
        organiser=people["organiser"], name="too few", game="pairs",
        bot_ids=[b.pk for b in bots], options={"continuous": True},
    )  # fmt: skip
    decide(bots[0], "failed", SECRET)
    decide(bots[1], "passed")
    services.start_due_tournaments()
    html = page_client(None).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Cancelled at the start: 1 of 2 entrants could play" in html
    body = client_for(None).get(f"/api/tournaments/{tournament.pk}/").json()
    assert body["status"] == "cancelled"
    assert body["cancel_reason"].startswith("cancelled at the start: 1 of 2 entrants")
    assert "my-secret-table" not in str(body)


def test_a_tournament_waiting_for_validations_says_so(people, stored_version, settings):
    settings.ARENA_OPTIONS_VALIDATION_WAIT_SECONDS = 600
    bots = []
    for owner, name in [("alice", "shy"), ("bob", "b1"), ("bob", "b2")]:
        bots.append(Bot.objects.create(owner=people[owner], name=name, game="pairs"))
        stored_version(bots[-1])
    tournament = services.create_tournament(
        organiser=people["organiser"], name="waiting", game="pairs",
        bot_ids=[b.pk for b in bots], options={"continuous": True},
    )  # fmt: skip
    decide(bots[1], "passed")
    assert services.start_due_tournaments() == []
    html = page_client(None).get(f"/tournaments/{tournament.pk}/").content.decode()
    until = (tournament.start_at + timedelta(seconds=600)).strftime("%H:%M")
    assert (
        "Round 1 waits for 2 entrants to play a validation match under this event's "
        f"options, until {until} UTC at the latest." in html
    )
    decide(bots[0], "passed")
    decide(bots[2], "passed")
    assert services.start_due_tournaments() == [tournament.pk]
    html = page_client(None).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Round 1 waits" not in html
