"""A match's hidden information (each seat's hidden cards and actions, the record, the seed)
reaches nobody but a seat's owner, for that seat, while it is played; afterwards its
tournament's ``record_visibility`` decides who sees the whole record.

Real Paiute matches (hidden hands) of a three-bot round robin with seats rotated (two
games per pairing, dealt the same cards), played as a worker plays them and read at each
step (one game running; finished while the other game of its deal is still to play;
both finished while the tournament runs; the tournament finished) by staff, a seat's
owner, the organiser, another user and anonymously, over every endpoint and page that
shows a match; the read caches are on throughout (answers kept by one reader must never
reach another, nor outlive the step they were built in)."""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest
from django.test import Client

from arena.dashboard.frames import frames_from_record
from bots.cli import PlayError
from bots.rerun import load_record
from games import registry
from tests.support.builders import bot_with_version, play_for_real, started_tournament, version
from tests.support.stored_reads import open_gate
from tournaments import visibility
from tournaments.models import Ladder, Match, Tournament
from tournaments.selectors import public_seats
from tournaments.services.ladder import schedule_ladders

GAME = "paiute"
SETTINGS = ["finished", "tournament_end", "owners"]
READERS = ["staff", "alice", "dave", "carol", None]  # the privileged first: their answers
# are kept before the others read


@pytest.fixture(autouse=True)
def _empty(empty_cache):
    pass


@pytest.fixture
def people(make_user):
    users = {name: make_user(name) for name in ("alice", "bob", "carol", "dave")}
    staff = make_user("root")
    staff.is_staff = True
    staff.save()
    users["staff"] = staff
    return users


def client_of(people, name) -> Client:
    client = Client()
    if name is not None:
        client.force_login(people[name])
    return client


def cup(people, visibility: str) -> tuple[Tournament, dict]:
    """alice's bot a and bob's b and c, organised by dave (who enters none of them)."""
    bots = {
        "a": bot_with_version(name="a", game=GAME, owner=people["alice"])[0],
        "b": bot_with_version(name="b", game=GAME, owner=people["bob"])[0],
        "c": bot_with_version(name="c", game=GAME, owner=people["bob"])[0],
    }
    tournament = started_tournament(
        organiser=people["dave"],
        bots=list(bots.values()),
        game=GAME,
        seeding="entry",
        record_visibility=visibility,
    )
    return tournament, bots


def deal_of(tournament, bots) -> list[Match]:
    """The two games of a against b: one deal, the seats rotated."""
    games = [
        m
        for m in tournament.matches.order_by("pk")
        if {s.version.bot_id for s in m.seats.all()} == {bots["a"].pk, bots["b"].pk}
    ]
    assert len(games) == 2 and games[0].seed == games[1].seed
    return games


def own_seats(match, user) -> set[int]:
    if user is None:
        return set()
    return {s.seat for s in match.seats.all() if s.version.bot.owner_id == user.pk}


def assert_seen_moves(shown, moves, own: set[int]) -> None:
    """Each move as a reader who may see only ``own``'s actions: the others' are null."""
    assert len(shown) == len(moves)
    for seen, move in zip(shown, moves, strict=True):
        assert set(seen["actions"]) == set(move["actions"])
        for seat, action in move["actions"].items():
            assert seen["actions"][seat] == (action if int(seat) in own else None)
        assert seen["ms"] == move["ms"] and seen["defaulted"] == move["defaulted"]


