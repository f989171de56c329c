"""Reads stored under a version (tournaments.readcache): a stored answer is the very answer a
fresh render gives, a hit skips the work, and a write that changes what a read shows moves
its version, so the old answer is never served again."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.builders import fail_every_attempt, record_random_result, started_event
from tests.support.stored_reads import answer, fresh
from tournaments.models import Match, MatchSeat, Tournament
from tournaments.services.requeue import requeue_failed_match


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    pass


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


def reads(tournament_id: int) -> list[str]:
    return [
        f"/api/tournaments/{tournament_id}/",
        f"/api/tournaments/{tournament_id}/matches/",
        f"/api/tournaments/{tournament_id}/matches/?page_size=1",
        f"/tournaments/{tournament_id}/",
        f"/tournaments/{tournament_id}/live/",
    ]


def finished_with_a_failure(organiser, settings) -> tuple[Tournament, Match]:
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    tournament = started_event(organiser=organiser, entrants=3, fields={"format": "round_robin"})
    rng = random.Random(3)
    matches = list(tournament.matches.order_by("pk"))
    fail_every_attempt(match=matches[0])
    for match in matches[1:]:
        record_random_result(match=match, rng=rng)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament, matches[0]


def test_a_finished_tournament_is_served_stored_and_equal_to_a_fresh_render(organiser, settings):
    tournament, _ = finished_with_a_failure(organiser, settings)
    for url in reads(tournament.pk):
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            again = answer(url)
        assert again == first, url
        # The hit reads the version row alone (and nothing of the standings or matches).
        assert len(queries) == 1, (url, [q["sql"] for q in queries])


def test_a_result_taken_back_is_never_answered_from_the_old_version(organiser, settings):
    tournament, failed = finished_with_a_failure(organiser, settings)
    before = {url: answer(url) for url in reads(tournament.pk)}
    requeue_failed_match(match=failed)  # back to running, results version bumped
    after = {url: answer(url) for url in reads(tournament.pk)}
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING
    assert (
        after[f"/api/tournaments/{tournament.pk}/"] != before[f"/api/tournaments/{tournament.pk}/"]
    )
    for url in reads(tournament.pk):
        assert after[url] == fresh(url), url
    # Played again and finished again: the new finished answer, not the first one.
    record_random_result(match=Match.objects.get(pk=failed.pk), rng=random.Random(5))
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    last = {url: answer(url) for url in reads(tournament.pk)}
    for url in reads(tournament.pk):
        assert last[url] == fresh(url), url
        assert answer(url) == last[url], url
    api = f"/api/tournaments/{tournament.pk}/"
    assert last[api] != before[api]  # the failed game is a played one now


def test_a_running_tournament_is_not_stored(organiser, settings):
    settings.ARENA_MAX_MATCH_ATTEMPTS = 1
    tournament = started_event(organiser=organiser, entrants=3, fields={"format": "round_robin"})
    api = f"/api/tournaments/{tournament.pk}/"
    answer(api)
    match = tournament.matches.order_by("pk").first()
    record_random_result(
        match=match, rng=random.Random(1)
    )  # no version of a running event moves on a claim
    assert answer(api) == fresh(api)
    assert b'"running":0' in answer(api)[0] or b'"running": 0' in answer(api)[0]


def test_a_finished_match_is_stored_for_spectators_only(finished_match, client_for):
    MatchSeat.objects.filter(match=finished_match, seat=0).update(log="my stderr")
    urls = [f"/api/matches/{finished_match.pk}/", f"/matches/{finished_match.pk}/"]
    for url in urls:
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            assert answer(url) == first
        assert len(queries) == 1, url
        assert b"my stderr" not in first[0]
    # The owner of the bots is not served the spectators' answer: their logs show.
    owner = client_for(finished_match.seats.get(seat=0).version.bot.owner)
    assert b"my stderr" in owner.get(urls[0]).content


def test_an_unfinished_match_is_not_stored(db):
    queued = Match.objects.create(
        game="pairs", engine_version=1, seed=1, status=Match.Status.QUEUED, options={}
    )
    url = f"/api/matches/{queued.pk}/"
    answer(url)
    Match.objects.filter(pk=queued.pk).update(status=Match.Status.CANCELLED)
    assert b'"cancelled"' in answer(url)[0]


def test_a_stored_page_differs_from_a_signed_in_readers(organiser, settings, client):
    tournament, _ = finished_with_a_failure(organiser, settings)
    url = f"/tournaments/{tournament.pk}/"
    spectators = answer(url)
    client.force_login(organiser)
    mine = client.get(url).content
    assert b"Log out" in mine and b"Log out" not in spectators[0]


def test_renaming_a_bot_or_its_owner_moves_every_stored_read(
    organiser, settings, django_capture_on_commit_callbacks
):
    """Names have no version column; an operator may change them in the admin."""
    from bots.models import Bot

    tournament, _ = finished_with_a_failure(organiser, settings)
    bot = Bot.objects.filter(entries__tournament=tournament).order_by("pk").first()
    owner = bot.owner
    for url in reads(tournament.pk):
        answer(url)
    with django_capture_on_commit_callbacks(execute=True):
        bot.name = "renamed-bot"
        bot.save()
    after = {url: answer(url) for url in reads(tournament.pk)}  # before fresh() clears
    for url in reads(tournament.pk):
        assert after[url] == fresh(url), url
    assert b"renamed-bot" in answer(f"/tournaments/{tournament.pk}/")[0]
    with django_capture_on_commit_callbacks(execute=True):
        owner.username = "renamed-owner"
        owner.save()
    assert answer(f"/api/tournaments/{tournament.pk}/") == fresh(
        f"/api/tournaments/{tournament.pk}/"
    )
    # A log-in saves last_login only: nothing stored moves.
    stored = answer(f"/tournaments/{tournament.pk}/")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        owner.save(update_fields=["last_login"])
        bot.save(update_fields=["description"])
    assert not callbacks
    with CaptureQueriesContext(connection) as queries:
        assert answer(f"/tournaments/{tournament.pk}/") == stored
    assert len(queries) == 1


def test_a_kept_copy_takes_the_tokens_alone_and_answers_as_the_stored_entry(
    finished_match,
    monkeypatch,
):
    """The process's own copy (``readcache.memory``): a hit asks the cache for the tokens
    only; another process (nothing kept) asks for the entry too, and gets the same bytes."""
    from django.core.cache import caches

    from tournaments import readcache

    asked = []
    backend = caches["default"]
    get_many = backend.get_many
    monkeypatch.setattr(backend, "get_many", lambda keys: asked.append(keys) or get_many(keys))
    for url in (f"/api/matches/{finished_match.pk}/", f"/matches/{finished_match.pk}/"):
        first = fresh(url)
        asked.clear()
        assert answer(url) == first
        assert len(asked) == 1 and all(k.startswith(readcache.TOKEN_PREFIX) for k in asked[0])
        readcache.forget_kept()
        asked.clear()
        assert answer(url) == first
        assert len(asked) == 1 and any(k.startswith("read:") for k in asked[0])
