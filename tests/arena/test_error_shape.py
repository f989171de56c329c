"""Every API refusal answers the one JSON shape: detail, code, errors."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from rest_framework import exceptions

from arena import errors
from bots.models import Bot


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def alice_bot(alice):
    return Bot.objects.create(owner=alice, name="alices-bot", game="pairs")


def assert_shape(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"detail", "code", "errors"}, body
    assert isinstance(body["detail"], str) and body["detail"]
    assert body["code"] == code, body
    assert isinstance(body["errors"], dict)
    for field, messages in body["errors"].items():
        assert isinstance(field, str) and messages and all(isinstance(m, str) for m in messages)
    return body


def test_validation_errors_name_each_field(alice, client_for):
    body = assert_shape(
        client_for(alice).post("/api/bots/", {"game": "pairs"}, format="json"), 400, "invalid"
    )
    assert list(body["errors"]) == ["name"]
    assert body["detail"].startswith("name: ")


def test_nested_field_errors_are_flattened(alice, client_for):
    body = {"name": "cup", "game": "pairs", "bots": ["x"]}
    answer = assert_shape(
        client_for(alice).post("/api/tournaments/", body, format="json"), 400, "invalid"
    )
    assert "bots.0" in answer["errors"]


def test_domain_errors(alice, client_for, alice_bot):
    client = client_for(alice)
    body = assert_shape(
        client.post("/api/bots/", {"name": "x", "game": "nope"}, format="json"), 400, "unknown_game"
    )
    assert "known games" in body["errors"]["game"][0]
    upload = SimpleUploadedFile("main.py", b"def broken(:\n")
    answer = client.post(
        f"/api/bots/{alice_bot.pk}/versions/", {"file": upload}, format="multipart"
    )
    assert "SyntaxError" in assert_shape(answer, 400, "upload_rejected")["detail"]


def test_parse_error_and_unsupported_media_type(alice, client_for):
    client = client_for(alice)
    bad_json = client.post("/api/bots/", "{not json", content_type="application/json")
    assert_shape(bad_json, 400, "parse_error")
    plain = client.post("/api/bots/", "name=x", content_type="text/plain")
    assert_shape(plain, 415, "unsupported_media_type")


def test_authentication_and_permission(alice_bot, make_user, client_for):
    anon = client_for(None).patch(f"/api/bots/{alice_bot.pk}/", {}, format="json")
    assert_shape(anon, 401, "not_authenticated")
    assert anon.has_header("WWW-Authenticate")
    bad_token = client_for(None)
    bad_token.credentials(HTTP_AUTHORIZATION="Token nope")
    assert_shape(bad_token.get("/api/bots/"), 401, "authentication_failed")
    mallory = client_for(make_user("mallory"))
    assert_shape(mallory.delete(f"/api/bots/{alice_bot.pk}/"), 403, "permission_denied")


def test_not_found_and_method_not_allowed(alice, client_for):
    anon = client_for(None)
    assert_shape(anon.get("/api/bots/999999/"), 404, "not_found")
    assert_shape(anon.get("/api/games/nope/"), 404, "not_found")
    assert_shape(anon.get("/api/bots/?cursor=999"), 400, "invalid")
    signed_in = client_for(alice)
    assert_shape(signed_in.put("/api/games/", {}, format="json"), 405, "method_not_allowed")


@pytest.mark.parametrize("path", ["/api/nope/", "/api/bots/1/nope/", "/api/bots/x/"])
def test_unknown_api_urls_answer_json(client_for, db, path):
    assert_shape(client_for(None).get(path), 404, "not_found")


def test_dashboard_pages_keep_html(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_throttled_keeps_retry_after():
    request = RequestFactory().get("/api/auth/register/")
    response = errors.api_exception_handler(exceptions.Throttled(wait=30), {"request": request})
    assert response.status_code == 429
    assert response["Retry-After"] == "30"
    assert response.data["code"] == "throttled" and "30 seconds" in response.data["detail"]


@pytest.mark.parametrize(
    "handler, status, code",
    [
        (lambda r: errors.bad_request(r, Exception()), 400, "bad_request"),
        (lambda r: errors.permission_denied(r, Exception()), 403, "permission_denied"),
        (errors.server_error, 500, "server_error"),
    ],
)
def test_django_handlers_answer_json_under_api_only(handler, status, code):
    api = handler(RequestFactory().get("/api/bots/"))
    assert api.status_code == status and api["Content-Type"] == "application/json"
    assert __import__("json").loads(api.content)["code"] == code
    page = handler(RequestFactory().get("/bots/"))
    assert page.status_code == status and page["Content-Type"].startswith("text/html")
