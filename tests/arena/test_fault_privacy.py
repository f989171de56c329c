"""A fault's public reason says what happened; what the bot wrote (its stderr's end) reaches
its owner only. A crash in a match and a crash in a validation match, each after the bot
wrote a secret on stderr; then every endpoint and page that shows a match, a seat's fault
or a version, read anonymously, by a signed-in stranger and by the other seat's owner: the
secret appears nowhere. Its owner reads it where it is meant to be: the seat's log and
fault detail, the version's ``reason_detail``, the bot page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from bots import sandbox
from bots import services as bot_services
from bots.models import BotVersion
from tournaments import services
from tournaments.models import MatchSeat

SECRET = "secret strategy note: k=1.0"
VALIDATION_SECRET = "validation secret: q=7"
# Logs the secret at its start, then panics on its third decision.
CRASHER = f"""import sys
import arena_sdk

decisions = 0

def act(observation, legal):
    global decisions
    decisions += 1
    if decisions == 3:
        print({SECRET!r}, file=sys.stderr, flush=True)
        raise RuntimeError("panic: " + {SECRET!r})
    return legal[0]

arena_sdk.run(act)
"""
PLAYER = """import arena_sdk

arena_sdk.run(lambda observation, legal: legal[0])
"""
FAILS_VALIDATION = f"""import sys
print({VALIDATION_SECRET!r}, file=sys.stderr, flush=True)
sys.exit(3)
"""


@pytest.fixture
def played(db, make_user, settings, tmp_path):
    if not sandbox.sandbox_available():
        pytest.skip("bubblewrap is not usable here")
    settings.ARENA_BOT_CACHE = tmp_path / "bot-cache"
    users = {name: make_user(name) for name in ("alice", "bob", "carol")}
    bots, versions = {}, {}
    for name, source in (("alice", CRASHER), ("bob", PLAYER)):
        bot = bot_services.create_bot(owner=users[name], name=f"{name}-bot", game="pairs")
        version = bot_services.upload_version(bot=bot, filename="main.py", data=source.encode())
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
        bots[name], versions[name] = bot, version
    tournament = services.create_tournament(
        organiser=users["carol"], name="fault cup", game="pairs",
        bot_ids=[bots["alice"].pk, bots["bob"].pk], games_per_pairing=1,
        rotate_seats=False, seed=5,
    )  # fmt: skip
    services.start_tournament(tournament_id=tournament.pk)
    match = services.play_match(match_id=tournament.matches.get().pk)
    assert match.status == "finished"
    # A later version of alice's bot fails its validation match.
    invalid = bot_services.upload_version(
        bot=bots["alice"], filename="v2.py", data=FAILS_VALIDATION.encode()
    )
    invalid = bot_services.validate_version(version_id=invalid.pk)
    assert invalid.status == BotVersion.Status.INVALID
    seat = MatchSeat.objects.get(match=match, version__bot=bots["alice"])
    return {
        "users": users, "bots": bots, "versions": versions, "invalid": invalid,
        "tournament": tournament, "match": match, "seat": seat.seat,
    }  # fmt: skip


def test_the_public_reasons_say_what_happened(played):
    seat = MatchSeat.objects.get(match=played["match"], seat=played["seat"])
    fault = seat.fault
    assert fault["kind"] == "crashed" and isinstance(fault["move"], int)
    assert fault["reason"] == f"crashed with exit code 1 on move {fault['move'] + 1}"
    assert played["match"].result["seats"][played["seat"]]["fault"] == fault
    assert SECRET in seat.fault_detail and "RuntimeError" in seat.fault_detail
    invalid = played["invalid"]
    assert invalid.reason == (
        "in a test match as seat 0, the bot crashed with exit code 3 before it was ready"
    )
    assert invalid.reason_detail == VALIDATION_SECRET


def public_reads(played) -> tuple[list[str], list[str]]:
    """Every API endpoint and page that shows the match, a seat's fault or a version."""
    match, tournament = played["match"], played["tournament"]
    bots, versions = played["bots"], played["versions"]
    api = [
        f"/api/matches/{match.pk}/",
        f"/api/tournaments/{tournament.pk}/",
        f"/api/tournaments/{tournament.pk}/matches/",
        f"/api/versions/{played['invalid'].pk}/",
        "/api/bots/",
    ]
    for seat in ("", "?seat=0", "?seat=1"):
        api += [f"/api/matches/{match.pk}/replay/{seat}", f"/api/matches/{match.pk}/frames/{seat}"]
    for name in ("alice", "bob"):
        api += [
            f"/api/bots/{bots[name].pk}/",
            f"/api/bots/{bots[name].pk}/versions/",
            f"/api/bots/{bots[name].pk}/ratings/",
            f"/api/versions/{versions[name].pk}/",
        ]
    pages = [
        f"/matches/{match.pk}/",
        f"/matches/{match.pk}/?seat=0",
        f"/matches/{match.pk}/?seat=1",
        f"/tournaments/{tournament.pk}/",
        f"/tournaments/{tournament.pk}/live/",
        f"/bots/{bots['alice'].pk}/",
        f"/bots/{bots['bob'].pk}/",
        "/bots/",
        "/",
    ]
    return api, pages


