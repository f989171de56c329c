"""List filters, cursors and page sizes are validated: a bad value is a 400 in the error shape."""

import pytest
from django.utils import timezone

from bots.models import Bot
from tournaments.models import Tournament


def tournament(name: str, organiser, game: str, **fields) -> Tournament:
    """A two-player tournament starting now."""
    return Tournament.objects.create(
        name=name,
        organiser=organiser,
        game=game,
        players_per_match=2,
        start_at=timezone.now(),
        **fields,
    )


@pytest.fixture
def listed(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    Bot.objects.create(owner=alice, name="a-pairs", game="pairs")
    Bot.objects.create(owner=alice, name="a-paks", game="paks")
    Bot.objects.create(owner=bob, name="b-pairs", game="pairs")
    tournament("cup", alice, "pairs", seed=1)
    tournament("done", bob, "paks", seed=2, status=Tournament.Status.FINISHED)
    return alice, bob


def names(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {row["name"] for row in response.json()["results"]}


def test_filters_select(client_for, listed):
    alice, _ = listed
    anon = client_for(None)
    assert names(anon.get("/api/bots/", {"game": "pairs"})) == {"a-pairs", "b-pairs"}
    assert names(anon.get("/api/bots/", {"owner": alice.pk})) == {"a-pairs", "a-paks"}
    assert names(anon.get("/api/bots/", {"owner": alice.pk, "game": "paks"})) == {"a-paks"}
    assert names(anon.get("/api/bots/", {"game": ""})) == {"a-pairs", "a-paks", "b-pairs"}
    assert names(anon.get("/api/tournaments/", {"game": "paks"})) == {"done"}
    assert names(anon.get("/api/tournaments/", {"status": "scheduled"})) == {"cup"}


@pytest.mark.parametrize(
    "path, params, field",
    [
        ("/api/bots/", {"owner": "abc"}, "owner"),
        ("/api/bots/", {"owner": "1.5"}, "owner"),
        ("/api/bots/", {"owner": "0"}, "owner"),
        ("/api/bots/", {"owner": "9" * 30}, "owner"),
        ("/api/bots/", {"owner": "\x00"}, "owner"),
        ("/api/bots/", {"game": "\x00"}, "game"),
        ("/api/bots/", {"game": "pa\x00irs"}, "game"),
        ("/api/bots/", {"game": "no-such-game"}, "game"),
        ("/api/tournaments/", {"game": "\x00"}, "game"),
        ("/api/tournaments/", {"status": "\x00"}, "status"),
        ("/api/tournaments/", {"status": "paused"}, "status"),
        ("/api/bots/", {"cursor": "\x00"}, "cursor"),
        ("/api/bots/", {"page_size": "0"}, "page_size"),
        ("/api/tournaments/", {"page_size": "²"}, "page_size"),
        ("/api/tournaments/", {"page_size": "201"}, "page_size"),
        ("/api/tournaments/", {"cursor": "bm9wZQ"}, "cursor"),
    ],
)
def test_bad_filters_are_a_400(client_for, listed, path, params, field):
    response = client_for(None).get(path, params)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and field in body["errors"], body


def test_the_last_page_has_no_next(client_for, listed):
    ordered = list(Bot.objects.order_by("name").values_list("name", flat=True))  # collation's
    body = client_for(None).get("/api/bots/", {"page_size": "2"}).json()
    assert [row["name"] for row in body["results"]] == ordered[:2]
    assert body["previous"] is None
    last = client_for(None).get(body["next"]).json()
    assert [row["name"] for row in last["results"]] == ordered[2:]
    assert last["next"] is None and last["previous"] is not None


def test_schema_documents_the_filters(client_for, db):
    schema = client_for(None).get("/api/schema/", {"format": "json"}).json()
    bots = {p["name"]: p["schema"] for p in schema["paths"]["/api/bots/"]["get"]["parameters"]}
    assert "pairs" in bots["game"]["enum"]
    assert bots["owner"]["type"] == "integer" and bots["owner"]["minimum"] == 1
    assert bots["page_size"]["minimum"] == 1 and bots["page_size"]["maximum"] == 200
    assert bots["cursor"]["type"] == "string"
    tournaments = schema["paths"]["/api/tournaments/"]["get"]["parameters"]
    status = next(p["schema"] for p in tournaments if p["name"] == "status")
    assert set(status["enum"]) == set(Tournament.Status.values)
