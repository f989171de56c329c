"""A finished match's replay and frames answers are rendered once and served as stored
bytes: the cached answer equals a fresh build, and a hit never reads the record again."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from django.core.cache import cache, caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.dashboard import frames as replay
from arena.dashboard.frame_layouts import layout_for, layout_json
from games import registry
from games.policies import play_out, random_policy
from games.rng import Rng
from tournaments.models import Match
from tournaments.readcache import replay_answers
from tournaments.readcache.process_copies import ProcessCopies
from tournaments.services.requeue import requeue_failed_match


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    replay_answers.forget_all()
    yield
    cache.clear()
    replay_answers.forget_all()


def fresh_replay(match, seat):
    return {
        "match": match.pk,
        "seat": seat,
        "moves": match.moves or [],
        "events": json.loads(json.dumps(registry.rebuild(match.record).events(seat))),
    }


def fresh_frames(match, seat):
    return {
        "match": match.pk,
        "seat": seat,
        "game": match.game,
        "layout": json.loads(json.dumps(layout_json(layout_for(match.game)))),
        "frames": json.loads(json.dumps(replay.frames_from_record(match.record, seat=seat))),
    }


def replay_request(match, kind: str, seat: int | None) -> tuple[str, dict]:
    """The URL and query of a match's replay or frames, for everyone or for one seat."""
    return f"/api/matches/{match.pk}/{kind}/", ({} if seat is None else {"seat": seat})


@pytest.mark.parametrize("kind", ["replay", "frames"])
@pytest.mark.parametrize("seat", [None, 0, 1])
def test_cached_answer_equals_a_fresh_build_and_a_hit_skips_the_record(
    client,
    finished_match,
    kind,
    seat,
):
    url, params = replay_request(finished_match, kind, seat)
    fresh = (fresh_replay if kind == "replay" else fresh_frames)(finished_match, seat)
    first = client.get(url, params)
    assert first.status_code == 200 and first["Content-Type"] == "application/json"
    assert first.json() == fresh
    with CaptureQueriesContext(connection) as queries:
        second = client.get(url, params)
    assert second.content == first.content
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert '"record"' not in sql and '"moves"' not in sql  # the big columns stay unread
    # another seat's answer is its own
    other = client.get(url, {"seat": 1 if seat == 0 else 0})
    assert other.json()["seat"] == (1 if seat == 0 else 0)


@contextmanager
def cache_calls():
    """The calls made to the default cache meanwhile (each a round trip to Redis)."""
    backend, calls = caches["default"], []
    for name in ("get", "get_many", "set", "add", "delete"):
        method = getattr(backend, name)
        setattr(backend, name, lambda *a, _m=method, _n=name, **k: calls.append(_n) or _m(*a, **k))
    try:
        yield calls
    finally:
        for name in ("get", "get_many", "set", "add", "delete"):
            backend.__dict__.pop(name, None)


@pytest.mark.parametrize("kind", ["replay", "frames"])
@pytest.mark.parametrize("seat", [None, 1])
def test_a_kept_answer_is_one_query_and_no_cache_trip_and_equals_the_stored_one(
    client,
    finished_match,
    kind,
    seat,
):
    url, params = replay_request(finished_match, kind, seat)
    first = client.get(url, params)
    with CaptureQueriesContext(connection) as queries, cache_calls() as calls:
        again = client.get(url, params)
    assert (again.content, again["Content-Type"]) == (first.content, first["Content-Type"])
    assert len(queries) == 1 and calls == []
    # Another process (nothing in its memory) takes the same bytes from the cache, once.
    replay_answers.forget_all()
    with cache_calls() as calls:
        assert client.get(url, params).content == first.content
    assert calls == ["get"]
    # With nothing stored anywhere, the same bytes are built again.
    cache.clear()
    replay_answers.forget_all()
    assert client.get(url, params).content == first.content


@pytest.mark.parametrize("kind", ["replay", "frames"])
def test_a_match_played_again_never_answers_from_its_first_result(
    client,
    finished_match,
    kind,
):
    url = f"/api/matches/{finished_match.pk}/{kind}/"
    client.force_login(finished_match.seats.get(seat=0).version.bot.owner)  # while it runs
    first = client.get(url, {"seat": 0}).content  # kept in memory and in the cache
    # Its result taken back as a failure, queued again, and played to another end.
    Match.objects.filter(pk=finished_match.pk).update(status=Match.Status.FAILED)
    requeue_failed_match(match=Match.objects.get(pk=finished_match.pk))
    assert client.get(url, {"seat": 0}).status_code == 200  # unfinished: built, not kept
    game = registry.get("paiute")
    state = play_out(game.new_match(players=2, seed=8), [random_policy] * 2, Rng(8))
    Match.objects.filter(pk=finished_match.pk).update(
        status=Match.Status.FINISHED,
        attempts=1,
        finished_at=timezone.now(),
        record=state.to_json(),
    )
    replayed = Match.objects.get(pk=finished_match.pk)
    again = client.get(url, {"seat": 0})
    fresh = (fresh_replay if kind == "replay" else fresh_frames)(replayed, 0)
    assert again.json() == fresh and again.content != first


