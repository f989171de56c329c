"""Scoped API tokens: made with the account's key, shown once, limited to their scopes,
revoked and expired for good, counted per token by the throttles, listed in the admin."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from arena.integrations.models import ApiToken
from bots.models import Bot, BotVersion
from tests.support import builders, throttle
from tournaments.models import Challenge, Tournament

clean_throttle_counts = throttle.clean_throttle_counts
rates = throttle.rates


def with_key(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def alice(make_user):
    return make_user("alice")


def make_token(client, scopes, name="ci", **extra) -> str:
    answer = client.post("/api/tokens/", {"name": name, "scopes": scopes, **extra}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()["key"]


def test_a_token_is_shown_once_and_only_its_hash_is_kept(alice, client_for):
    account = client_for(alice)
    answer = account.post("/api/tokens/", {"name": "ci", "scopes": ["read"]}, format="json")
    assert answer.status_code == 201
    made = answer.json()
    assert made["key"].startswith("arena_") and made["scopes"] == ["read"]
    listed = account.get("/api/tokens/").json()
    assert [t["name"] for t in listed] == ["ci"] and "key" not in listed[0]
    assert made["key"] not in str(ApiToken.objects.values_list())
    me = with_key(made["key"]).get(f"/api/bots/?owner={alice.pk}")
    assert me.status_code == 200
    # Bearer works too.
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {made['key']}")
    assert bearer.get("/api/notifications/").status_code == 200


def test_scopes_refuse_what_they_do_not_cover(alice, client_for, stored_version):
    account = client_for(alice)
    reader = with_key(make_token(account, ["read"], name="reader"))
    uploader = with_key(make_token(account, ["upload"], name="uploader"))

    refused = reader.post("/api/bots/", {"name": "nope", "game": "pairs"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"
    assert "'upload'" in refused.json()["detail"]
    assert not Bot.objects.filter(name="nope").exists()

    made = uploader.post("/api/bots/", {"name": "mine", "game": "pairs"}, format="json")
    assert made.status_code == 201
    # An upload token reads nothing without "read", challenges and organises nothing.
    assert uploader.get("/api/bots/").status_code == 403
    mine = Bot.objects.get(name="mine")
    stored_version(mine)
    rival, _ = builders.bot_with_version(name="rival", owner=builders.user(name="bob"))
    body = {"bot": mine.pk, "opponents": [rival.pk], "games": 2}
    assert uploader.post("/api/challenges/", body, format="json").status_code == 403
    assert not Challenge.objects.exists()
    cup = {"name": "cup", "game": "pairs", "bots": [mine.pk, rival.pk]}
    assert uploader.post("/api/tournaments/", cup, format="json").status_code == 403
    assert not Tournament.objects.exists()
    challenger = with_key(make_token(account, ["challenge"], name="challenger"))
    assert challenger.post("/api/challenges/", body, format="json").status_code == 201


def test_no_scoped_token_manages_tokens(alice, client_for):
    everything = with_key(
        make_token(client_for(alice), ["read", "upload", "challenge", "organise"])
    )
    assert everything.get("/api/tokens/").status_code == 403
    answer = everything.post("/api/tokens/", {"name": "more", "scopes": ["read"]}, format="json")
    assert answer.status_code == 403
    assert ApiToken.objects.count() == 1


def test_revoked_and_expired_tokens_authenticate_nothing(alice, client_for):
    account = client_for(alice)
    key = make_token(account, ["read"])
    token = ApiToken.objects.get()
    assert account.delete(f"/api/tokens/{token.pk}/").status_code == 200
    answer = with_key(key).get("/api/notifications/")
    assert answer.status_code == 401 and "revoked" in answer.json()["detail"]
    # Its name is free again.
    soon = make_token(account, ["read"], name="ci")
    ApiToken.objects.filter(revoked_at__isnull=True).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    answer = with_key(soon).get("/api/notifications/")
    assert answer.status_code == 401 and "expired" in answer.json()["detail"]
    assert with_key("arena_madeup").get("/api/notifications/").status_code == 401


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": "x", "scopes": []}, "scopes"),
        ({"name": "x", "scopes": ["admin"]}, "scopes.0"),
        ({"name": "", "scopes": ["read"]}, "name"),
        ({"name": "x", "scopes": ["read"], "expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
    ],
)
def test_a_bad_token_request_is_a_400_on_its_field(alice, client_for, body, field):
    answer = client_for(alice).post("/api/tokens/", body, format="json")
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["errors"]
    assert not ApiToken.objects.exists()


def test_a_duplicate_name_is_refused(alice, client_for):
    account = client_for(alice)
    make_token(account, ["read"])
    answer = account.post("/api/tokens/", {"name": "ci", "scopes": ["read"]}, format="json")
    assert answer.status_code == 400 and "name" in answer.json()["errors"]


def test_anonymous_and_other_users_see_and_revoke_nothing(alice, make_user, client_for):
    make_token(client_for(alice), ["read"])
    token = ApiToken.objects.get()
    assert APIClient().get("/api/tokens/").status_code == 401
    assert APIClient().delete(f"/api/tokens/{token.pk}/").status_code == 401
    bob = client_for(make_user("bob"))
    assert bob.get("/api/tokens/").json() == []
    assert bob.delete(f"/api/tokens/{token.pk}/").status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def upload(client, bot: Bot, n: int):
    from django.core.files.uploadedfile import SimpleUploadedFile

    source = SimpleUploadedFile("main.py", f"print({n})\n".encode())
    return client.post(f"/api/bots/{bot.pk}/versions/", {"file": source}, format="multipart")


def test_throttles_count_per_token(alice, client_for, rates):
    rates(uploads="1/hour", token="3/hour")
    account = client_for(alice)
    bot = Bot.objects.create(owner=alice, name="up", game="pairs")
    first = with_key(make_token(account, ["upload", "read"], name="one"))
    second = with_key(make_token(account, ["upload", "read"], name="two"))
    assert upload(first, bot, 1).status_code == 201
    again = upload(first, bot, 2)
    assert again.status_code == 429 and again.has_header("Retry-After")
    assert upload(second, bot, 3).status_code == 201
    assert bot.versions.count() == 2
    # Every request made with a token counts in its "token" rate (3), refused ones too.
    assert first.get("/api/games/").status_code == 200
    assert first.get("/api/games/").status_code == 429
    assert second.get("/api/games/").status_code == 200
    assert second.get("/api/games/").status_code == 200
    assert second.get("/api/games/").status_code == 429
    assert account.get("/api/games/").status_code == 200  # the account's key is not counted


def test_the_admin_lists_every_account_s_tokens(alice, make_user, client_for, client):
    make_token(client_for(alice), ["read"], name="alice-ci")
    staff = make_user("staff")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    page = client.get("/admin/integrations/apitoken/")
    assert page.status_code == 200 and b"alice-ci" in page.content


def test_an_upload_token_uploads_a_version(alice, client_for):
    bot = Bot.objects.create(owner=alice, name="up", game="pairs")
    uploader = with_key(make_token(client_for(alice), ["upload"]))
    assert upload(uploader, bot, 1).status_code == 201
    assert BotVersion.objects.filter(bot=bot).count() == 1
