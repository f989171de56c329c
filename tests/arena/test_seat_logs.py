"""A bot's stderr log is stored with its seat and shown to the bot's owner only.

One real match (two uploaded bots of two owners, played in the sandbox as a worker plays
it), then every endpoint and page that shows a match, read by the owner of each seat, by a
signed-in stranger and anonymously: only a seat's owner ever sees that seat's log.
"""

from __future__ import annotations

import io
import json
import shlex

import pytest
from django.core.management import call_command
from django.test import Client

from bots import sandbox
from bots import services as bot_services
from bots.models import BotVersion
from tournaments import services
from tournaments.models import MatchSeat

BOT = """import arena_sdk

def act(observation, legal):
    arena_sdk.log("{secret} thinking")
    return legal[0]

arena_sdk.run(
    act,
    on_start=lambda info: arena_sdk.log("{secret} seat", info["seat"]),
    on_end=lambda result: arena_sdk.log("{secret} the end"),
)
"""
SECRETS = {"alice": "ALICE-PRIVATE-7781", "bob": "BOB-PRIVATE-3302"}


@pytest.fixture
def played(db, make_user):
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    users = {name: make_user(name) for name in ("alice", "bob", "carol")}
    bots = {}
    for name in ("alice", "bob"):
        bot = bot_services.create_bot(owner=users[name], name=f"{name}-bot", game="pairs")
        source = BOT.format(secret=SECRETS[name]).encode()
        version = bot_services.upload_version(bot=bot, filename="main.py", data=source)
        # Its test matches are the validation tests' business: active at once.
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
        bots[name] = bot
    tournament = services.create_tournament(
        organiser=users["carol"],
        name="log cup",
        game="pairs",
        bot_ids=[bots["alice"].pk, bots["bob"].pk],
        games_per_pairing=1,
        rotate_seats=False,
        seed=5,
    )
    services.start_tournament(tournament_id=tournament.pk)
    match = tournament.matches.get()
    match = services.play_match(match_id=match.pk)
    assert match.status == "finished"
    seat_of = {s.version.bot.owner.username: s.seat for s in match.seats.all()}
    return {"users": users, "bots": bots, "tournament": tournament, "match": match, "seat": seat_of}


def test_the_log_is_stored_with_the_seat(played):
    for name, seat in played["seat"].items():
        log = MatchSeat.objects.get(match=played["match"], seat=seat).log
        assert f"{SECRETS[name]} seat {seat}" in log and f"{SECRETS[name]} thinking" in log
        # Written after "end", while the worker recorded the result: stored with it.
        assert f"{SECRETS[name]} the end" in log
        other = SECRETS["bob" if name == "alice" else "alice"]
        assert other not in log


def readers(played, client_for):
    """(name, API client, page client) for each kind of reader."""
    out = []
    for name in ("alice", "bob", "carol", None):
        user = played["users"][name] if name else None
        page = Client()
        if user is not None:
            page.force_login(user)
        out.append((name, client_for(user), page))
    return out


def test_every_endpoint_and_page_shows_a_log_to_its_owner_only(played, client_for):
    match, tournament = played["match"], played["tournament"]
    bots = played["bots"]
    for name, api, page in readers(played, client_for):
        visible = {SECRETS[name]} if name in SECRETS else set()
        hidden = set(SECRETS.values()) - visible
        urls = [
            f"/api/matches/{match.pk}/",
            f"/api/matches/{match.pk}/replay/",
            f"/api/matches/{match.pk}/replay/?seat=0",
            f"/api/matches/{match.pk}/replay/?seat=1",
            f"/api/tournaments/{tournament.pk}/",
            f"/api/tournaments/{tournament.pk}/matches/",
            f"/api/bots/{bots['alice'].pk}/",
            f"/api/bots/{bots['bob'].pk}/",
        ]
        for url in urls:
            response = api.get(url)
            assert response.status_code == 200, (name, url, response.content)
            body = response.content.decode()
            for secret in hidden:
                assert secret not in body, (name, url)
        pages = [
            f"/matches/{match.pk}/",
            f"/matches/{match.pk}/?seat=0",
            f"/matches/{match.pk}/?seat=1",
            f"/tournaments/{tournament.pk}/",
            f"/bots/{bots['alice'].pk}/",
            f"/bots/{bots['bob'].pk}/",
            "/",
        ]
        for url in pages:
            response = page.get(url)
            assert response.status_code == 200, (name, url)
            for secret in hidden:
                assert secret not in response.content.decode(), (name, url)

        # Where a log is shown, its owner sees it: the match detail and the match page.
        detail = api.get(f"/api/matches/{match.pk}/").json()
        logs = {s["seat"]: s["log"] for s in detail["seats"]}
        for owner, seat in played["seat"].items():
            if owner == name:
                assert f"{SECRETS[owner]} thinking" in logs[seat]
            else:
                assert logs[seat] is None
        html = page.get(f"/matches/{match.pk}/").content.decode()
        for secret in visible:
            assert f"{secret} thinking" in html and "Your bot's log" in html


