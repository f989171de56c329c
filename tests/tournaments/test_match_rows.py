"""The match list rows written out field by field equal the generic ModelSerializer walk,
for every kind of match a list shows (queued, running, finished with faults, failed)."""

from __future__ import annotations

import json
import random

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from tests.support.builders import fail_every_attempt, record_random_result, started_event
from tournaments import selectors
from tournaments.apis.matches import MatchSerializer
from tournaments.models import Match
from tournaments.services.playing import claim_match


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


def every_kind_of_match(organiser, settings, seed: int):
    """A round robin with a failed match, five recorded (some seats faulted, scores of both
    signs), one running and the rest queued."""
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    tournament = started_event(
        organiser=organiser, entrants=4, fields={"format": "round_robin", "games_per_pairing": 2}
    )
    rng = random.Random(seed)
    queued = list(tournament.matches.order_by("pk"))
    fail_every_attempt(match=queued[0])
    for match in queued[1:6]:
        record_random_result(match=match, rng=rng)
    claim_match(match_id=queued[6].pk)
    return tournament


def generic(match, context) -> dict:
    row = MatchSerializer(context=context)
    return serializers.ModelSerializer.to_representation(row, match)


@pytest.mark.parametrize("reader", ["anonymous", "owner"])
def test_rows_equal_the_generic_serializer(organiser, settings, reader):
    tournament = every_kind_of_match(organiser, settings, seed=4)
    request = Request(APIRequestFactory().get("/api/tournaments/1/matches/"))
    request.user = organiser if reader == "owner" else AnonymousUser()
    context = {"request": request}
    rows = list(selectors.match_list(tournament=tournament).order_by("pk"))
    statuses = {m.status for m in rows}
    assert {Match.Status.FAILED, Match.Status.FINISHED, Match.Status.RUNNING} <= statuses
    assert Match.Status.QUEUED in statuses
    fast = MatchSerializer(rows, many=True, context=context).data
    slow = [generic(m, context) for m in rows]
    # Same values, same keys in the same order: the JSON text is the same.
    assert json.dumps(fast) == json.dumps(slow)


@pytest.mark.parametrize("settled", [False, True])
@pytest.mark.parametrize("visible", ["finished", "owners"])
@pytest.mark.parametrize("reader", ["anonymous", "owner", "other", "staff"])
def test_plain_rows_read_as_model_instances(organiser, settings, reader, visible, settled):
    """The API list's plain rows (``as_rows``, ``with_seats``) give the visibility rules and
    the rows what the matches as model instances with their seats give: the same views,
    the same JSON (reproduce commands, the owner's own files, hidden seeds)."""
    tournament = every_kind_of_match(organiser, settings, seed=6)
    if settled:  # every match played but the running one: most deals no longer live
        rng = random.Random(7)
        for match in tournament.matches.filter(status=Match.Status.QUEUED):
            record_random_result(match=match, rng=rng)
    tournament.__class__.objects.filter(pk=tournament.pk).update(record_visibility=visible)
    users = get_user_model().objects
    request = Request(APIRequestFactory().get("/api/tournaments/1/matches/"))
    request.user = {
        "anonymous": AnonymousUser(),
        "owner": organiser,
        "other": users.create_user(username="other"),
        "staff": users.create_user(username="staff", is_staff=True),
    }[reader]
    listed = selectors.match_list(tournament=tournament).order_by("pk")
    rows = selectors.with_seats(list(selectors.as_rows(listed)))
    whole = list(listed)
    assert not isinstance(rows[0], Match) and [r.pk for r in rows] == [m.pk for m in whole]
    views = selectors.match_views(matches=rows, user=request.user)
    assert views == selectors.match_views(matches=whole, user=request.user)
    plain = MatchSerializer(rows, many=True, context={"request": request, "views": views}).data
    slow = [generic(m, {"request": request}) for m in whole]
    assert json.dumps(plain) == json.dumps(slow)
    if settled:
        # Every seat is the organiser's: they and staff see the commands, with their files.
        shown = json.dumps(plain).count('"reproduce": {')
        full = reader == "staff" or (reader == "owner" or visible == "finished")
        assert shown == sum(view.full for view in views.values())
        assert (shown > 0) == full
        assert ('"yours": true' in json.dumps(plain)) == (reader == "owner")


def test_bot_rows_equal_the_generic_serializer(organiser):
    from bots.apis import BotSerializer
    from bots.models import Bot
    from tests.support.builders import active_bots

    active_bots(owner=organiser, count=3)
    Bot.objects.create(owner=organiser, name="no-version", game="pairs", description="é\n\t")
    rows = list(Bot.objects.select_related("owner").order_by("pk"))
    for context in ({}, {"current_versions": {}}):
        fast = BotSerializer(rows, many=True, context=context).data
        slow = [
            serializers.ModelSerializer.to_representation(BotSerializer(context=context), b)
            for b in rows
        ]
        assert json.dumps(fast) == json.dumps(slow)
    assert json.dumps(fast).count('"current_version": null') == 4  # none in the empty map


def test_page_rows_equal_the_rows_of_whole_models(organiser, settings):
    """A standings or ladder page's rows (plain seat rows, ``match_page``) render as the
    matches with their seats as model instances do (queued, running, failed, faults,
    scores of both signs)."""
    from django.template.loader import render_to_string

    from arena.dashboard.tournament_page import TOURNAMENT_ORDER, match_page

    tournament = every_kind_of_match(organiser, settings, seed=5)
    page = match_page(selectors.match_list(tournament=tournament), None, TOURNAMENT_ORDER)
    whole = list(selectors.match_list(tournament=tournament).order_by("-round", "-number", "-id"))
    assert [m.pk for m in page.rows] == [m.pk for m in whole]
    for match in whole:
        match.seat_rows = list(match.seats.all())
    context = {"show_series": True, "show_round": True, "page_path": "/", "live_path": "/"}
    shown = render_to_string("arena/match_rows.html", {**context, "matches": page})
    page.rows = whole
    assert shown == render_to_string("arena/match_rows.html", {**context, "matches": page})
    assert "fault" in shown and "failed" in shown and "running" in shown and "queued" in shown