@pytest.mark.parametrize("reader", [None, "carol", "bob"])
def test_no_one_but_the_owner_reads_what_the_bot_wrote(played, client_for, reader):
    user = played["users"][reader] if reader else None
    api = client_for(user)
    page = Client()
    if user is not None:
        page.force_login(user)
    urls, pages = public_reads(played)
    for url in urls:
        answer = api.get(url)
        assert answer.status_code == 200, (url, answer.content[:300])
        for secret in (SECRET, VALIDATION_SECRET, "k=1.0", "q=7"):
            assert secret not in answer.content.decode(), (reader, url)
    for url in pages:
        answer = page.get(url)
        assert answer.status_code == 200, url
        for secret in (SECRET, VALIDATION_SECRET, "k=1.0", "q=7"):
            assert secret not in answer.content.decode(), (reader, url)
    # The fields the owner reads are there, null for everyone else (bob's own seat did
    # not fault: nothing to read there).
    detail = api.get(f"/api/matches/{played['match'].pk}/").json()
    seats = {s["seat"]: s["fault_detail"] for s in detail["seats"]}
    assert seats == {played["seat"]: None, 1 - played["seat"]: "" if reader == "bob" else None}
    assert api.get(f"/api/versions/{played['invalid'].pk}/").json()["reason_detail"] is None


def test_the_owner_reads_it_where_it_belongs(played, client_for):
    alice = played["users"]["alice"]
    api = client_for(alice)
    match, seat = played["match"], played["seat"]
    detail = api.get(f"/api/matches/{match.pk}/").json()
    mine = detail["seats"][seat]
    assert SECRET in mine["log"] and SECRET in mine["fault_detail"]
    assert detail["seats"][1 - seat]["fault_detail"] is None  # bob's seat: not hers
    assert SECRET in api.get(f"/api/matches/{match.pk}/seats/{seat}/log/").content.decode()
    invalid = api.get(f"/api/versions/{played['invalid'].pk}/").json()
    assert invalid["reason_detail"] == VALIDATION_SECRET
    listed = api.get(f"/api/bots/{played['bots']['alice'].pk}/versions/").json()["results"]
    assert [v["reason_detail"] for v in listed] == [VALIDATION_SECRET, ""]

    page = Client()
    page.force_login(alice)
    html = page.get(f"/matches/{match.pk}/").content.decode()
    assert "Your bot&#x27;s log" in html or "Your bot's log" in html
    assert "panic: " + SECRET in html  # the crash's stderr, in her log
    html = page.get(f"/bots/{played['bots']['alice'].pk}/").content.decode()
    assert VALIDATION_SECRET in html


def test_the_match_page_numbers_the_fault_as_the_viewer_does(played):
    match, seat = played["match"], played["seat"]
    fault = MatchSeat.objects.get(match=match, seat=seat).fault
    number = fault["move"] + 1
    html = Client().get(f"/matches/{match.pk}/").content.decode()
    said = {
        int(n) for n in re.findall(r"move (\d+)", html.split('id="result"')[1].split("</table>")[0])
    }
    assert said == {number}
    # The viewer's move ``number`` is the one played by default for the faulted seat.
    replay = Client().get(f"/api/matches/{match.pk}/replay/").json()
    assert seat in replay["moves"][fault["move"]]["defaulted"]
    assert all(seat not in m["defaulted"] for m in replay["moves"][: fault["move"]])