def test_seat_log_endpoint(played, client_for):
    match = played["match"]
    alice_seat, bob_seat = played["seat"]["alice"], played["seat"]["bob"]
    alice = client_for(played["users"]["alice"])
    answer = alice.get(f"/api/matches/{match.pk}/seats/{alice_seat}/log/")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain")
    assert f"{SECRETS['alice']} seat {alice_seat}" in answer.content.decode()

    refused = alice.get(f"/api/matches/{match.pk}/seats/{bob_seat}/log/")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert SECRETS["bob"] not in refused.content.decode()
    for stranger in (client_for(played["users"]["carol"]), client_for(None)):
        for seat in (alice_seat, bob_seat):
            answer = stranger.get(f"/api/matches/{match.pk}/seats/{seat}/log/")
            assert answer.status_code in (401, 403), answer.content
            assert set(answer.json()) >= {"detail", "code", "errors"}
            assert not any(s in answer.content.decode() for s in SECRETS.values())
    assert alice.get(f"/api/matches/{match.pk}/seats/7/log/").status_code == 404
    assert alice.get("/api/matches/999999/seats/0/log/").status_code == 404


def test_the_match_says_how_to_play_it_again(played, client_for):
    match = played["match"]
    alice_seat = played["seat"]["alice"]
    mine = client_for(played["users"]["alice"]).get(f"/api/matches/{match.pk}/").json()
    reproduce = mine["reproduce"]
    words = shlex.split(reproduce["play"])
    assert words[:4] == ["python", "manage.py", "play", "pairs"]
    assert words[words.index("--seed") + 1] == str(match.seed)
    assert words[words.index("--move-ms") + 1] == str(match.move_ms)
    assert words[words.index("--bank-ms") + 1] == str(match.bank_ms)
    files = {f["seat"]: f for f in reproduce["files"]}
    assert files[alice_seat]["yours"] and files[alice_seat]["source"]
    assert not files[1 - alice_seat]["yours"] and files[1 - alice_seat]["source"] is None
    assert shlex.split(reproduce["replay"])[3:] == [
        f"match-{match.pk}.json",
        "--bot",
        f"{alice_seat}=alice-bot-v1.py",
    ]
    assert reproduce["export"].endswith(f"/api/matches/{match.pk}/")
    listed = client_for(played["users"]["alice"]).get(
        f"/api/tournaments/{played['tournament'].pk}/matches/"
    )
    assert listed.json()["results"][0]["reproduce"] == reproduce
    anonymous = client_for(None).get(f"/api/matches/{match.pk}/").json()["reproduce"]
    assert anonymous["play"] == reproduce["play"]  # the same match for everyone
    assert "--bot" not in anonymous["replay"]  # nothing of theirs: all seats as recorded
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "manage.py play pairs" in page and f"--seed {match.seed}" in page


def test_the_commands_given_replay_the_match_exactly(played, client_for, tmp_path, monkeypatch):
    """Run what the API prints, word for word, with the bots' files under the names it uses."""
    match = played["match"]
    monkeypatch.chdir(tmp_path)
    detail = client_for(played["users"]["alice"]).get(f"/api/matches/{match.pk}/")
    (tmp_path / f"match-{match.pk}.json").write_bytes(detail.content)
    reproduce = detail.json()["reproduce"]
    for f in reproduce["files"]:
        owner = f["bot"].removesuffix("-bot")
        (tmp_path / f["file"]).write_text(BOT.format(secret=SECRETS[owner]))

    # replay: alice's file for her seat, bob's seat from the record; checked move by move.
    words = shlex.split(reproduce["replay"])
    out = io.StringIO()
    call_command(*words[2:], stdout=out)
    assert f"same: all {len(match.moves)} moves and the result" in out.getvalue()

    # play: both files; the very same match.
    words = shlex.split(reproduce["play"])
    out = io.StringIO()
    call_command(*words[2:], "--json", stdout=out)
    again = json.loads(out.getvalue())
    assert [m["actions"] for m in again["moves"]] == [m["actions"] for m in match.moves]
    ranks = [s["rank"] for s in again["result"]["seats"]]
    assert ranks == [s["rank"] for s in match.result["seats"]]
