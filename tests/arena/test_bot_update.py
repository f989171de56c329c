"""PATCH /api/bots/<id>/ is a partial update; uploads take multipart bodies only."""

import pytest

from bots.models import Bot


@pytest.fixture
def alice_bot(make_user):
    return Bot.objects.create(
        owner=make_user("alice"), name="alices-bot", game="pairs", description="mine"
    )


def test_empty_patch_changes_nothing(alice_bot, client_for):
    response = client_for(alice_bot.owner).patch(f"/api/bots/{alice_bot.pk}/", {}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["description"] == "mine"


def test_patch_changes_only_what_is_given(alice_bot, client_for):
    client = client_for(alice_bot.owner)
    response = client.patch(f"/api/bots/{alice_bot.pk}/", {"description": ""}, format="json")
    assert response.status_code == 200 and response.json()["description"] == ""
    alice_bot.refresh_from_db()
    assert alice_bot.description == "" and alice_bot.name == "alices-bot"


@pytest.mark.parametrize("body", [{"name": "renamed"}, {"game": "paks"}, {"nonsense": 1}])
def test_fields_that_cannot_change_are_refused_by_name(alice_bot, client_for, body):
    client = client_for(alice_bot.owner)
    response = client.patch(
        f"/api/bots/{alice_bot.pk}/", {**body, "description": "new"}, format="json"
    )
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == list(body)
    alice_bot.refresh_from_db()
    assert (alice_bot.name, alice_bot.game, alice_bot.description) == (
        "alices-bot",
        "pairs",
        "mine",
    )


def test_upload_refuses_a_form_encoded_body(alice_bot, client_for):
    response = client_for(alice_bot.owner).post(
        f"/api/bots/{alice_bot.pk}/versions/",
        "file=print(1)",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415, response.content
    assert response.json()["code"] == "unsupported_media_type"
    assert alice_bot.versions.count() == 0


def test_schema_says_what_the_server_does(client_for, db):
    schema = client_for(None).get("/api/schema/", {"format": "json"}).json()
    upload = schema["paths"]["/api/bots/{id}/versions/"]["post"]
    assert list(upload["requestBody"]["content"]) == ["multipart/form-data"]
    assert {"400", "401", "403", "404", "415", "429"} <= set(upload["responses"])
    error = upload["responses"]["400"]["content"]["application/json"]["schema"]["$ref"]
    assert error == "#/components/schemas/Error"
    patch = schema["paths"]["/api/bots/{id}/"]["patch"]
    body = patch["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
    assert not schema["components"]["schemas"][body].get("required")
    bot = schema["components"]["schemas"]["BotRequest"]["properties"]
    assert bot["name"]["minLength"] == 1
    source = schema["paths"]["/api/versions/{id}/source/"]["get"]["responses"]
    assert source["403"]["content"]["application/json"]["schema"]["$ref"] == error
    replay = schema["paths"]["/api/matches/{id}/replay/"]["get"]["parameters"]
    assert next(p for p in replay if p["name"] == "seat")["schema"]["minimum"] == 0
