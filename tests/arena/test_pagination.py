"""Keyset pages of the API lists: every row reachable exactly once while rows are being added
(at the front, at the back and at the reader's position), in both directions."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import Bot, BotVersion
from games import registry
from tests.support import builders
from tournaments.models import Ladder, Match, Tournament

pytestmark = pytest.mark.django_db
NOW = timezone.now()
counter = itertools.count(1)


def walk(client, url: str, add, *, key: str = "id", direction: str = "next") -> list:
    """Every row of every page from ``url`` on, calling ``add`` between two fetches."""
    seen = []
    while url:
        body = client.get(url).json()
        assert set(body) == {"next", "previous", "results"}, body
        seen += [row[key] for row in body["results"]]
        add()
        url = body[direction]
    return seen


def exactly_once(seen: list, present: set) -> None:
    assert len(seen) == len(set(seen)), "a row came twice"
    assert present <= set(seen), f"rows never reached: {present - set(seen)}"


@pytest.fixture
def user(make_user):
    return make_user("lister")


def new_bot(user, name: str) -> Bot:
    return Bot.objects.create(owner=user, name=name, game="pairs")


def test_bots_by_name(client_for, user):
    for i in range(0, 60, 2):
        new_bot(user, f"bot-{i:03d}")
    present = set(Bot.objects.values_list("name", flat=True))
    odd = iter(range(1, 200, 2))

    def add():  # a name before the reader, one after, one at the far end
        for _ in range(2):
            new_bot(user, f"bot-{next(odd):03d}")
        new_bot(user, f"aaa-{next(counter)}")
        new_bot(user, f"zzz-{next(counter)}")

    client = client_for(None)
    seen = walk(client, "/api/bots/?page_size=7", add, key="name")
    exactly_once(seen, present)
    in_order = list(
        Bot.objects.filter(name__in=seen).order_by("name").values_list("name", flat=True)
    )
    assert seen == in_order  # the database's collation decides the order of names
    # Backwards from the end: every row there now, once, in order.
    body = client.get("/api/bots/?page_size=200").json()
    assert body["next"] is None
    everything = [row["name"] for row in body["results"]]
    last = client.get("/api/bots/?page_size=9").json()
    while last["next"]:
        last = client.get(last["next"]).json()
    back, url = [row["name"] for row in last["results"]], last["previous"]
    while url:
        body = client.get(url).json()
        back = [row["name"] for row in body["results"]] + back
        url = body["previous"]
    assert back == everything


def tournament(user, start) -> Tournament:
    return Tournament.objects.create(
        name=f"t{next(counter)}",
        organiser=user,
        game="pairs",
        players_per_match=2,
        seed=1,
        start_at=start,
    )


def test_tournaments_newest_first_with_equal_start_times(client_for, user):
    # Many share a start time: the id breaks ties, so none is skipped or repeated.
    for i in range(25):
        tournament(user, NOW - timedelta(hours=i // 5))
    present = set(Tournament.objects.values_list("pk", flat=True))

    def add():
        tournament(user, NOW - timedelta(hours=2))  # among the rows being read
        tournament(user, NOW + timedelta(days=1))  # ahead of the reader
        tournament(user, NOW - timedelta(days=9))  # behind

    seen = walk(client_for(None), "/api/tournaments/?page_size=4", add)
    exactly_once(seen, present)
    starts = dict(Tournament.objects.values_list("pk", "start_at"))
    assert [starts[pk] for pk in seen] == sorted((starts[pk] for pk in seen), reverse=True)


def match(**fields) -> Match:
    return Match.objects.create(
        game="pairs", engine_version=registry.get("pairs").version, seed=1, **fields
    )


def test_tournament_matches_by_round_and_number(client_for, user):
    event = tournament(user, NOW)
    for number in range(1, 31):
        match(tournament=event, round=(number - 1) // 10 + 1, number=number)
    present = set(event.matches.values_list("pk", flat=True))
    numbers = itertools.count(100)

    def add():  # a later round, and an earlier round's late game (sorts behind the reader)
        match(tournament=event, round=9, number=next(numbers))
        match(tournament=event, round=1, number=next(numbers))

    seen = walk(client_for(None), f"/api/tournaments/{event.pk}/matches/?page_size=6", add)
    exactly_once(seen, present)
    order = {m.pk: (m.round, m.number, m.pk) for m in event.matches.all()}
    assert [order[pk] for pk in seen] == sorted(order[pk] for pk in seen)


def test_ladder_matches_newest_first(client_for):
    ladder = Ladder.objects.create(key="pairs:2", game="pairs", players=2)
    for _ in range(20):
        match(ladder=ladder)
    present = set(ladder.matches.values_list("pk", flat=True))
    seen = walk(
        client_for(None),
        f"/api/ladders/{ladder.pk}/matches/?page_size=3",
        lambda: match(ladder=ladder),
    )
    exactly_once(seen, present)
    assert seen == sorted(seen, reverse=True)


def test_bot_versions_newest_first(client_for, user):
    bot = new_bot(user, "versioned")

    def version():
        builders.version(bot=bot, status=BotVersion.Status.PENDING, announce=False)

    for _ in range(12):
        version()
    present = set(bot.versions.values_list("pk", flat=True))
    seen = walk(client_for(None), f"/api/bots/{bot.pk}/versions/?page_size=5", version)
    exactly_once(seen, present)


@pytest.mark.parametrize(
    "query",
    [
        "cursor=",
        "cursor=%00",
        "cursor=W1siMjAyNiJdLDBd",  # base64 of [["2026"],0]: one value for a two-field order
        "cursor=W1sibm90IGEgZGF0ZSIsMV0sMF0",  # [["not a date",1],0]
        "cursor=W1sxLDFdLDJd",  # direction 2
        "cursor=" + "A" * 1200,
        "page_size=-1",
        "page_size=1e3",
        "page_size=99999",
    ],
)
def test_bad_cursors_and_page_sizes_are_400s(client_for, user, query):
    tournament(user, NOW)
    response = client_for(None).get(f"/api/tournaments/?{query}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and set(body["errors"]) <= {"cursor", "page_size"}, body
