"""The body limit decided from the headers alone, per address (see test_body_limits_gunicorn
for the same against the production server with real bodies)."""

from __future__ import annotations

import pytest
from django.test import Client

from bots import validation

UPLOAD_CAP = validation.MAX_UPLOAD_BYTES + (16 << 10)
GENERAL_CAP = 2 * 1024 * 1024  # DATA_UPLOAD_MAX_MEMORY_SIZE


def declared(path: str, length: str, **headers: str):
    """A POST that declares ``length`` bytes and sends a few (nothing may read them)."""
    return Client().generic(
        "POST", path, b"x" * 10, content_type="multipart/form-data; boundary=b",
        CONTENT_LENGTH=length, **headers,
    )  # fmt: skip


@pytest.mark.parametrize(
    "path, cap",
    [
        ("/api/bots/1/versions/", UPLOAD_CAP),
        ("/bots/1/upload/", UPLOAD_CAP),
        ("/bots/new/", UPLOAD_CAP),
        ("/api/tournaments/", GENERAL_CAP),
        ("/api/auth/token/", GENERAL_CAP),
        ("/login/", GENERAL_CAP),
        ("/no/such/page/", GENERAL_CAP),
    ],
)
def test_each_address_has_its_cap(db, path, cap):
    assert declared(path, str(cap + 1)).status_code == 413
    at_cap = Client().post(path, b"x" * cap, content_type="application/octet-stream")
    assert at_cap.status_code != 413


def test_api_refusals_take_the_json_error_shape(db):
    response = declared("/api/tournaments/", str(GENERAL_CAP + 1))
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "detail": f"The request body is {GENERAL_CAP + 1} bytes; this address accepts at most "
        f"{GENERAL_CAP}.",
        "code": "request_too_large",
        "errors": {},
    }


def test_dashboard_refusals_are_a_readable_page(db):
    response = declared("/bots/new/", str(50 << 20))
    assert response["Content-Type"].startswith("text/html")
    assert b"uploads are limited to 1048576 bytes" in response.content


def test_a_dashboard_refusal_is_drawn_in_the_sites_layout(db):
    page = declared("/login/", str(GENERAL_CAP + 1)).content.decode()
    assert '<header class="site">' in page and "/static/arena/arena.css" in page
    assert "<title>413: the request was refused · Arena</title>" in page
    assert f"this address accepts at most {GENERAL_CAP}." in page


@pytest.mark.parametrize("path, json", [("/api/bots/1/versions/", True), ("/signup/", False)])
def test_a_body_without_a_length_is_a_411(db, path, json):
    response = declared(path, "", HTTP_TRANSFER_ENCODING="chunked")
    assert response.status_code == 411
    if json:
        assert response.json()["code"] == "length_required"
    assert b"Content-Length header" in response.content


@pytest.mark.parametrize("length", ["abc", "-1", "1e9", "\u0661\u0662"])
def test_a_length_that_is_not_a_number_is_a_400(db, length):
    response = declared("/api/tournaments/", length)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_content_length"


def test_requests_without_a_body_pass(db):
    assert Client().get("/api/games/").status_code == 200
    assert Client().post("/api/tournaments/1/cancel/").status_code in (401, 403, 404)
