"""The tournament page drawn from the standings read models shows what it showed when it
computed everything from the games: crosstable, round tables, bracket and progress."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model

from arena.dashboard import tournament_page
from tests.support.builders import fail_every_attempt, record_random_result, started_event
from tests.support.standings_reference import pairwise_from_every_game
from tournaments import selectors
from tournaments.models import Match, Tournament


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


@pytest.mark.parametrize(
    "fields, entrants",
    [
        ({"format": "round_robin", "games_per_pairing": 2}, 5),
        ({"format": "swiss", "rounds": 3, "games_per_pairing": 2}, 6),
        ({"format": "double_elimination", "games_per_pairing": 2}, 4),
    ],
    ids=["round-robin", "swiss", "double-elimination"],
)
def test_the_page_shows_what_the_games_say(organiser, settings, client, fields, entrants):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    tournament = started_event(organiser=organiser, entrants=entrants, fields=fields)
    rng = random.Random(entrants)
    for _ in range(12):  # part-way: some played, some failed, the rest still to come
        queued = Tournament.objects.get(pk=tournament.pk).matches.filter(status=Match.Status.QUEUED)
        match = queued.order_by("?").first()
        if match is None:
            break
        if rng.random() < 0.2:
            fail_every_attempt(match=match)
        else:
            record_random_result(match=match, rng=rng)
    tournament = Tournament.objects.select_related("organiser", "snapshot").get(pk=tournament.pk)
    shown = tournament_page.tournament_context(tournament)

    fresh = Tournament.objects.get(pk=tournament.pk)
    old = selectors.overview_from_matches(tournament=fresh)
    points = selectors.game_points(tournament=fresh)
    names = dict(fresh.entries.values_list("bot_id", "bot__name"))
    assert shown["overview"] == old
    assert shown["progress"] == selectors.progress(tournament=fresh)
    assert shown["round_tables"] == tournament_page._round_tables(
        old["rounds"], points["tables"], names
    )
    deciders = selectors.decider_points(tournament=fresh)
    assert shown["bracket"] == tournament_page._bracket(
        old["bracket"], points["series"], names, deciders
    )
    if fields["format"] == "round_robin":
        assert shown["crosstable"] == tournament_page._crosstable(
            old["standings"], pairwise_from_every_game(fresh)
        )
        assert not shown["crosstable"]["too_many"]
    answer = client.get(f"/tournaments/{tournament.pk}/")
    assert answer.status_code == 200
    for row in old["standings"]:
        assert row["bot"] in answer.content.decode()
