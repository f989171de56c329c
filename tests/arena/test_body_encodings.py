"""Items 4 and 6: a request body means the same in every encoding the API accepts.

A boolean left out of a form or multipart body takes the default it takes when left out of
JSON (HTML forms leave out an unticked box, which DRF read as false: `curl -d name=mybot -d
game=pairs` made a bot that accepted no entries). The test walks the OpenAPI schema for
every request body with a writable boolean and sends a minimal valid body each way.

A JSON document sent as a form body (`curl -d '{...}'` without a Content-Type) is refused
with a 415 that says to send `Content-Type: application/json`, and changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from bots.models import Bot
from tests.support import throttle
from tournaments.models import Tournament
from tournaments.services import competitions

clean_throttle_counts = throttle.clean_throttle_counts

ENCODINGS = ("json", "form", "multipart")


def send(client, method: str, path: str, body: dict, encoding: str):
    call = getattr(client, method)
    if encoding == "json":
        return call(path, body, format="json")
    if encoding == "multipart":
        return call(path, body, format="multipart")
    # What curl -d sends: application/x-www-form-urlencoded, a list as repeated keys.
    from urllib.parse import urlencode

    return call(path, urlencode(body, doseq=True), content_type="application/x-www-form-urlencoded")


def resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def writable_booleans(schema: dict) -> dict[tuple[str, str], list[str]]:
    """(method, path) of every operation whose request body has a writable boolean."""
    found = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for content in operation.get("requestBody", {}).get("content", {}).values():
                body = resolve(schema, content["schema"])
                names = [
                    name
                    for name, field in body.get("properties", {}).items()
                    if resolve(schema, field).get("type") == "boolean" and not field.get("readOnly")
                ]
                if names:
                    found[(method, path)] = sorted(set(found.get((method, path), [])) | set(names))
    return found


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker):
    """The API's schema, asked for once: building it takes most of a second and no test here
    changes it. Anonymous, it reads and writes nothing in the database."""
    with django_db_blocker.unblock():
        answer = APIClient().get("/api/schema/?format=json")
    assert answer.status_code == 200
    return json.loads(answer.content)


@pytest.fixture
def alice(make_user):
    return make_user("alice")


def entrants(owner, stored_version) -> list[int]:
    ids = []
    for n in range(2):
        bot = Bot.objects.create(owner=owner, name=f"entrant{n}", game="pairs")
        stored_version(bot)
        ids.append(bot.pk)
    return ids


# Per operation: a minimal valid body sent in one encoding, and the resulting booleans.


def create_bot(api, encoding, alice, stored_version):
    answer = send(api, "post", "/api/bots/", {"name": f"bot-{encoding}", "game": "pairs"}, encoding)
    assert answer.status_code == 201, answer.content
    return answer.json()


def change_bot(api, encoding, alice, stored_version):
    bot = Bot.objects.create(owner=alice, name=f"kept-{encoding}", game="pairs")
    bot.accepts_entries = False  # not the default: a form must not put the default back
    bot.save()
    answer = send(api, "patch", f"/api/bots/{bot.pk}/", {"description": "new"}, encoding)
    assert answer.status_code == 200, answer.content
    return api.get(f"/api/bots/{bot.pk}/").json()


def change_gating(api, encoding, alice, stored_version):
    bot = Bot.objects.create(owner=alice, name=f"gated-{encoding}", game="pairs")
    assert api.patch(f"/api/bots/{bot.pk}/gating/", {"gating": True}, format="json").json()[
        "gating"
    ]
    answer = send(api, "patch", f"/api/bots/{bot.pk}/gating/", {"max_games": 500}, encoding)
    assert answer.status_code == 200, answer.content
    return api.get(f"/api/bots/{bot.pk}/gating/").json()


def create_tournament(api, encoding, alice, stored_version):
    if not Bot.objects.filter(owner=alice, name="entrant0").exists():
        entrants(alice, stored_version)
    bots = list(Bot.objects.filter(name__startswith="entrant").values_list("pk", flat=True))
    body = {"name": f"cup-{encoding}", "game": "pairs", "bots": bots}
    answer = send(api, "post", "/api/tournaments/", body, encoding)
    assert answer.status_code == 201, answer.content
    return answer.json()


def change_tournament(api, encoding, alice, stored_version):
    if not Bot.objects.filter(owner=alice, name="entrant0").exists():
        entrants(alice, stored_version)
    bots = list(Bot.objects.filter(name__startswith="entrant").values_list("pk", flat=True))
    # Every boolean away from its default: a form body must not put a default back.
    body = {
        "name": f"kept-{encoding}",
        "game": "pairs",
        "bots": bots,
        "format": "single_elimination",
        "rotate_seats": False,
        "rated": False,
        "third_place": True,
        "grand_final_reset": False,
        "start_at": "2030-01-02T09:30:00Z",
    }
    made = api.post("/api/tournaments/", body, format="json").json()
    answer = send(api, "patch", f"/api/tournaments/{made['id']}/", {"name": "new"}, encoding)
    assert answer.status_code == 200, answer.content
    changed = answer.json()
    assert (changed["rotate_seats"], changed["rated"], changed["third_place"]) == (
        False,
        False,
        True,
    )
    assert changed["grand_final_reset"] is False
    return changed


def create_challenge(api, encoding, alice, stored_version):
    mine = Bot.objects.create(owner=alice, name=f"challenger-{encoding}", game="pairs")
    stored_version(mine)
    rival = User.objects.get_or_create(username="rival")[0]
    theirs = Bot.objects.create(owner=rival, name=f"rival-{encoding}", game="pairs")
    stored_version(theirs)
    body = {"bot": mine.pk, "opponents": [theirs.pk], "games": 2}
    answer = send(api, "post", "/api/challenges/", body, encoding)
    assert answer.status_code == 201, answer.content
    challenge = answer.json()
    # Cancelled, so the next encoding's challenge is within the quota of challenges at once.
    assert api.post(f"/api/challenges/{challenge['id']}/cancel/").status_code == 200
    # The answer does not echo pick_for_me: read it from whom the challenge plays.
    picked = [opponent["bot"] for opponent in challenge["opponents"]] != [theirs.pk]
    return {**challenge, "pick_for_me": picked}


def change_channels(api, encoding, alice, stored_version):
    kind = {"json": "version.validated", "form": "version.refused", "multipart": "gate.decided"}[
        encoding
    ]
    # Not the defaults first: a left-out channel must stay as it is, not take a default.
    assert api.patch(
        f"/api/notifications/channels/{kind}/",
        {"inbox": False, "email": True, "webhooks": False},
        format="json",
    ).json()["email"]
    answer = send(
        api, "patch", f"/api/notifications/channels/{kind}/", {"email": "false"}, encoding
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


def decide_entry(api, encoding, alice, stored_version):
    """``accept`` left out: refused alike in every encoding (a form's missing checkbox is
    not a refusal of the entry), the entry still pending."""
    now = timezone.now()
    competition = competitions.create_competition(
        organiser=alice,
        name=f"season-{encoding}",
        game="pairs",
        players=2,
        options={},
        opens_at=now,
        deadline=now + timedelta(days=3),
        final_at=now + timedelta(days=4),
        final_settings={"format": "round_robin"},
        eligibility="approval",
    )
    author = User.objects.get_or_create(username="author")[0]
    bot = Bot.objects.create(owner=author, name=f"entrant-{encoding}", game="pairs")
    stored_version(bot)
    entry = competitions.enter_competition(competition=competition, bot=bot, user=author)
    path = f"/api/competitions/{competition.pk}/entries/{entry.pk}/decide/"
    answer = send(api, "post", path, {"reason": "no"}, encoding)
    assert answer.status_code == 400, answer.content
    assert "accept" in answer.json()["errors"]
    entry.refresh_from_db()
    assert entry.status == "pending"
    return {"accept": answer.status_code}


CASES = {
    ("post", "/api/bots/"): create_bot,
    ("post", "/api/challenges/"): create_challenge,
    ("patch", "/api/bots/{id}/"): change_bot,
    ("patch", "/api/bots/{id}/gating/"): change_gating,
    ("post", "/api/tournaments/"): create_tournament,
    ("patch", "/api/tournaments/{id}/"): change_tournament,
    ("patch", "/api/notifications/channels/{kind}/"): change_channels,
    ("post", "/api/competitions/{id}/entries/{entry_id}/decide/"): decide_entry,
}


def test_every_body_with_a_boolean_is_tried_here(schema):
    assert set(writable_booleans(schema)) == set(CASES)


@pytest.mark.parametrize("operation", sorted(CASES), ids=" ".join)
def test_a_left_out_boolean_defaults_alike_in_every_encoding(
    operation, schema, alice, client_for, stored_version
):
    api = client_for(alice)
    results = {
        encoding: CASES[operation](api, encoding, alice, stored_version) for encoding in ENCODINGS
    }
    for name in writable_booleans(schema)[operation]:
        seen = {encoding: result[name] for encoding, result in results.items()}
        assert len(set(seen.values())) == 1, (name, seen)


def test_curl_s_form_body_makes_a_bot_that_accepts_entries(alice, client_for):
    # The README's example, as curl -d sends it.
    answer = client_for(alice).post(
        "/api/bots/", "name=mybot&game=pairs", content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 201 and answer.json()["accepts_entries"] is True
    assert Bot.objects.get(name="mybot").accepts_entries is True


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_boolean_sent_as_false_is_false_in_every_encoding(alice, client_for, encoding):
    body = {"name": f"closed-{encoding}", "game": "pairs", "accepts_entries": "false"}
    if encoding == "json":
        body["accepts_entries"] = False
    answer = send(client_for(alice), "post", "/api/bots/", body, encoding)
    assert answer.status_code == 201 and answer.json()["accepts_entries"] is False


# Item 6.

JSON_LOOKING = ['{"current_version": 1}', '  {"description": "a & b = c"}', "[1, 2]"]


@pytest.mark.parametrize("body", JSON_LOOKING)
def test_a_json_document_sent_as_a_form_is_refused_with_the_header_to_send(
    body, alice, client_for, stored_version
):
    bot = Bot.objects.create(owner=alice, name="kept", game="pairs", description="old")
    answer = client_for(alice).patch(
        f"/api/bots/{bot.pk}/", body, content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 415, answer.content
    error = answer.json()
    assert error["code"] == "unsupported_media_type" and error["errors"] == {}
    assert "Content-Type: application/json" in error["detail"]
    bot.refresh_from_db()
    assert bot.description == "old"


@pytest.mark.parametrize(
    "path", ["/api/bots/", "/api/tournaments/", "/api/auth/register/", "/api/auth/token/"]
)
def test_every_form_endpoint_says_the_same(path, alice, client_for):
    body = '{"name": "x", "game": "pairs", "username": "alice", "password": "correct horse 1"}'
    answer = client_for(alice).post(path, body, content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 415, answer.content
    assert "Content-Type: application/json" in answer.json()["detail"]
    assert not Bot.objects.exists() and not Tournament.objects.exists()