def test_the_memory_keeps_the_latest_answers_within_its_bound():
    kept = ProcessCopies(400)
    for n in range(5):
        kept.put(f"k{n}", bytes(100), 100)
    assert kept.get("k0") is None  # the oldest left first
    assert kept.get("k1") == bytes(100)  # read: now the newest
    kept.put("k5", bytes(100), 100)
    assert kept.get("k2") is None and kept.get("k1") == bytes(100)
    assert kept.size == 400
    kept.put("big", bytes(101), 101)  # over a quarter of the bound: not kept
    assert kept.get("big") is None and kept.size == 400


def test_an_unfinished_match_is_built_each_time(client, finished_match):
    Match.objects.filter(pk=finished_match.pk).update(status=Match.Status.RUNNING)
    url = f"/api/matches/{finished_match.pk}/replay/"
    before = client.get(url).json()
    assert before["events"]
    Match.objects.filter(pk=finished_match.pk).update(moves=[{"actions": {"0": 1}}])
    # While it runs a spectator sees which seats acted, not what they played.
    assert client.get(url).json()["moves"] == [{"actions": {"0": None}, "hidden": ["0"]}]
    client.force_login(finished_match.seats.get(seat=0).version.bot.owner)
    seat_view = client.get(url, {"seat": 0}).json()["moves"]
    assert seat_view == [{"actions": {"0": 1}, "hidden": []}]


def test_bad_seats_still_answer_4xx_in_the_error_shape(client, finished_match):
    for kind in ("replay", "frames"):
        response = client.get(f"/api/matches/{finished_match.pk}/{kind}/", {"seat": "7"})
        assert response.status_code == 400 and "seat" in json.dumps(response.json())


def test_match_detail_splices_the_stored_moves_and_record_unchanged(client, finished_match):
    moves = [{"actions": {"0": 3}, "ms": {"0": 1.5}}, {"actions": {"1": "é"}}]
    Match.objects.filter(pk=finished_match.pk).update(moves=moves)
    body = client.get(f"/api/matches/{finished_match.pk}/").json()
    assert body["moves"] == moves
    assert body["record"] == finished_match.record
    assert list(body)[-4:] == ["move_ms", "bank_ms", "moves", "record"]
    assert body["id"] == finished_match.pk and len(body["seats"]) == 2
    assert body["reproduce"]["export"].endswith(f"/api/matches/{finished_match.pk}/")
    Match.objects.filter(pk=finished_match.pk).update(record=None, moves=[])
    cache.clear()  # a finished match's record is written once: its answer is kept (readcache)
    empty = client.get(f"/api/matches/{finished_match.pk}/").json()
    assert empty["record"] is None and empty["moves"] == []
    assert client.get("/api/matches/99999999/").status_code == 404


def text_log(html: str) -> str:
    return html[html.index('<details id="text-log">') : html.index("</details>")]


def test_match_page_text_log_is_cached_and_equals_a_fresh_render(client, finished_match):
    url = f"/matches/{finished_match.pk}/"
    first = client.get(url, {"seat": 0}).content.decode()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, {"seat": 0}).content.decode()
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert '"record"' not in sql and '"moves"' not in sql
    assert text_log(again) == text_log(first)
    cache.clear()
    assert text_log(client.get(url, {"seat": 0}).content.decode()) == text_log(first)
    events = registry.rebuild(finished_match.record).events(0)
    assert f"Text log: {len(events)} events" in text_log(first) and len(events) > 5
    spectator = client.get(url).content.decode()
    assert f"Text log: {len(registry.rebuild(finished_match.record).events(None))} events" in (
        text_log(spectator)
    )


def test_match_page_text_log_of_an_unfinished_match_is_not_kept(client, finished_match):
    Match.objects.filter(pk=finished_match.pk).update(status=Match.Status.RUNNING, moves=[])
    url = f"/matches/{finished_match.pk}/"
    assert "and 0 moves" in text_log(client.get(url).content.decode())
    Match.objects.filter(pk=finished_match.pk).update(moves=[{"actions": {"0": 1}}])
    assert "and 1 moves" in text_log(client.get(url).content.decode())
