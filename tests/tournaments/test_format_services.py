"""Every format through the real services and API: created, advanced from the database, finished.

Results are recorded through the same claim and record calls a worker makes,
with ranks drawn from a seeded generator instead of bots, so each format is
driven to its end in seconds; the workers' part is in tests/integration.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from bots.models import Bot
from tests.support.builders import active_bots, outcome, play_queued
from tournaments import services
from tournaments.models import Entry, Match, Tournament
from tournaments.services.playing import claim_match, record_result


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


@pytest.fixture
def api(organiser):
    client = APIClient()
    client.force_authenticate(organiser)
    return client


def create(api, bots, **fields) -> dict:
    body = {"name": "cup", "game": "pairs", "bots": [b.pk for b in bots], **fields}
    answer = api.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def play_out(tournament_id: int, rng: random.Random, fault_bot: int | None = None) -> int:
    """Answer queued matches in random order until none is left; returns how many were played."""
    played = 0
    while True:
        queued = list(Match.objects.filter(tournament_id=tournament_id, status="queued"))
        if not queued:
            return played
        match = rng.choice(queued)
        attempt = claim_match(match_id=match.pk)
        seats = list(match.seats.select_related("version").order_by("seat"))
        ranks = list(range(1, len(seats) + 1))
        rng.shuffle(ranks)
        if rng.random() < 0.1:
            ranks = [1] * len(seats)
        if fault_bot is not None:
            # The faulty bot ranks last in every game it plays.
            faulty = [s.seat for s in seats if s.version.bot_id == fault_bot]
            for seat in faulty:
                ranks[seat] = len(seats)
                for other in range(len(seats)):
                    if other != seat and ranks[other] == len(seats):
                        ranks[other] = 1
        result = outcome(match=match, ranks=ranks)
        if fault_bot is not None:
            for seat in seats:
                if seat.version.bot_id == fault_bot:
                    result["result"]["seats"][seat.seat]["fault"] = {
                        "kind": "crashed",
                        "reason": "exit code 1",
                    }
        assert record_result(match_id=match.pk, attempt=attempt, outcome=result)
        played += 1


def detail(api, pk) -> dict:
    answer = api.get(f"/api/tournaments/{pk}/")
    assert answer.status_code == 200
    return answer.json()


@pytest.mark.parametrize("entrants", [5, 8, 11])
def test_swiss_plays_its_rounds_with_one_bye_each_and_finishes(api, organiser, entrants):
    bots = active_bots(owner=organiser, count=entrants)
    body = create(api, bots, format="swiss", rounds=3, seeding="entry")
    assert services.start_tournament(tournament_id=body["id"])
    play_out(body["id"], random.Random(entrants))
    data = detail(api, body["id"])
    assert data["status"] == "finished"
    assert data["format"] == "swiss" and data["rounds"] == 3
    assert [r["round"] for r in data["round_tables"]] == [1, 2, 3]
    ids = sorted(b.pk for b in bots)
    for r in data["round_tables"]:
        seated = sorted([b for t in r["tables"] for b in t] + r["byes"])
        assert seated == ids
        assert len(r["byes"]) == entrants % 2
    pairs = [frozenset(t) for r in data["round_tables"] for t in r["tables"]]
    assert len(pairs) == len(set(pairs))  # no rematch in three rounds of 5+
    assert data["tiebreaks"] == ["buchholz", "sonneborn_berger", "head_to_head", "faults"]
    standings = data["standings"]
    assert [row["position"] for row in standings] == list(range(1, entrants + 1))
    points = [row["points"] for row in standings]
    assert points == sorted(points, reverse=True)
    assert all("buchholz" in row["tiebreaks"] for row in standings)
    # Stored on the entries at the finish, in the same order.
    stored = Entry.objects.filter(tournament_id=body["id"]).order_by("place")
    assert [e.bot_id for e in stored] == [row["bot_id"] for row in standings]
    matches = api.get(f"/api/tournaments/{body['id']}/matches/").json()["results"]
    assert {m["round"] for m in matches} == {1, 2, 3}


def test_single_elimination_seeds_sixteen_by_the_standard_bracket(api, organiser):
    bots = active_bots(owner=organiser, count=16)
    body = create(api, bots, format="single_elimination", seeding="entry", third_place=True)
    assert services.start_tournament(tournament_id=body["id"])
    data = detail(api, body["id"])
    first_round = [s for s in data["bracket"] if s["round"] == 1]
    seed_of = {b.pk: i + 1 for i, b in enumerate(bots)}
    pairs = [tuple(sorted(seed_of[b] for b in s["entrants"])) for s in first_round]
    assert pairs == [(1, 16), (8, 9), (5, 12), (4, 13), (6, 11), (3, 14), (7, 10), (2, 15)]
    assert first_round[0]["winner_to"] == "W2.1"
    # Only round one is queued: later series wait for their entrants.
    queued = Match.objects.filter(tournament_id=body["id"])
    assert {m.series for m in queued} == {s["series"] for s in first_round}
    played = play_out(body["id"], random.Random(3))
    data = detail(api, body["id"])
    assert data["status"] == "finished"
    series = [s for s in data["bracket"] if s["played"]]
    assert len(series) == 16  # 15 knock-out series and the one for third place
    final = next(s for s in data["bracket"] if s["series"] == "W4.1")
    assert data["standings"][0]["bot_id"] == final["winners"][0]
    assert played >= 16 * 2
    matches = api.get(f"/api/tournaments/{body['id']}/matches/?page_size=200").json()["results"]
    assert all(m["series"] for m in matches)


def test_single_elimination_gives_byes_to_the_top_seeds(api, organiser):
    bots = active_bots(owner=organiser, count=6)
    body = create(api, bots, format="single_elimination", seeding="entry")
    services.start_tournament(tournament_id=body["id"])
    data = detail(api, body["id"])
    byes = [s for s in data["bracket"] if s["round"] == 1 and None in s["entrants"]]
    seeded = sorted(next(b for b in s["entrants"] if b is not None) for s in byes)
    assert seeded == sorted([bots[0].pk, bots[1].pk])
    assert all(s["complete"] and not s["played"] for s in byes)


@pytest.mark.parametrize("entrants", [4, 7])
def test_double_elimination_sends_everyone_but_the_champion_out_after_two_losses(
    api, organiser, entrants
):
    bots = active_bots(owner=organiser, count=entrants)
    body = create(api, bots, format="double_elimination", seeding="entry")
    services.start_tournament(tournament_id=body["id"])
    play_out(body["id"], random.Random(entrants))
    data = detail(api, body["id"])
    assert data["status"] == "finished"
    played = [s for s in data["bracket"] if s["played"]]
    assert len(played) in (2 * entrants - 2, 2 * entrants - 1)
    losses = {b.pk: 0 for b in bots}
    for s in played:
        losses[s["loser"]] += 1
    champion = data["standings"][0]["bot_id"]
    assert all(count == 2 for bot, count in losses.items() if bot != champion)
    assert losses[champion] <= 1


def test_gauntlet_challenger_meets_everyone_on_the_same_deals(api, organiser):
    bots = active_bots(owner=organiser, count=5)
    body = create(api, bots, format="gauntlet", challengers=[bots[2].pk], games_per_pairing=4)
    assert body["challengers"] == [bots[2].pk]
    services.start_tournament(tournament_id=body["id"])
    matches = list(
        Match.objects.filter(tournament_id=body["id"]).prefetch_related("seats__version")
    )
    assert len(matches) == 4 * 4
    seeds_by_opponent = {}
    for m in matches:
        bots_at = [s.version.bot_id for s in m.seats.all()]
        assert bots[2].pk in bots_at
        (opponent,) = set(bots_at) - {bots[2].pk}
        seeds_by_opponent.setdefault(opponent, []).append(m.seed)
    deals = {tuple(sorted(seeds)) for seeds in seeds_by_opponent.values()}
    assert len(deals) == 1  # every opponent faces the same cards
    play_out(body["id"], random.Random(1))
    assert detail(api, body["id"])["status"] == "finished"


def test_elimination_tables_for_three_seats(api, organiser):
    bots = active_bots(owner=organiser, count=7, game="pairs")
    body = create(
        api, bots, format="single_elimination", players_per_match=3, advance=2, seeding="entry"
    )
    services.start_tournament(tournament_id=body["id"])
    play_out(body["id"], random.Random(4))
    data = detail(api, body["id"])
    assert data["status"] == "finished"
    assert all(len(s["entrants"]) == 3 for s in data["bracket"])
    assert all(len(s["winners"]) == 2 for s in data["bracket"][:-1])


def test_a_bot_that_faults_every_game_loses_and_the_event_goes_on(api, organiser):
    bots = active_bots(owner=organiser, count=6)
    body = create(api, bots, format="swiss", rounds=3, seeding="entry")
    services.start_tournament(tournament_id=body["id"])
    play_out(body["id"], random.Random(9), fault_bot=bots[0].pk)
    data = detail(api, body["id"])
    assert data["status"] == "finished"
    row = next(r for r in data["standings"] if r["bot_id"] == bots[0].pk)
    assert row["faults"] == row["played"] > 0
    assert row["position"] >= 5


def test_a_round_robin_keeps_berger_rounds(api, organiser):
    bots = active_bots(owner=organiser, count=6)
    body = create(api, bots)
    services.start_tournament(tournament_id=body["id"])
    rounds: dict[int, list[int]] = {}
    for m in Match.objects.filter(tournament_id=body["id"]).prefetch_related("seats__version"):
        rounds.setdefault(m.round, []).extend(s.version.bot_id for s in m.seats.all())
    assert len(rounds) == 10  # 5 Berger rounds, once per seat rotation
    assert all(sorted(ids) == sorted(b.pk for b in bots) for ids in rounds.values())


def test_the_seed_commitment_verifies_once_every_game_is_played(api, organiser):
    bots = active_bots(owner=organiser, count=3)
    body = create(api, bots, seed=123456789)
    assert len(body["seed_commitment"]) == 64
    anonymous = APIClient().get(f"/api/tournaments/{body['id']}/").json()
    assert anonymous["seed"] is None and anonymous["seed_salt"] is None
    assert anonymous["seed_commitment"] == body["seed_commitment"]
    services.start_tournament(tournament_id=body["id"])
    # Running, the seed would deal every game still to play: hidden.
    assert APIClient().get(f"/api/tournaments/{body['id']}/").json()["seed"] is None
    assert play_queued(tournament_id=body["id"]) > 0
    revealed = APIClient().get(f"/api/tournaments/{body['id']}/").json()
    assert revealed["status"] == "finished"
    text = f"{revealed['seed_salt']}:{revealed['seed']}".encode()
    assert hashlib.sha256(text).hexdigest() == body["seed_commitment"]
    tampered = f"{revealed['seed_salt']}:{revealed['seed'] + 1}".encode()
    assert hashlib.sha256(tampered).hexdigest() != body["seed_commitment"]


def test_a_cancelled_tournament_shows_how_far_it_got(api, organiser):
    bots = active_bots(owner=organiser, count=6)
    body = create(api, bots)
    services.start_tournament(tournament_id=body["id"])
    for match in Match.objects.filter(tournament_id=body["id"])[:4]:
        attempt = claim_match(match_id=match.pk)
        record_result(
            match_id=match.pk, attempt=attempt, outcome=outcome(match=match, ranks=[1, 2])
        )
    assert api.post(f"/api/tournaments/{body['id']}/cancel/").status_code == 200
    progress = detail(api, body["id"])["progress"]
    assert progress["done"] == 4 and progress["finished"] == 4
    assert progress["cancelled"] == progress["total"] - 4
    assert not Match.objects.filter(tournament_id=body["id"], status="queued").exists()


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"format": "knockout"}, "format", 'no format "knockout": pick one of'),
        ({"format": "gauntlet"}, "challengers", "needs at least one challenger"),
        ({"format": "gauntlet", "challengers": [999999]}, "challengers", "must be entrants"),
        ({"challengers": "me"}, "challengers", "list"),
        (
            {"format": "double_elimination", "players_per_match": 3},
            "players_per_match",
            "set players per match to 2",
        ),
        (
            {"format": "single_elimination", "players_per_match": 3, "advance": 3},
            "advance",
            "From 1 to 2 of each table of 3",
        ),
        ({"games_per_pairing": 3}, "games_per_pairing", "multiple of 2 when seats rotate"),
        ({"format": "swiss", "rounds": 0}, "rounds", "from 1 to 100"),
        ({"twice": True}, "bots", "entered twice"),
        ({"other_game": True}, "bots", "plays pairs-port"),
        ({"third_place": "maybe"}, "third_place", "valid boolean"),
        ({"options": {"games": 999}}, "options.games", "at most 20: try 20 or fewer"),
        ({"options": {"gambling": "x"}}, "options.gambling", "must be one of"),
        ({"options": {"nonsense": 1}}, "options", "nonsense"),
        ({"players_per_match": 99}, "players_per_match", "give a number from 2 to"),
        ({"only_one": True}, "bots", "Pick at least two bots"),
    ],
)
def test_bad_requests_get_a_clear_400_and_store_nothing(api, organiser, fields, field, words):
    """Each refusal sits on its field in words that say what to do; the code stays."""
    bots = active_bots(owner=organiser, count=3)
    ids = [b.pk for b in bots]
    if fields.pop("twice", False):
        ids = [ids[0], ids[0], ids[1]]
    if fields.pop("other_game", False):
        ids.append(Bot.objects.create(owner=organiser, name="port-bot", game="pairs-port").pk)
    if fields.pop("only_one", False):
        ids = ids[:1]
    body = {"name": "bad", "game": "pairs", "bots": ids, **fields}
    answer = api.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 400, answer.json()
    assert answer.json()["code"] == "invalid"
    errors = answer.json()["errors"]
    assert field in errors, errors
    assert any(words in message for message in errors[field]), errors
    assert not Tournament.objects.exists()
