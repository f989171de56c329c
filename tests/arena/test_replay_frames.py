"""The replay viewer's frames: every game has a layout, each seat's frames hold only what
that seat's observation held, and the answer follows the API's rules (strict seat, cache)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.cache import cache

from arena.dashboard import frames as replay
from arena.dashboard.frame_layouts import LAYOUTS, layout_for, layout_keys
from games import registry
from games.policies import play_out, random_policy
from games.rng import Rng
from tests.support.replay_matches import store_match, table_size
from tournaments import selectors
from tournaments.models import Match, MatchReplay
from tournaments.read_models import replays


def played(slug: str, seed: int = 3):
    players = table_size(slug)
    game = registry.get(slug)
    return play_out(
        game.new_match(players=players, seed=seed), [random_policy] * players, Rng(seed)
    )


def unfold(frames: list[dict]) -> list[dict]:
    """Each frame as the viewer rebuilds it: the previous one with the changed keys applied."""
    shown, out = {}, []
    for frame in frames:
        shown = {**shown, **frame["d"]}
        out.append({k: v for k, v in shown.items() if v is not None})
    return out


def observations(record: dict, seat: int | None) -> list[dict]:
    game = registry.get(record["game"])
    state = game.new_match(
        players=record["players"], options=record["options"], seed=record["seed"]
    )
    seen = [state.observation(seat)]
    for move in record["moves"]:
        state.apply({int(s): a for s, a in move.items()})
        seen.append(state.observation(seat))
    return seen


def test_every_registered_game_has_a_layout():
    assert sorted(LAYOUTS) == registry.slugs()


@pytest.mark.parametrize("slug", registry.slugs())
def test_layout_names_only_keys_the_engine_publishes(slug):
    """A renamed observation key would silently vanish from the table: catch it here."""
    record = played(slug).to_json()
    published = set()
    for seat in (None, *range(record["players"])):
        for observation in observations(record, seat):
            published |= observation.keys()
    layout = layout_for(slug)
    named = [key for part in ("info", "centre", "seats") for key, _, _ in layout[part]]
    if "hand" in layout:
        named += [layout["hand"]["key"], layout["hand"]["count"]]
    assert set(named) <= published, set(named) - published


@pytest.mark.parametrize("slug", registry.slugs())
@pytest.mark.parametrize("seat", [None, 0, 1])
def test_frames_are_the_seats_observations_cut_to_the_layout(slug, seat):
    state = played(slug)
    record = state.to_json()
    frames = replay.frames_from_record(record, seat=seat)
    assert len(frames) == len(record["moves"]) + 1
    keys = layout_keys(layout_for(slug))
    for frame, observation in zip(unfold(frames), observations(record, seat), strict=True):
        expected = {k: v for k, v in observation.items() if k in keys and v is not None}
        assert frame == expected
    # Events: the last frame has seen every event of the seat's log.
    assert frames[-1]["e"] == len(state.events(seat))
    assert [f["e"] for f in frames] == sorted(f["e"] for f in frames)


def test_a_seat_never_receives_another_seats_hand():
    """Paiute hands are private: seat 0's frames carry its own hand only, a spectator's none."""
    record = played("paiute").to_json()
    for seat in (0, 1):
        hands = [f["hand"] for f in unfold(replay.frames_from_record(record, seat=seat))]
        assert hands == [o["hand"] for o in observations(record, seat)]
    spectator = unfold(replay.frames_from_record(record, seat=None))
    assert all("hand" not in frame for frame in spectator)
    assert any(frame.get("hand_sizes") for frame in spectator)  # counts stay public


@pytest.fixture
def paiute_match(db, django_user_model):
    owner = django_user_model.objects.create_user(username="viewer-owner", password="x" * 12)
    match = store_match(owner, "paiute")
    # Finished a while ago: no task is building its stored replay (see test_stored_replays).
    Match.objects.filter(pk=match.pk).update(finished_at=match.finished_at - timedelta(hours=1))
    match.refresh_from_db()
    yield match
    for seat in (None, 0, 1, 2):
        cache.delete(selectors.replay_cache_key(match=match, seat=seat))


def test_frames_api_answers_per_seat_and_caches_finished_matches(client, paiute_match):
    url = f"/api/matches/{paiute_match.pk}/frames/"
    answer = client.get(url, {"seat": "1"}).json()
    assert answer["seat"] == 1 and answer["game"] == "paiute"
    assert answer["layout"]["deck"] == "french" and answer["layout"]["hand"]["key"] == "hand"
    assert len(answer["frames"]) == len(paiute_match.moves) + 1
    # Every viewer's frames are built once and stored (tournaments.read_models.replays).
    stored = replays.StoredReplay(MatchReplay.objects.get(match=paiute_match))
    assert json.loads(stored.piece(replays.piece_name("frames", 1))) == answer["frames"]
    spectator = client.get(url).json()
    assert spectator["seat"] is None and spectator["frames"] != answer["frames"]
    # With the record gone only the cache can answer: no second replay happened.
    Match.objects.filter(pk=paiute_match.pk).update(record={"game": "paiute", "moves": "x"})
    assert client.get(url, {"seat": "1"}).json()["frames"] == answer["frames"]


@pytest.mark.parametrize("seat", ["3", "-1", "x", "1.0", "", "٣"])
def test_frames_api_refuses_a_seat_the_match_lacks(client, paiute_match, seat):
    response = client.get(f"/api/matches/{paiute_match.pk}/frames/", {"seat": seat})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and "seat" in body["errors"]


def test_frames_api_unknown_match_and_other_engine_version(client, paiute_match):
    assert client.get("/api/matches/999999/frames/").status_code == 404
    record = {**paiute_match.record, "version": registry.get("paiute").version + 1}
    Match.objects.filter(pk=paiute_match.pk).update(record=record, status=Match.Status.RUNNING)
    response = client.get(f"/api/matches/{paiute_match.pk}/frames/")
    assert response.status_code == 409
    assert response.json()["code"] == "replay_unavailable"
    assert "version" in response.json()["detail"]


def test_match_page_carries_the_viewer_and_keeps_the_text_log(client, paiute_match):
    page = client.get(f"/matches/{paiute_match.pk}/", {"seat": "2"})
    html = page.content.decode()
    assert page.context["viewer"]["seat"] == 2
    assert page.context["viewer"]["framesUrl"] == f"/api/matches/{paiute_match.pk}/frames/"
    assert [s["bot"] for s in page.context["viewer"]["seats"]] == [
        "paiute-0",
        "paiute-1",
        "paiute-2",
    ]
    assert 'id="replay-config"' in html and "/static/arena/replay.js" in html
    assert '<details id="text-log">' in html  # the long log is collapsed
