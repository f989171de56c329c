"""Rating reads stored under the game's board version: equal to a fresh render, and never
served again once a rated result, a refit or a change of current version commits."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.support.builders import bot_with_version, finished_match, version
from tests.support.stored_reads import answer, fresh
from tournaments import readcache

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def shared_tokens(settings, empty_cache):
    # The tests' writers run in the reading process, so its memory cache sees their bumps.
    settings.ARENA_READ_CACHE_TOKENS = True


@pytest.fixture
def two_bots():
    a, va = bot_with_version(name="alpha")
    b, vb = bot_with_version(name="beta")
    finished_match(versions=[va, vb], ranks=[1, 2])
    return a, b, va, vb


def reads(a, b) -> list[str]:
    return [
        "/api/leaderboards/pairs/",
        "/api/leaderboards/pairs/?pool=pairs:2",
        "/games/pairs/",
        "/games/pairs/?q=alp",
        f"/api/bots/{a.pk}/ratings/",
        f"/api/head-to-head/?a={a.pk}&b={b.pk}",
        f"/games/pairs/head-to-head/?a={a.pk}&b={b.pk}",
    ]


def test_stored_rating_reads_equal_fresh_ones_and_a_hit_reads_no_table(two_bots):
    a, b, _, _ = two_bots
    for url in reads(a, b):
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            assert answer(url) == first, url
        # The bot's history asks the bot's game; the others ask nothing of the database.
        assert len(queries) == (1 if "/ratings/" in url else 0), url


def test_a_rated_result_moves_every_rating_read(two_bots, django_capture_on_commit_callbacks):
    a, b, va, vb = two_bots
    before = {url: answer(url) for url in reads(a, b)}
    with django_capture_on_commit_callbacks(execute=True):  # the writer's commit
        finished_match(versions=[vb, va], ranks=[1, 2], seed=2)  # beta wins this one
    for url in reads(a, b):
        now = answer(url)
        assert now != before[url], url
        assert now == fresh(url), url


def test_a_new_current_version_moves_the_board(two_bots, django_capture_on_commit_callbacks):
    a, b, va, _ = two_bots
    board = "/api/leaderboards/pairs/"
    before = answer(board)
    with django_capture_on_commit_callbacks(execute=True):
        version(bot=a, number=2, parent=va)  # becomes current: the board shows v2 now
    now = answer(board)
    assert now != before and now == fresh(board)
    assert b'"version":2' in now[0]


def test_the_version_moves_only_when_the_writer_commits(db, django_capture_on_commit_callbacks):
    name = "board:pairs"
    token = readcache.token_of(name)
    with django_capture_on_commit_callbacks(execute=True):  # the test's outer transaction
        with transaction.atomic():
            readcache.bump_after_commit(name)
        assert readcache.token_of(name) == token  # readers keep the old one until then
    assert readcache.token_of(name) != token
    token = readcache.token_of(name)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                readcache.bump_after_commit(name)
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
    assert not callbacks and readcache.token_of(name) == token


def test_a_cleared_cache_never_revives_an_older_version(two_bots):
    token = readcache.token_of("board:pairs")
    cache.clear()
    assert readcache.token_of("board:pairs") != token


def test_a_cache_the_workers_do_not_share_keeps_no_rating_read(two_bots, settings):
    """In each process's memory (locmem, the embedded default), a worker's bump never
    reaches the web process: rating reads are then built every time, never stored."""
    settings.ARENA_READ_CACHE_TOKENS = None
    assert settings.CACHES["default"]["BACKEND"].endswith("LocMemCache")
    a, b, va, vb = two_bots
    before = {url: answer(url) for url in reads(a, b)}
    with transaction.atomic():  # a worker's write: its commit callbacks run elsewhere
        finished_match(versions=[vb, va], ranks=[1, 2], seed=2)
    for url in reads(a, b):
        assert answer(url) != before[url], url


def test_the_bot_pages_rating_parts_are_stored_and_a_rated_result_moves_them(
    two_bots, django_capture_on_commit_callbacks
):
    """The bot page's rating history and head-to-head parts are stored under the board
    version (arena.dashboard.bot_page.rating_parts), and so is the whole page for anonymous readers
    (tests/arena/test_read_cache_bot_page.py): the page equals a fresh render, reads no
    rating table when stored, and shows a new rated result."""
    a, _, va, vb = two_bots
    url = f"/bots/{a.pk}/"
    first = fresh(url)
    with CaptureQueriesContext(connection) as queries:
        assert answer(url) == first
    tables = " ".join(q["sql"] for q in queries)
    assert "tournaments_ratingchange" not in tables and "tournaments_ratingpair" not in tables
    with django_capture_on_commit_callbacks(execute=True):
        finished_match(versions=[vb, va], ranks=[1, 2], seed=2)
    now = answer(url)
    assert now != first and now == fresh(url)
    assert now[0].count(b"<tr><td>") > first[0].count(b"<tr><td>")  # one more history row
