"""Hostile request bodies get a clear 4xx and change nothing."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots.models import Bot, BotVersion
from tournaments.models import Tournament


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"name": "x", "game": "no-such-game"}, "no game"),
        ({"name": "bad name!", "game": "pairs"}, "name"),
        ({"name": "", "game": "pairs"}, "name"),
        ({"game": "pairs"}, "name"),
        ({"name": "ok", "game": ["pairs"]}, "game"),
    ],
)
def test_bad_bot_bodies(alice, client_for, body, fragment):
    response = client_for(alice).post("/api/bots/", body, format="json")
    assert response.status_code == 400
    assert fragment in str(response.json())
    assert Bot.objects.count() == 0


def test_duplicate_bot_name(alice, client_for):
    client = client_for(alice)
    assert (
        client.post("/api/bots/", {"name": "dup", "game": "pairs"}, format="json").status_code
        == 201
    )
    response = client.post("/api/bots/", {"name": "dup", "game": "pairs"}, format="json")
    assert response.status_code == 400 and "already exists" in str(response.json())
    assert Bot.objects.count() == 1


def test_malformed_json_is_a_400(alice, client_for):
    response = client_for(alice).post("/api/bots/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert Bot.objects.count() == 0


@pytest.mark.parametrize(
    "filename, content, fragment",
    [
        ("main.py", b"def broken(:\n", "SyntaxError"),
        ("main.py", b"\xff\xfe\x00bad", "UTF-8"),
        ("bot.exe", b"MZ...", ""),
        ("bot.zip", b"not a zip at all", ""),
    ],
)
def test_bad_uploads_store_nothing(alice, client_for, filename, content, fragment):
    client = client_for(alice)
    bot_id = client.post("/api/bots/", {"name": "b1", "game": "pairs"}, format="json").json()["id"]
    upload = SimpleUploadedFile(filename, content)
    response = client.post(f"/api/bots/{bot_id}/versions/", {"file": upload}, format="multipart")
    assert response.status_code == 400, response.content
    assert fragment in response.json()["detail"]
    assert BotVersion.objects.count() == 0


def test_upload_without_file(alice, client_for):
    client = client_for(alice)
    bot_id = client.post("/api/bots/", {"name": "b1", "game": "pairs"}, format="json").json()["id"]
    response = client.post(f"/api/bots/{bot_id}/versions/", {}, format="multipart")
    assert response.status_code == 400 and "file" in response.json()["errors"]


@pytest.mark.parametrize(
    "changes, fragment",
    [
        ({"game": "nope"}, "no game"),
        ({"options": {"no_such_option": 1}}, "unknown option"),
        ({"options": "not an object"}, "options"),
        ({"players_per_match": 99}, "players"),
        ({"bots": [999999]}, "no bot"),
        ({"move_ms": 1}, "move time"),
        ({"games_per_pairing": 0}, "games per pairing"),
        ({"bots": "x"}, "bots"),
    ],
)
def test_bad_tournament_bodies(alice, client_for, stored_version, changes, fragment):
    bots = []
    for name in ("t1", "t2"):
        bot = Bot.objects.create(owner=alice, name=name, game="pairs")
        stored_version(bot)
        bots.append(bot.pk)
    body = {"name": "cup", "game": "pairs", "bots": bots, **changes}
    response = client_for(alice).post("/api/tournaments/", body, format="json")
    assert response.status_code == 400, response.content
    assert fragment in str(response.json()).lower()
    assert Tournament.objects.count() == 0


def test_replay_seat_out_of_range(client_for, db):
    assert client_for(None).get("/api/matches/12345/replay/").status_code == 404


def test_unknown_game_pages_are_404(client_for, db):
    assert client_for(None).get("/api/games/nope/").status_code == 404
    answer = client_for(None).get("/api/leaderboards/nope/")
    assert answer.status_code == 404
    assert "known games: pairs" in answer.json()["detail"]


def test_oversized_upload_through_the_web_form_is_refused(alice, client):
    from bots import validation

    bot = Bot.objects.create(owner=alice, name="b1", game="pairs")
    client.force_login(alice)
    big = SimpleUploadedFile("main.py", b"#" * (validation.MAX_UPLOAD_BYTES + 1))
    page = client.post(f"/bots/{bot.pk}/upload/", {"file": big}, follow=True)
    assert "Upload refused: the upload is" in page.content.decode()
    assert BotVersion.objects.count() == 0
