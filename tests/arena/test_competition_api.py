"""The competitions' API: every endpoint read anonymously and as another user, every write
refused to them (401 anonymous, 403 another user) and done by who may, bad input a 4xx
in the one error shape that changes nothing, and the token scopes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from arena.integrations.models import ApiToken
from arena.integrations.services import create_token
from tests.support.builders import bot_with_version
from tests.support.competitions import new_competition
from tournaments.models import Competition, CompetitionEntry, Team
from tournaments.services import competitions, teams

pytestmark = pytest.mark.django_db


def _when(**delta) -> str:
    return (timezone.now() + timedelta(**delta)).isoformat()


@pytest.fixture
def people(make_user):
    return {name: make_user(name) for name in ("org", "author", "mate", "other")}


@pytest.fixture
def competition(people):
    now = timezone.now()
    return competitions.create_competition(
        organiser=people["org"],
        name="Club season",
        game="pairs",
        players=2,
        options={},
        opens_at=now - timedelta(hours=1),
        deadline=now + timedelta(days=3),
        final_at=now + timedelta(days=4),
        final_settings={"format": "round_robin"},
        eligibility="approval",
        seed=77,
    )


@pytest.fixture
def entry(competition, people):
    bot, _ = bot_with_version(name="authors-bot", owner=people["author"], announce=False)
    return competitions.enter_competition(competition=competition, bot=bot, user=people["author"])


def _error_shape(response) -> dict:
    body = response.json()
    assert set(body) == {"detail", "code", "errors"}, body
    return body


def test_create_list_and_detail(people, client_for):
    org = client_for(people["org"])
    body = {
        "name": "Hackathon",
        "game": "pairs",
        "deadline": _when(days=1),
        "final_at": _when(days=2),
        "final_settings": {"format": "single_elimination"},
        "eligibility": "invite",
        "invite_code": "letmein",
        "release": "hidden",
    }
    response = org.post("/api/competitions/", body, format="json")
    assert response.status_code == 201, response.json()
    created = response.json()
    assert created["phase"] == "open" and created["may_organise"] is True
    assert created["invite_code"] == "letmein" and created["seed"] is not None
    assert len(created["seed_commitment"]) == 64
    for reader in (client_for(None), client_for(people["other"])):
        listed = reader.get("/api/competitions/")
        assert listed.status_code == 200
        assert [c["name"] for c in listed.json()["results"]] == ["Hackathon"]
        detail = reader.get(f"/api/competitions/{created['id']}/").json()
        # The invite code and the ladder's seed are the organiser's until the close.
        assert detail["invite_code"] is None and detail["seed"] is None
        assert detail["may_organise"] is False and detail["next"]["event"] == "deadline"


def test_create_refused_for_anonymous_and_bad_input(people, client_for):
    body = {"name": "X", "game": "pairs", "deadline": _when(days=1), "final_at": _when(days=2)}
    assert client_for(None).post("/api/competitions/", body, format="json").status_code == 401
    org = client_for(people["org"])
    bad = [
        {**body, "deadline": "soon"},
        {**body, "final_at": _when(hours=1)},
        {**body, "game": "chess"},
        {**body, "release": "sometimes"},
        {**body, "options": [1, 2]},
        {**body, "final_settings": {"format": "none"}},
        {**body, "final_settings": "round_robin"},
        {**body, "division_size": 1},
        {k: v for k, v in body.items() if k != "deadline"},
    ]
    for sent in bad:
        response = org.post("/api/competitions/", sent, format="json")
        assert response.status_code == 400, (sent, response.json())
        assert _error_shape(response)["errors"]
    assert not Competition.objects.exists()


def test_edit_by_the_organiser_only(competition, people, client_for):
    url = f"/api/competitions/{competition.pk}/"
    assert client_for(None).patch(url, {"name": "Mine"}, format="json").status_code == 401
    assert (
        client_for(people["other"]).patch(url, {"name": "Mine"}, format="json").status_code == 403
    )
    org = client_for(people["org"])
    refused = org.patch(url, {"final_at": _when(hours=1)}, format="json")
    assert refused.status_code == 400 and "final_at" in _error_shape(refused)["errors"]
    answer = org.patch(url, {"name": "Club season 2"}, format="json")
    assert answer.status_code == 200 and answer.json()["name"] == "Club season 2"
    assert client_for(None).get("/api/competitions/999999/").status_code == 404


def test_entering_and_deciding(competition, people, client_for):
    url = f"/api/competitions/{competition.pk}/entries/"
    bot, _ = bot_with_version(name="authors-bot", owner=people["author"], announce=False)
    assert client_for(None).post(url, {"bot": bot.pk}, format="json").status_code == 401
    other = client_for(people["other"])
    assert other.post(url, {"bot": bot.pk}, format="json").status_code == 403
    assert other.post(url, {"bot": 999999}, format="json").status_code == 400
    assert other.post(url, {"bot": "x"}, format="json").status_code == 400
    author = client_for(people["author"])
    response = author.post(url, {"bot": bot.pk}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "pending"
    again = author.post(url, {"bot": bot.pk}, format="json")
    assert again.status_code == 400 and _error_shape(again)
    entry_id = response.json()["id"]
    # A pending entry: its entrant and the organiser see it, others do not.
    assert client_for(None).get(url).json() == []
    assert other.get(url).json() == []
    assert [e["id"] for e in author.get(url).json()] == [entry_id]
    decide = f"{url}{entry_id}/decide/"
    assert client_for(None).post(decide, {"accept": True}, format="json").status_code == 401
    assert author.post(decide, {"accept": True}, format="json").status_code == 403
    org = client_for(people["org"])
    assert org.post(decide, {"accept": "perhaps"}, format="json").status_code == 400
    assert org.post(f"{url}999999/decide/", {"accept": True}, format="json").status_code == 404
    answer = org.post(decide, {"accept": True}, format="json")
    assert answer.status_code == 200 and answer.json()["status"] == "accepted"
    assert [e["bot_name"] for e in client_for(None).get(url).json()] == ["authors-bot"]


def test_invite_code_refused_with_a_clear_403(people, client_for):
    now = timezone.now()
    invite = competitions.create_competition(
        organiser=people["org"],
        name="Invited",
        game="pairs",
        players=2,
        options={},
        opens_at=None,
        deadline=now + timedelta(days=1),
        final_at=now + timedelta(days=2),
        final_settings={},
        eligibility="invite",
        invite_code="open sesame",
    )
    bot, _ = bot_with_version(name="guest", owner=people["author"], announce=False)
    author = client_for(people["author"])
    url = f"/api/competitions/{invite.pk}/entries/"
    refused = author.post(url, {"bot": bot.pk, "invite_code": "nope"}, format="json")
    assert refused.status_code == 403 and "invite code" in _error_shape(refused)["detail"]
    assert not invite.entries.exists()
    ok = author.post(url, {"bot": bot.pk, "invite_code": "open sesame"}, format="json")
    assert ok.status_code == 201 and ok.json()["status"] == "accepted"


def test_disqualify(competition, entry, people, client_for):
    competitions.decide_entry(entry=entry, accept=True)
    url = f"/api/competitions/{competition.pk}/entries/{entry.pk}/disqualify/"
    assert client_for(None).post(url, {"reason": "x"}, format="json").status_code == 401
    assert client_for(people["author"]).post(url, {"reason": "x"}, format="json").status_code == 403
    org = client_for(people["org"])
    assert org.post(url, {"reason": ""}, format="json").status_code == 400
    answer = org.post(url, {"reason": "shared code"}, format="json")
    assert answer.status_code == 200
    assert (answer.json()["status"], answer.json()["reason"]) == ("disqualified", "shared code")
    # The reason is public.
    rows = client_for(None).get(f"/api/competitions/{competition.pk}/entries/").json()
    assert rows[0]["reason"] == "shared code"


@pytest.mark.parametrize(
    "action, body, field, value",
    [
        ("pause", None, "paused", True),
        ("release", {"release": "participants"}, "release", "participants"),
        ("reveal", None, "release", "public"),
    ],
)
def test_organiser_actions(competition, people, client_for, action, body, field, value):
    url = f"/api/competitions/{competition.pk}/{action}/"
    assert client_for(None).post(url, body, format="json").status_code == 401
    assert client_for(people["other"]).post(url, body, format="json").status_code == 403
    assert Competition.objects.get(pk=competition.pk).paused is False
    answer = client_for(people["org"]).post(url, body, format="json")
    assert answer.status_code == 200 and answer.json()[field] == value


def test_resume_and_bad_release(competition, people, client_for):
    org = client_for(people["org"])
    org.post(f"/api/competitions/{competition.pk}/pause/")
    answer = org.post(f"/api/competitions/{competition.pk}/resume/")
    assert answer.status_code == 200 and answer.json()["paused"] is False
    refused = org.post(
        f"/api/competitions/{competition.pk}/release/", {"release": "soon"}, format="json"
    )
    assert refused.status_code == 400 and "release" in _error_shape(refused)["errors"]


def test_announcements(competition, people, client_for):
    url = f"/api/competitions/{competition.pk}/announcements/"
    assert client_for(None).post(url, {"text": "hi"}, format="json").status_code == 401
    assert client_for(people["other"]).post(url, {"text": "hi"}, format="json").status_code == 403
    org = client_for(people["org"])
    assert org.post(url, {"text": ""}, format="json").status_code == 400
    assert org.post(url, {"text": "Deadline moved"}, format="json").status_code == 201
    for reader in (client_for(None), client_for(people["other"])):
        assert [a["text"] for a in reader.get(url).json()] == ["Deadline moved"]
        detail = reader.get(f"/api/competitions/{competition.pk}/").json()
        assert [a["text"] for a in detail["announcements"]] == ["Deadline moved"]


def test_results_follow_the_release(competition, entry, people, client_for):
    competitions.decide_entry(entry=entry, accept=True)
    url = f"/api/competitions/{competition.pk}/results/"
    shown = client_for(None).get(url).json()
    assert shown["hidden"] is False
    assert [row["bot"] for row in shown["standings"]] == ["authors-bot"]
    competitions.update_competition(
        competition=competition, ladder_hidden_from=timezone.now() - timedelta(minutes=1)
    )
    competitions.set_release(competition=competition, release="participants")
    for reader in (client_for(None), client_for(people["other"])):
        held = reader.get(url).json()
        assert held["hidden"] is True and held["standings"] == [] and held["divisions"] == []
    for reader in (client_for(people["author"]), client_for(people["org"])):
        assert reader.get(url).json()["hidden"] is False


def test_teams_through_the_api(competition, people, client_for):
    url = f"/api/competitions/{competition.pk}/teams/"
    assert client_for(None).post(url, {"name": "Owls"}, format="json").status_code == 401
    author = client_for(people["author"])
    assert author.post(url, {"name": ""}, format="json").status_code == 400
    created = author.post(url, {"name": "Owls"}, format="json")
    assert created.status_code == 201
    team_id = created.json()["id"]
    members = f"{url}{team_id}/members/"
    # Only the creator adds members; an unknown user is a 400.
    other = client_for(people["other"])
    assert other.post(members, {"username": "other"}, format="json").status_code == 403
    assert author.post(members, {"username": "nobody"}, format="json").status_code == 400
    answer = author.post(members, {"username": "mate"}, format="json")
    assert answer.status_code == 201 and answer.json()["members"] == ["author", "mate"]
    # One team per person per competition.
    mate = client_for(people["mate"])
    refused = mate.post(url, {"name": "Larks"}, format="json")
    assert refused.status_code == 400 and _error_shape(refused)
    # The creator gives a bot they own; nobody else may.
    bot, _ = bot_with_version(name="owl-bot", owner=people["author"], announce=False)
    bots = f"{url}{team_id}/bots/"
    assert mate.post(bots, {"bot": bot.pk}, format="json").status_code == 403
    assert author.post(bots, {"bot": 999999}, format="json").status_code == 400
    given = author.post(bots, {"bot": bot.pk}, format="json")
    assert given.status_code == 201 and given.json()["bots"] == [{"id": bot.pk, "name": "owl-bot"}]
    listed = client_for(None).get(url).json()
    assert listed[0]["name"] == "Owls" and listed[0]["members"] == ["author", "mate"]
    # A member leaves; the creator stays; others cannot remove anyone.
    assert other.delete(f"{members}mate/").status_code == 403
    assert author.delete(f"{members}author/").status_code == 400
    assert mate.delete(f"{members}mate/").status_code == 200
    assert client_for(None).delete(f"{members}author/").status_code == 401
    assert client_for(None).get(f"{url}999/members/").status_code in (404, 405)


def test_a_team_member_enters_and_uploads_the_teams_bot_and_a_stranger_cannot(
    competition, people, client_for
):
    team = teams.create_team(competition=competition, name="Owls", user=people["author"])
    teams.add_team_member(team=team, user=people["mate"], by=people["author"])
    bot, _ = bot_with_version(name="owl-bot", owner=people["author"], announce=False)
    teams.give_bot_to_team(team=team, bot=bot, by=people["author"])

    upload = f"/api/bots/{bot.pk}/versions/"
    source = b"def act(state):\n    return state.legal_actions()[0]\n"
    stranger = client_for(people["other"])
    refused = stranger.post(
        upload, {"file": SimpleUploadedFile("main.py", source)}, format="multipart"
    )
    assert refused.status_code == 403
    mate = client_for(people["mate"])
    done = mate.post(upload, {"file": SimpleUploadedFile("main.py", source)}, format="multipart")
    assert done.status_code == 201, done.json()
    assert bot.versions.count() == 2

    entries = f"/api/competitions/{competition.pk}/entries/"
    assert stranger.post(entries, {"bot": bot.pk}, format="json").status_code == 403
    entered = mate.post(entries, {"bot": bot.pk}, format="json")
    assert entered.status_code == 201 and entered.json()["team"] == "Owls"
    assert CompetitionEntry.objects.get(pk=entered.json()["id"]).team == Team.objects.get()


def test_scoped_tokens(competition, people, client_for):
    from rest_framework.test import APIClient

    _, organise = create_token(user=people["org"], name="o", scopes=[ApiToken.Scope.ORGANISE])
    _, upload_only = create_token(user=people["org"], name="u", scopes=[ApiToken.Scope.UPLOAD])
    url = f"/api/competitions/{competition.pk}/pause/"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {upload_only}")
    assert client.post(url).status_code == 403
    client.credentials(HTTP_AUTHORIZATION=f"Token {organise}")
    assert client.post(url).status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {organise}")
    refused = client.post(
        f"/api/competitions/{competition.pk}/teams/", {"name": "T"}, format="json"
    )
    assert refused.status_code == 403


def test_an_edit_with_nulls_where_the_schema_allows_them(competition, people, client_for):
    org = client_for(people["org"])
    url = f"/api/competitions/{competition.pk}/"
    answer = org.patch(
        url,
        {"invite_code": None, "ladder_hidden_from": None, "division_size": None, "players": None},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json()["invite_code"] == "" and answer.json()["players"] == 2
    refused = org.patch(url, {"eligibility": "invite", "invite_code": None}, format="json")
    assert refused.status_code == 400 and "invite_code" in refused.json()["errors"]


def test_the_archive_is_offered_once_closed_and_released(competition, people, client_for):
    import gzip
    import json

    from tournaments.archive.verify import verify_archive

    url = f"/api/competitions/{competition.pk}/archive/"
    competitions.set_release(competition=competition, release="hidden")
    for reader in (client_for(None), client_for(people["other"]), client_for(people["org"])):
        refused = reader.get(url)  # not closed yet
        assert refused.status_code == 404 and "closed" in _error_shape(refused)["detail"]
    Competition.objects.filter(pk=competition.pk).update(phase="closed")
    for reader in (client_for(None), client_for(people["other"])):
        assert reader.get(url).status_code == 404  # hidden from them
    assert client_for(people["org"]).get(url).status_code == 200
    competitions.reveal_results(competition=competition)
    answer = client_for(None).get(url)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/gzip"
    assert f"competition-{competition.pk}-archive.json.gz" in answer["Content-Disposition"]
    document = json.loads(gzip.decompress(answer.content))
    assert document["matches"] == [] and document["competition"]["name"] == "Club season"
    assert verify_archive(document)
    assert client_for(None).get("/api/competitions/999999/archive/").status_code == 404


def test_every_write_refused_anonymously_and_to_another_user(
    competition, entry, people, client_for
):
    team = teams.create_team(competition=competition, name="Owls", user=people["author"])
    base = f"/api/competitions/{competition.pk}"
    writes = [
        ("patch", f"{base}/", {"name": "Taken"}),
        ("post", f"{base}/entries/{entry.pk}/decide/", {"accept": True}),
        ("post", f"{base}/entries/{entry.pk}/disqualify/", {"reason": "x"}),
        ("post", f"{base}/pause/", None),
        ("post", f"{base}/resume/", None),
        ("post", f"{base}/release/", {"release": "hidden"}),
        ("post", f"{base}/reveal/", None),
        ("post", f"{base}/announcements/", {"text": "x"}),
        ("post", f"{base}/teams/{team.pk}/members/", {"username": "other"}),
        ("delete", f"{base}/teams/{team.pk}/members/author/", None),
        ("post", f"{base}/teams/{team.pk}/bots/", {"bot": entry.bot_id}),
    ]
    anonymous, other = client_for(None), client_for(people["other"])
    for method, url, body in writes:
        assert getattr(anonymous, method)(url, body, format="json").status_code == 401, url
        refused = getattr(other, method)(url, body, format="json")
        assert refused.status_code == 403, url
        assert _error_shape(refused)["detail"]
    for method, url in (("post", "/api/competitions/"), ("post", f"{base}/entries/")):
        assert getattr(anonymous, method)(url, {}, format="json").status_code == 401
        assert getattr(anonymous, method)(f"{base}/teams/", {}, format="json").status_code == 401
    competition.refresh_from_db()
    entry.refresh_from_db()
    assert (competition.name, competition.paused, competition.release) == (
        "Club season",
        False,
        "public",
    )
    assert entry.status == "pending" and not competition.announcements.exists()
    assert list(team.members.values_list("user__username", flat=True)) == ["author"]
    assert not team.bots.exists()


def test_ids_too_big_for_the_database_are_refused(competition, people, client_for):
    author = client_for(people["author"])
    huge = 2**70
    entries = f"/api/competitions/{competition.pk}/entries/"
    assert author.post(entries, {"bot": huge}, format="json").status_code == 400
    assert author.post(entries, {"bot": 1, "team": huge}, format="json").status_code == 400
    assert client_for(None).get(f"/api/competitions/{huge}/").status_code == 404
    assert client_for(None).get(f"/api/competitions/{huge}/entries/").status_code == 404


def test_the_list_filters_by_phase_and_game(competition, people, client_for):
    Competition.objects.filter(pk=competition.pk).update(phase="frozen")
    reader = client_for(None)

    def ids(query: str) -> list[int]:
        return [c["id"] for c in reader.get(f"/api/competitions/{query}").json()["results"]]

    assert ids("?phase=frozen") == [competition.pk]
    assert ids("?phase=open") == []
    assert ids("?game=pairs") == [competition.pk]
    assert ids("?game=paks") == []
    for bad in ("?phase=soon", "?game=chess", "?phase=%00"):
        refused = reader.get(f"/api/competitions/{bad}")
        assert refused.status_code == 400 and _error_shape(refused)["errors"]


def test_the_list_comes_a_page_at_a_time_newest_opening_first(people, client_for):
    now = timezone.now()
    made = [
        new_competition(people["org"], name=f"cup {hours}", now=now, opened=timedelta(hours=hours))
        for hours in (3, 1, 2, 5, 4)
    ]
    newest_first = [c.pk for c in sorted(made, key=lambda c: c.opens_at, reverse=True)]
    reader = client_for(people["other"])
    seen, url = [], "/api/competitions/?page_size=2&game=pairs"
    while url:
        page = reader.get(url).json()
        assert len(page["results"]) <= 2
        seen += [c["id"] for c in page["results"]]
        url = page["next"]
    assert seen == newest_first
    for bad in ("?page_size=0", "?page_size=201", "?cursor=nonsense"):
        refused = reader.get(f"/api/competitions/{bad}")
        assert refused.status_code == 400 and _error_shape(refused)["errors"]
