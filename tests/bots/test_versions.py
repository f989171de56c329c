"""Versions as their owner handles them: an identical re-upload is refused naming the version
it repeats, the owner chooses which active version plays (API and bot page), and refusals
name the file as the owner named it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots import selectors, services
from bots.models import Bot, BotVersion
from tests.support.archives import make_zip
from tests.support.user_journey import post_version
from tournaments import selectors as tournament_selectors


@pytest.fixture(autouse=True)
def no_throttle_history():
    cache.clear()


def token_client(username: str) -> tuple[APIClient, object]:
    user = get_user_model().objects.create_user(username=username, password="correct horse 1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client, user


@pytest.fixture
def author(db):
    client, user = token_client("author")
    bot = client.post("/api/bots/", {"name": "b1", "game": "pairs"}, format="json").json()
    return client, user, bot["id"]


def activate(version_id: int) -> BotVersion:
    """The verdict a worker would record, through the service that records it."""
    BotVersion.objects.filter(pk=version_id).update(status=BotVersion.Status.VALIDATING)
    version = BotVersion.objects.get(pk=version_id)
    return services._record_verdict(version=version, ok=True, reason="")


def test_an_identical_reupload_is_refused_naming_the_version_it_repeats(author):
    client, _, bot_id = author
    first = post_version(client, bot_id, "bot.py", b"print(1)\n")
    assert first.status_code == 201
    again = post_version(client, bot_id, "renamed.py", b"print(1)\n")  # same bytes, another name
    assert again.status_code == 409, again.content
    body = again.json()
    assert body["code"] == "duplicate_upload" and body["errors"] == {}
    assert "identical to b1@v1 (bot.py, pending, same SHA-256)" in body["detail"]
    assert BotVersion.objects.count() == 1
    # One byte more is a new version; the same bytes under another bot are that bot's own.
    assert post_version(client, bot_id, "bot.py", b"print(1)\n\n").status_code == 201
    other = client.post("/api/bots/", {"name": "b2", "game": "pairs"}, format="json").json()
    assert post_version(client, other["id"], "bot.py", b"print(1)\n").status_code == 201
    # A zip repeats by its bytes too, whatever its name.
    data = make_zip({"main.py": b"print(3)\n"})
    assert post_version(client, bot_id, "a.zip", data).status_code == 201
    assert (
        "identical to b1@v3 (a.zip" in post_version(client, bot_id, "b.zip", data).json()["detail"]
    )


def test_a_new_active_version_plays_and_the_owner_can_roll_back(author):
    client, _, bot_id = author
    ids = [
        post_version(client, bot_id, "bot.py", f"print({n})\n".encode()).json()["id"]
        for n in (1, 2, 3)
    ]
    bot = Bot.objects.get(pk=bot_id)
    assert selectors.current_version(bot=bot) is None
    activate(ids[0])
    activate(ids[1])
    assert selectors.current_version(bot=bot).number == 2
    assert client.get(f"/api/bots/{bot_id}/").json()["current_version"] == 2

    response = client.patch(f"/api/bots/{bot_id}/", {"current_version": 1}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["current_version"] == 1
    assert selectors.current_version(bot=Bot.objects.get(pk=bot_id)).number == 1
    rows = tournament_selectors.leaderboard(game="pairs")
    assert [(r["bot"], r["version"]) for r in rows] == [("b1", 1)]

    # Not active, or not there: a 400 naming the field, and nothing changes.
    for number, words in ((3, "v3 is pending"), (9, "b1 has no version 9")):
        refused = client.patch(
            f"/api/bots/{bot_id}/", {"current_version": number, "description": "x"}, format="json"
        )
        assert refused.status_code == 400, refused.content
        assert refused.json()["code"] == "invalid"
        assert words in refused.json()["errors"]["current_version"][0]
        bot = Bot.objects.get(pk=bot_id)
        assert selectors.current_version(bot=bot).number == 1 and bot.description == ""

    activate(ids[2])  # a version that becomes active later plays in turn
    assert selectors.current_version(bot=Bot.objects.get(pk=bot_id)).number == 3


def test_only_the_owner_chooses_the_current_version(author):
    client, _, bot_id = author
    first = post_version(client, bot_id, "bot.py", b"print(1)\n").json()["id"]
    second = post_version(client, bot_id, "bot.py", b"print(2)\n").json()["id"]
    activate(first)
    activate(second)
    stranger, _ = token_client("stranger")
    response = stranger.patch(f"/api/bots/{bot_id}/", {"current_version": 1}, format="json")
    assert response.status_code == 403
    assert selectors.current_version(bot=Bot.objects.get(pk=bot_id)).number == 2


def test_the_bot_page_switches_the_current_version(author, client):
    api, user, bot_id = author
    first = post_version(api, bot_id, "bot.py", b"print(1)\n").json()["id"]
    second = post_version(api, bot_id, "bot.py", b"print(2)\n").json()["id"]
    activate(first)
    activate(second)
    client.force_login(user)
    page = client.get(f"/bots/{bot_id}/").content.decode()
    assert page.count("Play this one") == 1 and "<strong>current</strong>" in page
    assert client.get(f"/bots/{bot_id}/current/").status_code == 405
    response = client.post(f"/bots/{bot_id}/current/", {"number": 1}, follow=True)
    assert "v1 plays from now on." in response.content.decode()
    assert selectors.current_version(bot=Bot.objects.get(pk=bot_id)).number == 1
    refused = client.post(f"/bots/{bot_id}/current/", {"number": 7}, follow=True)
    assert "b1 has no version 7" in refused.content.decode()

    stranger = get_user_model().objects.create_user(username="other", password="correct horse 1")
    client.force_login(stranger)
    assert "Play this one" not in client.get(f"/bots/{bot_id}/").content.decode()
    assert client.post(f"/bots/{bot_id}/current/", {"number": 2}).status_code == 404
    assert selectors.current_version(bot=Bot.objects.get(pk=bot_id)).number == 1


@pytest.mark.parametrize(
    "filename, data, expected",
    [
        ("syntax.py", b"def f(:\n", "syntax.py: SyntaxError line 1"),
        ("bot.zip", make_zip({"main.py": b"", "syntax.py": b"def f(:\n"}),
         "bot.zip: syntax.py: SyntaxError line 1"),
        ("mine.zip", make_zip({"mybot/main.py": b"", "mybot/lib/syntax.py": b"x = (\n"}),
         "mine.zip: mybot/lib/syntax.py: SyntaxError line 1"),
        ("mine.zip", make_zip({"mybot/main.py": b"def f(:\n"}), "mine.zip: mybot/main.py: Syntax"),
    ],
)  # fmt: skip
def test_refusals_name_the_file_as_the_owner_named_it(author, filename, data, expected):
    client, _, bot_id = author
    response = post_version(client, bot_id, filename, data)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(expected), response.json()
    assert "main.py: SyntaxError" not in response.json()["detail"] or "main.py" in expected
