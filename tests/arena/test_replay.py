"""Replays: a strict ``seat`` parameter, and finished matches' events computed once per seat."""

import pytest
from django.core.cache import cache

from games import registry
from tournaments import selectors
from tournaments.models import Match, MatchReplay
from tournaments.read_models import replays

BAD_SEATS = [
    "²",
    "٣",
    "１",
    "2",
    "-1",
    "+1",
    " 1",
    "1 ",
    "1_0",
    "0x1",
    "1.0",
    "",
    "\x00",
    "a",
    "9" * 40,
]


@pytest.mark.parametrize("seat", BAD_SEATS)
def test_replay_refuses_a_bad_seat(client_for, finished_match, seat):
    response = client_for(None).get(f"/api/matches/{finished_match.pk}/replay/", {"seat": seat})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and "seat" in body["errors"]


@pytest.mark.parametrize("seat", BAD_SEATS)
def test_match_page_ignores_a_bad_seat(client, finished_match, seat):
    response = client.get(f"/matches/{finished_match.pk}/", {"seat": seat})
    assert response.status_code == 200
    assert response.context["seat"] is None


def test_replay_per_seat(client_for, finished_match):
    anon = client_for(None)
    views = {
        seat: anon.get(f"/api/matches/{finished_match.pk}/replay/", {"seat": seat}).json()
        for seat in ("0", "1")
    }
    assert views["0"]["seat"] == 0 and views["1"]["seat"] == 1
    assert views["0"]["events"] != views["1"]["events"]  # each sees its own hand
    state = registry.rebuild(finished_match.record)
    assert views["1"]["events"] == state.events(1)
    page = client_for(None).get(f"/matches/{finished_match.pk}/", {"seat": "1"})
    assert page.context["seat"] == 1


def test_finished_replay_is_computed_once_per_seat(client_for, finished_match):
    anon = client_for(None)
    url = f"/api/matches/{finished_match.pk}/replay/"
    first = {seat: anon.get(url, {"seat": seat}).json()["events"] for seat in ("0", "1")}
    spectator = anon.get(url).json()["events"]
    # Each viewer's events are built once and stored (tournaments.read_models.replays).
    stored = replays.StoredReplay(MatchReplay.objects.get(match=finished_match))
    for seat in (0, 1, None):
        assert stored.has(replays.piece_name("events", seat))
    # With the record gone, only what was kept can still answer: no second rebuild happened.
    Match.objects.filter(pk=finished_match.pk).update(record={"game": "paiute", "moves": "x"})
    for seat in ("0", "1"):
        assert anon.get(url, {"seat": seat}).json()["events"] == first[seat]
    assert anon.get(url).json()["events"] == spectator
    assert first["0"] != first["1"] != spectator


def test_unfinished_replay_is_not_cached(client_for, finished_match):
    Match.objects.filter(pk=finished_match.pk).update(status=Match.Status.RUNNING)
    owner = finished_match.seats.get(seat=0).version.bot.owner  # seat 0's view is theirs
    response = client_for(owner).get(f"/api/matches/{finished_match.pk}/replay/", {"seat": "0"})
    assert response.status_code == 200 and response.json()["events"]
    assert cache.get(selectors.replay_cache_key(match=finished_match, seat=0)) is None
