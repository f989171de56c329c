"""Games a person plays against bots, through the API: the worker's service plays the
bots in a thread (as a "human_games" worker would) while the test answers as the person."""

from __future__ import annotations

import random

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from games import registry
from tests.support.builders import bot_with_version, user
from tests.support.human_play import GameThread, play_out, wait_for_status
from tournaments.models import HumanGame, Match, MatchSeat

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("quick_polls"),
]


@pytest.fixture
def quick_polls():
    with override_settings(ARENA_HUMAN_POLL_SECONDS=0.002):
        yield


def client_of(person) -> APIClient:
    client = APIClient()
    client.force_authenticate(person)
    return client


def start(client, **body) -> dict:
    answer = client.post("/api/human-games/", body, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_a_game_of_pairs_against_built_in_bots_plays_to_an_unrated_match_record():
    alice = user(name="alice")
    client = client_of(alice)
    # A game of Pairs may end before a seat is ever asked (the others fold out first): play
    # again until the person has had a turn.
    for _ in range(5):
        body, turns, final, match = play_one_pairs_game(client)
        if turns:
            break
    assert turns, "five games of Pairs without a turn for seat 1"
    assert turns == sorted(set(turns))
    assert final["status"] == "finished" and final["result"]["seats"][1]["bot"] == "alice (person)"
    match.refresh_from_db()
    assert match.status == "finished" and match.rated_seq is None and match.pool == ""
    assert registry.rebuild(match.record).is_over()
    seat = MatchSeat.objects.get(match=match, seat=1)
    assert seat.user_id == alice.pk and seat.rank == final["result"]["seats"][1]["rank"]
    # An ordinary match record: everyone reads it now, with its seed.
    public = APIClient().get(f"/api/matches/{match.pk}/").json()
    assert public["hidden"] is False and public["seed"] == match.seed
    assert [s["player"] for s in public["seats"]] == ["builtin", "human", "builtin"]
    assert public["seats"][1]["bot_id"] is None and public["seats"][1]["bot"] == "alice (person)"


def play_one_pairs_game(client):
    """A 3-seat game of Pairs with the person in seat 1, each turn checked against the
    engine; the start's answer, the turns played, the final answer and the match."""
    body = start(client, game="pairs", players=3, seat=1, bots=["random", "random"])
    assert body["status"] == "starting" and body["seat"] == 1
    match = Match.objects.get(pk=body["match"])
    assert match.human_game_id == body["id"] and match.status == "queued"
    assert [s.player_kind for s in match.seats.order_by("seat")] == ["builtin", "human", "builtin"]
    worker = GameThread(match.pk)
    worker.start()
    turns = []

    def check(answer):
        # The observation is the engine's for seat 1 at the position the turn is asked at.
        record = Match.objects.get(pk=match.pk).record
        state = registry.rebuild(record)
        # The events start where seat 1's log stood after its own last move.
        replayed = registry.rebuild({**record, "moves": []})
        since = 0
        for move in record["moves"]:
            replayed.apply({int(s): action for s, action in move.items()})
            if "1" in move:
                since = len(replayed.events(1))
        assert answer["events_from"] == since
        assert answer["observation"] == state.observation(1)
        assert answer["legal"] == state.legal_actions(1)
        assert answer["events"] == state.events(1, since=answer["events_from"])
        assert 1 in answer["to_act"] and answer["seconds_left"] > 0
        turns.append(answer["turn"])

    final = play_out(client, body["id"], random.Random(5), check=check)
    worker.join(10)
    assert worker.error is None and worker.recorded is True
    return body, turns, final, match


def test_stale_illegal_and_early_actions_are_refused_and_change_nothing():
    alice = user(name="alice")
    client = client_of(alice)
    body = start(client, game="pairs", players=2, seat=0, bots=["random"])
    game_id = body["id"]
    early = client.post(f"/api/human-games/{game_id}/act/", {"action": "hit"}, format="json")
    assert early.status_code == 409 and early.json()["code"] == "conflict"
    worker = GameThread(body["match"])
    worker.start()
    turn = wait_for_status(client, game_id, {"your_turn"})
    before = HumanGame.objects.values().get(pk=game_id)
    illegal = client.post(
        f"/api/human-games/{game_id}/act/", {"action": "no such move", "turn": turn["turn"]},
        format="json",
    )  # fmt: skip
    assert illegal.status_code == 400 and "action" in illegal.json()["errors"]
    stale = client.post(
        f"/api/human-games/{game_id}/act/",
        {"action": turn["legal"][0], "turn": turn["turn"] - 1},
        format="json",
    )
    assert stale.status_code == 409 and "it is now move" in stale.json()["detail"]
    assert HumanGame.objects.values().get(pk=game_id) == before
    # A body that is not an object, or no action: 400 in the one shape.
    for bad in ([1, 2], {}, {"turn": "x", "action": "hit"}):
        answer = client.post(f"/api/human-games/{game_id}/act/", bad, format="json")
        assert answer.status_code == 400 and set(answer.json()) == {"detail", "code", "errors"}
    assert HumanGame.objects.values().get(pk=game_id) == before
    resigned = client.post(f"/api/human-games/{game_id}/resign/")
    assert resigned.status_code == 200
    worker.join(20)
    assert worker.error is None
    final = wait_for_status(client, game_id, {"finished"})
    seats = final["result"]["seats"]
    assert seats[0]["fault"]["kind"] == "resigned" and seats[0]["rank"] == 2
    again = client.post(f"/api/human-games/{game_id}/resign/")
    assert again.status_code == 409


@override_settings(ARENA_HUMAN_MOVE_SECONDS=1)
def test_a_person_whose_clock_runs_out_forfeits_and_the_game_ends():
    alice = user(name="alice")
    client = client_of(alice)
    body = start(client, game="pairs", players=2, seat=0, bots=["random"])
    worker = GameThread(body["match"])
    worker.start()
    worker.join(30)
    assert worker.error is None and worker.recorded is True
    final = wait_for_status(client, body["id"], {"finished"})
    fault = final["result"]["seats"][0]["fault"]
    assert fault["kind"] == "timeout" and "within 1 s" in fault["reason"]


def test_refusals_say_what_is_wrong_and_store_nothing():
    alice, bob = user(name="alice"), user(name="bob")
    theirs, _ = bot_with_version(name="theirs", owner=bob)
    private, _ = bot_with_version(name="private", owner=bob, accepts_challenges="nobody")
    other_game, _ = bot_with_version(name="stax_bot", owner=bob, game="stax")
    client = client_of(alice)
    cases = [
        ({"game": "nope", "bots": ["random"]}, 400, "game"),
        ({"game": "pairs", "players": 9, "bots": ["random"] * 8}, 400, "players"),
        ({"game": "pairs", "players": 2, "seat": 2, "bots": ["random"]}, 400, "seat"),
        ({"game": "pairs", "players": 2, "seat": True, "bots": ["random"]}, 400, "seat"),
        ({"game": "pairs", "players": 3, "bots": ["random"]}, 400, "bots"),
        ({"game": "pairs", "bots": ["nobody-knows"]}, 400, "bots"),
        ({"game": "pairs", "bots": [999999]}, 400, "bots"),
        ({"game": "pairs", "bots": [{"id": 1}]}, 400, "bots"),
        ({"game": "pairs", "bots": [True]}, 400, "bots"),
        ({"game": "pairs", "bots": [10**30]}, 400, "bots"),
        ({"game": "pairs", "bots": "random"}, 400, "bots"),
        ({"game": "pairs", "bots": [other_game.pk]}, 400, "bots"),
        ({"game": "pairs", "bots": [private.pk]}, 403, None),
        ({"game": "pairs", "options": {"nope": 1}, "bots": ["random"]}, 400, "options"),
        ({"game": "pairs", "options": [], "bots": ["random"]}, 400, "options"),
    ]
    for body, status, field in cases:
        answer = client.post("/api/human-games/", body, format="json")
        assert answer.status_code == status, (body, answer.content)
        error = answer.json()
        assert error["detail"] and error["code"]
        if field:
            assert field in error["errors"], (body, error)
    assert not HumanGame.objects.exists() and not Match.objects.exists()
    # The owner may always play their own bot; another's, when it accepts challenges.
    assert (
        client_of(bob)
        .post("/api/human-games/", {"game": "pairs", "bots": [private.pk]}, format="json")
        .status_code
        == 201
    )
    made = start(client, game="pairs", bots=[theirs.pk])
    seats = MatchSeat.objects.filter(match_id=made["match"]).order_by("seat")
    assert {s.version.bot_id for s in seats if s.version_id} == {theirs.pk}


@override_settings(ARENA_HUMAN_GAMES_PER_PERSON=1, ARENA_HUMAN_GAMES_AT_ONCE=2)
def test_the_quota_per_person_and_the_servers_tables():
    alice, bob, carol = user(name="alice"), user(name="bob"), user(name="carol")
    first = start(client_of(alice), game="pairs", bots=["random"])
    again = client_of(alice).post(
        "/api/human-games/", {"game": "pairs", "bots": ["random"]}, format="json"
    )
    assert again.status_code == 429 and "finish or resign" in again.json()["detail"]
    assert again.has_header("Retry-After")
    start(client_of(bob), game="pairs", bots=["random"])
    full = client_of(carol).post(
        "/api/human-games/", {"game": "pairs", "bots": ["random"]}, format="json"
    )
    assert full.status_code == 429 and "tables" in full.json()["detail"]
    assert HumanGame.objects.count() == 2
    # A finished game frees its place.
    Match.objects.filter(pk=first["match"]).update(status="finished")
    start(client_of(alice), game="pairs", bots=["random"])


def test_only_the_person_reads_or_moves_in_their_game():
    alice, mallory = user(name="alice"), user(name="mallory")
    body = start(client_of(alice), game="pairs", bots=["random"])
    game_id = body["id"]
    urls = [
        ("get", f"/api/human-games/{game_id}/"),
        ("post", f"/api/human-games/{game_id}/act/"),
        ("post", f"/api/human-games/{game_id}/resign/"),
        ("post", f"/api/human-games/{game_id}/rematch/"),
    ]
    for method, url in urls:
        anonymous = getattr(APIClient(), method)(url, {"action": "hit"}, format="json")
        assert anonymous.status_code in (401, 403), url
        stranger = getattr(client_of(mallory), method)(url, {"action": "hit"}, format="json")
        assert stranger.status_code == 404, url
    assert client_of(mallory).get("/api/human-games/").json()["results"] == []
    assert APIClient().get("/api/human-games/").status_code in (401, 403)
    assert not HumanGame.objects.get(pk=game_id).resigned


def test_a_rematch_keeps_the_seats_on_a_new_deal():
    alice, bob = user(name="alice"), user(name="bob")
    theirs, _ = bot_with_version(name="theirs", owner=bob)
    client = client_of(alice)
    body = start(client, game="pairs", players=3, seat=2, bots=[theirs.pk, "random"])
    live = client.post(f"/api/human-games/{body['id']}/rematch/")
    assert live.status_code == 409
    Match.objects.filter(pk=body["match"]).update(status="finished")
    again = client.post(f"/api/human-games/{body['id']}/rematch/")
    assert again.status_code == 201, again.content
    new = again.json()
    assert new["rematch_of"] == body["id"] and new["seat"] == 2
    assert [s["kind"] for s in new["seats"]] == ["bot", "builtin", "human"]
    seeds = set(
        Match.objects.filter(pk__in=[body["match"], new["match"]]).values_list("seed", flat=True)
    )
    assert len(seeds) == 2
