"""Owner-only writes: nobody changes, deletes, uploads to, or reads the source of another's bot."""

import pytest

from bots.models import Bot


@pytest.fixture
def alice_bot(make_user, stored_version):
    alice = make_user("alice")
    bot = Bot.objects.create(owner=alice, name="alices-bot", game="pairs", description="mine")
    stored_version(bot)
    return bot


def test_other_user_cannot_change_bot(alice_bot, make_user, client_for):
    mallory = client_for(make_user("mallory"))
    response = mallory.patch(f"/api/bots/{alice_bot.pk}/", {"description": "pwned"}, format="json")
    assert response.status_code == 403
    alice_bot.refresh_from_db()
    assert alice_bot.description == "mine"


def test_other_user_cannot_delete_bot(alice_bot, make_user, client_for):
    mallory = client_for(make_user("mallory"))
    assert mallory.delete(f"/api/bots/{alice_bot.pk}/").status_code == 403
    assert Bot.objects.filter(pk=alice_bot.pk).exists()


def test_anonymous_cannot_change_or_delete(alice_bot, client_for):
    anon = client_for(None)
    assert (
        anon.patch(f"/api/bots/{alice_bot.pk}/", {"description": "x"}, format="json").status_code
        == 401
    )
    assert anon.delete(f"/api/bots/{alice_bot.pk}/").status_code == 401
    assert Bot.objects.get(pk=alice_bot.pk).description == "mine"


def test_other_user_cannot_read_source(alice_bot, make_user, client_for):
    version = alice_bot.versions.get()
    mallory = client_for(make_user("mallory"))
    response = mallory.get(f"/api/versions/{version.pk}/source/")
    assert response.status_code == 403
    assert b"secret strategy" not in response.content
    assert client_for(None).get(f"/api/versions/{version.pk}/source/").status_code in (401, 403)
    # Version metadata is public, the code is not.
    detail = mallory.get(f"/api/versions/{version.pk}/").json()
    assert "upload" not in detail and "secret" not in str(detail)


def test_owner_reads_source_and_edits(alice_bot, client_for):
    owner = client_for(alice_bot.owner)
    version = alice_bot.versions.get()
    response = owner.get(f"/api/versions/{version.pk}/source/")
    assert response.status_code == 200 and b"secret strategy" in response.content
    response = owner.patch(f"/api/bots/{alice_bot.pk}/", {"description": "new"}, format="json")
    assert response.status_code == 200 and response.json()["description"] == "new"


def test_other_user_cannot_upload_a_version(alice_bot, make_user, client_for, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    mallory = client_for(make_user("mallory"))
    upload = SimpleUploadedFile("main.py", b"print('x')\n")
    response = mallory.post(
        f"/api/bots/{alice_bot.pk}/versions/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 403
    assert alice_bot.versions.count() == 1


def test_owner_can_delete_unplayed_bot(alice_bot, client_for):
    assert client_for(alice_bot.owner).delete(f"/api/bots/{alice_bot.pk}/").status_code == 204
    assert not Bot.objects.filter(pk=alice_bot.pk).exists()


def test_seed_of_a_scheduled_tournament_is_the_organisers_secret(
    alice_bot, make_user, client_for, stored_version
):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments import services

    bob = make_user("bob")
    bobs = Bot.objects.create(owner=bob, name="bobs-bot", game="pairs")
    stored_version(bobs)
    alice = alice_bot.owner
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    body = {"name": "cup", "game": "pairs", "bots": [alice_bot.pk, bobs.pk], "start_at": later}
    created = client_for(alice).post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.content
    pk, seed = created.json()["id"], created.json()["seed"]
    assert isinstance(seed, int)
    for viewer in [bob, None]:
        assert client_for(viewer).get(f"/api/tournaments/{pk}/").json()["seed"] is None
        listed = client_for(viewer).get("/api/tournaments/").json()["results"]
        assert [t["seed"] for t in listed if t["id"] == pk] == [None]
    assert client_for(alice).get(f"/api/tournaments/{pk}/").json()["seed"] == seed
    # Once it starts every version is pinned, but the seed deals every game still to play:
    # hidden until none is left (here: cancelled, its queued games with it).
    assert services.start_tournament(tournament_id=pk)
    assert client_for(bob).get(f"/api/tournaments/{pk}/").json()["seed"] is None
    assert client_for(alice).post(f"/api/tournaments/{pk}/cancel/").status_code == 200
    assert client_for(bob).get(f"/api/tournaments/{pk}/").json()["seed"] == seed
