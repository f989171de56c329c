"""List filters and page numbers are validated: a bad value is a 400 in the error shape."""

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
        ("/api/bots/", {"page": "\x00"}, "page"),
        ("/api/tournaments/", {"page": "0"}, "page"),
        ("/api/tournaments/", {"page": "²"}, "page"),
    ],
)
def test_bad_filters_are_a_400(client_for, listed, path, params, field):
    response = client_for(None).get(path, params)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and field in body["errors"], body


def test_a_page_past_the_end_is_a_404(client_for, listed):
    response = client_for(None).get("/api/bots/", {"page": "2"})
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_schema_documents_the_filters(client_for, db):
    schema = client_for(None).get("/api/schema/", {"format": "json"}).json()
    bots = {p["name"]: p["schema"] for p in schema["paths"]["/api/bots/"]["get"]["parameters"]}
    assert "pairs" in bots["game"]["enum"]
    assert bots["owner"]["type"] == "integer" and bots["owner"]["minimum"] == 1
    assert bots["page"]["minimum"] == 1
    tournaments = schema["paths"]["/api/tournaments/"]["get"]["parameters"]
    status = next(p["schema"] for p in tournaments if p["name"] == "status")
    assert set(status["enum"]) == set(Tournament.Status.values)