def viewer_config(html: str) -> dict:
    found = re.search(r'<script id="replay-config" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1))


@lru_cache(maxsize=64)
def expected_frames(record_json: str, seat: int | None) -> list[dict]:
    """The seat's frames of the record, as JSON gives them back: worked out once for each
    record and seat (every reader's answers are held to the same, at every step)."""
    record = json.loads(record_json)
    return json.loads(json.dumps(frames_from_record(record, seat=seat)))


def check_match(client, name, people, match, *, full: bool) -> None:
    """Every read of ``match`` by reader ``name``: the whole record when ``full``, else what
    the rules make public and the reader's own seats' views."""
    match.refresh_from_db()
    user = people[name] if name else None
    own = set() if full else own_seats(match, user)
    record, moves = match.record, match.moves
    players = record["players"]
    state = registry.rebuild(record)
    record_json = json.dumps(record)  # the cache key; loads gives the same record back
    where = (name, match.pk, match.status)
    refused = 401 if name is None else 403

    detail = client.get(f"/api/matches/{match.pk}/")
    assert detail.status_code == 200, where
    body = detail.json()
    assert body["hidden"] is (not full), where
    if full:
        assert body["seed"] == match.seed and body["record"] == record, where
        assert body["moves"] == moves and body["reproduce"] is not None, where
    else:
        assert body["seed"] is None and body["record"] is None, where
        assert body["reproduce"] is None, where
        assert_seen_moves(body["moves"], moves, own)
        assert str(match.seed) not in detail.content.decode(), where

    for seat in [None, *range(players)]:
        params = {} if seat is None else {"seat": seat}
        allowed = seat is None or full or seat in own
        expected = expected_frames(record_json, seat) if allowed else None
        for _ in range(2):  # the second read comes from what the first kept
            replay = client.get(f"/api/matches/{match.pk}/replay/", params)
            frames = client.get(f"/api/matches/{match.pk}/frames/", params)
            if not allowed:
                for answer in (replay, frames):
                    assert answer.status_code == refused, (*where, seat, answer.content)
                    assert set(answer.json()) >= {"detail", "code", "errors"}
                continue
            assert replay.status_code == 200 and frames.status_code == 200, (*where, seat)
            shown = replay.json()
            assert shown["seat"] == seat
            assert shown["events"] == json.loads(json.dumps(state.events(seat))), (*where, seat)
            if full:
                assert shown["moves"] == moves, (*where, seat)
            else:
                assert_seen_moves(shown["moves"], moves, {seat} if seat is not None else set())
            assert frames.json()["frames"] == expected, (*where, seat)

        page = client.get(f"/matches/{match.pk}/", params)
        assert page.status_code == 200
        html = page.content.decode()
        assert viewer_config(html)["seat"] == (seat if allowed else None), (*where, seat)
        assert (str(match.seed) in html) is full, (*where, seat)
        if not full:
            assert "(hidden)" in html and "manage.py play" not in html, (*where, seat)


def check_lists(client, name, people, tournament, match, *, full: bool, seed_shown: bool):
    """The lists and pages that show the tournament or the match: the match's seed only
    with the whole record, the tournament's only when ``seed_shown``."""
    tournament.refresh_from_db()
    where = (name, tournament.status)
    rows = client.get(f"/api/tournaments/{tournament.pk}/matches/?page_size=100").json()
    row = next(r for r in rows["results"] if r["id"] == match.pk)
    assert row["seed"] == (match.seed if full else None), where
    assert row["hidden"] is (not full), where
    assert (row["reproduce"] is not None) is full, where
    detail = client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert detail["record_visibility"] == tournament.record_visibility
    assert detail["seed"] == (tournament.seed if seed_shown else None), where
    assert (detail["seed_salt"] is not None) is seed_shown, where
    listed = client.get("/api/tournaments/").json()["results"]
    assert next(t for t in listed if t["id"] == tournament.pk)["seed"] == detail["seed"], where
    urls = [
        f"/tournaments/{tournament.pk}/",
        f"/tournaments/{tournament.pk}/live/",
        "/tournaments/",
        "/",
        *(f"/bots/{s.version.bot_id}/" for s in match.seats.all()),
        *(f"/api/bots/{s.version.bot_id}/" for s in match.seats.all()),
        f"/games/{GAME}/",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (*where, url)
        text = response.content.decode()
        if not seed_shown:
            assert str(tournament.seed) not in text, (*where, url)
        if not full:
            assert str(match.seed) not in text, (*where, url)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert (str(tournament.seed) in page) is seed_shown, where


def full_view(setting: str, step: str, name: str | None) -> bool:
    """Who sees the whole record of the first game of a against b at each step."""
    if step in ("running", "deal running"):
        return False
    if name == "staff":
        return True
    if setting == "finished" or (setting == "tournament_end" and step == "tournament over"):
        return True
    return setting == "owners" and name == "alice"


def tournament_seed_shown(setting: str, step: str, name: str | None) -> bool:
    if name == "dave":  # the organiser, who may choose it, sees it throughout
        return True
    if step != "tournament over":
        return False
    return setting != "owners" or name == "staff"


@pytest.mark.parametrize("setting", SETTINGS)
def test_every_reader_sees_what_the_setting_allows_at_every_step(people, setting):
    tournament, bots = cup(people, setting)
    first, second = deal_of(tournament, bots)
    clients = {name: client_of(people, name) for name in READERS}

    def check(step: str) -> None:
        for name in READERS:
            full = full_view(setting, step, name)
            check_match(clients[name], name, people, first, full=full)
            shown = tournament_seed_shown(setting, step, name)
            check_lists(clients[name], name, people, tournament, first, full=full, seed_shown=shown)

    play_for_real(match=first, finish=False)  # its moves so far stored, still running
    check("running")
    Match.objects.filter(pk=first.pk).update(status=Match.Status.QUEUED)
    play_for_real(match=first)
    play_for_real(match=second, finish=False)  # the other game of its deal, running
    check("deal running")
    Match.objects.filter(pk=second.pk).update(status=Match.Status.QUEUED)
    play_for_real(match=second)
    check("tournament running")
    for match in tournament.matches.filter(status=Match.Status.QUEUED).order_by("pk"):
        play_for_real(match=match)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    check("tournament over")


def test_a_seat_view_kept_for_its_owner_never_reaches_another_reader(people):
    tournament, bots = cup(people, "owners")
    first, _ = deal_of(tournament, bots)
    play_for_real(match=first, finish=False)
    alice_seat = own_seats(first, people["alice"]).pop()
    url = f"/api/matches/{first.pk}/replay/"
    alice = client_of(people, "alice")
    for _ in range(2):
        assert alice.get(url, {"seat": alice_seat}).status_code == 200
    assert client_of(people, None).get(url, {"seat": alice_seat}).status_code == 401
    assert client_of(people, "carol").get(url, {"seat": alice_seat}).status_code == 403
    bob = client_of(people, "bob")
    assert bob.get(url, {"seat": alice_seat}).status_code == 403  # the other seat's owner
    assert bob.get(url, {"seat": 1 - alice_seat}).status_code == 200


def test_an_export_of_a_hidden_record_says_so_to_manage_py_replay(people):
    tournament, bots = cup(people, "tournament_end")
    first, second = deal_of(tournament, bots)
    play_for_real(match=first)
    play_for_real(match=second)
    exported = client_of(people, "alice").get(f"/api/matches/{first.pk}/").json()
    with pytest.raises(PlayError, match="hidden"):
        load_record(exported)
    staff = client_of(people, "staff").get(f"/api/matches/{first.pk}/").json()
    assert load_record(staff).seed == first.seed


@pytest.fixture
def paiute_ladder(people, settings) -> Ladder:
    settings.ARENA_LADDER, settings.ARENA_LADDER_SLOTS = True, 1
    bot_with_version(name="a", game=GAME, owner=people["alice"])
    bot_with_version(name="b", game=GAME, owner=people["bob"])
    assert schedule_ladders() == 2  # one table: both rotations of one deal
    return Ladder.objects.get(game=GAME)


def test_a_ladder_match_is_public_once_its_deal_is_played_out(people, paiute_ladder):
    first, second = paiute_ladder.matches.order_by("pk")
    assert first.seed == second.seed
    play_for_real(match=first)
    rows_url = f"/api/ladders/{paiute_ladder.pk}/matches/"
    for name in READERS:
        client = client_of(people, name)
        check_match(client, name, people, first, full=False)
        row = next(r for r in client.get(rows_url).json()["results"] if r["id"] == first.pk)
        assert row["seed"] is None and row["hidden"] is True
    play_for_real(match=second)
    for name in READERS:
        client = client_of(people, name)
        for match in (first, second):
            check_match(client, name, people, match, full=True)
        rows = client.get(rows_url).json()["results"]
        assert {r["seed"] for r in rows} == {first.seed}


def test_record_visibility_is_set_at_creation_and_shown(people, client_for):
    bots = [bot_with_version(name=n, game=GAME, owner=people["alice"])[0].pk for n in ("x", "y")]
    api = client_for(people["alice"])
    made = api.post(
        "/api/tournaments/",
        {"name": "quiet", "game": GAME, "bots": bots, "record_visibility": "owners"},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["record_visibility"] == "owners"
    shown = client_for(None).get(f"/api/tournaments/{made.json()['id']}/").json()
    assert shown["record_visibility"] == "owners"
    default = api.post("/api/tournaments/", {"name": "open", "game": GAME, "bots": bots})
    assert default.json()["record_visibility"] == "finished"
    bad = api.post(
        "/api/tournaments/",
        {"name": "x", "game": GAME, "bots": bots, "record_visibility": "never"},
        format="json",
    )
    assert bad.status_code == 400 and "record_visibility" in bad.json()["errors"]
    assert Tournament.objects.count() == 2

    schema = client_for(None).get("/api/schema/?format=json").json()
    field = schema["components"]["schemas"]["Tournament"]["properties"]["record_visibility"]
    assert "tournament_end" in json.dumps(schema["components"]["schemas"])
    assert field.get("description") or field.get("allOf")


def test_the_new_tournament_form_sets_record_visibility(people):
    bots = [bot_with_version(name=n, game=GAME, owner=people["alice"])[0].pk for n in ("x", "y")]
    page = client_of(people, "alice")
    form = page.get("/tournaments/new/").content.decode()
    assert 'name="record_visibility"' in form
    answer = page.post(
        "/tournaments/new/",
        {
            "name": "quiet",
            "game": GAME,
            "bots": bots,
            "format": "round_robin",
            "seeding": "rating",
            "rotate_seats": "on",
            "move_ms": 1000,
            "bank_ms": 10000,
            "record_visibility": "tournament_end",
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert Tournament.objects.get().record_visibility == "tournament_end"


def test_a_version_gate_pair_shares_its_deal_and_other_events_do_not(people):
    """A gate's two games of a pair share a seed: one finished stays hidden while the other
    is to play; a game of another event with the same seed keeps nothing hidden."""
    bot, first_version = bot_with_version(name="g", game=GAME, owner=people["alice"])
    candidate = version(bot=bot)
    gate = open_gate(candidate=candidate)
    engine = registry.get(GAME).version

    def game(status, **event):
        match = Match.objects.create(
            game=GAME, engine_version=engine, seed=77, status=status, **event
        )
        for seat, seated in enumerate((candidate, first_version)):
            match.seats.create(seat=seat, version=seated)
        return match

    played = game(Match.Status.FINISHED, gate=gate)
    other = game(Match.Status.QUEUED, gate=gate)
    elsewhere = game(Match.Status.FINISHED)  # no event: nothing shares its deal
    game(Match.Status.QUEUED)

    def exposures():
        found = {m.pk: visibility.read_exposure(pk=m.pk)[0] for m in (played, elsewhere)}
        matches = list(Match.objects.filter(pk__in=found).prefetch_related(public_seats()))
        views = visibility.match_views(matches=matches, user=None)
        for pk, exposure in found.items():  # a page's views agree with one match's
            assert views[pk].full is exposure.public
        return found

    found = exposures()
    assert found[played.pk].deal_live and not found[played.pk].public
    assert not found[elsewhere.pk].deal_live and found[elsewhere.pk].public
    Match.objects.filter(pk=other.pk).update(status=Match.Status.FINISHED)
    assert exposures()[played.pk].public
