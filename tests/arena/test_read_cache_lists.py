"""The tournament list (API with its filters, page, the home page's recent tournaments)
stored under ``ReadVersion('tournaments')``, which triggers move with every write of what
the list shows: a stored answer equals a fresh render, a hit reads the version alone, and
every kind of write moves it."""

from __future__ import annotations

import importlib
import random

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.builders import record_random_result, started_event
from tests.support.stored_reads import answer, fresh
from tournaments import services
from tournaments.apis.tournaments import TournamentSerializer
from tournaments.models import Entry, ReadVersion, Tournament
from tournaments.readcache import marks

pytestmark = pytest.mark.django_db

# The list's trigger as migration 0017 left it (record_visibility watched too).
list_trigger_migration = importlib.import_module("tournaments.migrations.0017_record_visibility")
READS = [
    "/api/tournaments/",
    "/api/tournaments/?game=pairs",
    "/api/tournaments/?status=running&page_size=1",
    "/tournaments/",
    "/",
]


@pytest.fixture(autouse=True)
def _empty_cache(empty_cache):
    # A transactional test elsewhere may have flushed the row the migration made.
    ReadVersion.objects.get_or_create(name="tournaments")


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user(username="org")


@pytest.fixture
def tournament(organiser) -> Tournament:
    return started_event(organiser=organiser, entrants=3, fields={"format": "round_robin"})


def test_stored_lists_equal_a_fresh_render_and_a_hit_reads_the_version_alone(tournament):
    for url in READS:
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            assert answer(url) == first, url
        assert len(queries) == 1, (url, [q["sql"] for q in queries])


def moves_every_list(write) -> None:
    before = marks.tournament_list_mark()
    for url in READS:
        answer(url)
    write()
    assert marks.tournament_list_mark() != before
    for url in READS:
        assert answer(url) == fresh(url), url


def test_a_new_tournament_its_start_and_its_end_move_the_lists(organiser, tournament):
    bots = list(tournament.entries.values_list("bot_id", flat=True))
    made = {}

    def create():
        made["t"] = services.create_tournament(
            organiser=organiser, name="second", game="pairs", bot_ids=bots
        )

    moves_every_list(create)
    moves_every_list(lambda: services.start_tournament(tournament_id=made["t"].pk))
    rng = random.Random(1)

    def finish():
        for match in tournament.matches.order_by("pk"):
            record_random_result(match=match, rng=rng)

    moves_every_list(finish)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED


def test_an_entry_a_rename_and_a_delete_move_the_lists(organiser, tournament):
    moves_every_list(lambda: Entry.objects.filter(tournament=tournament).update(seed_number=9))
    moves_every_list(
        lambda: get_user_model().objects.filter(pk=organiser.pk).update(username="org2")
    )
    moves_every_list(lambda: Tournament.objects.filter(pk=tournament.pk).delete())


def test_record_visibility_moves_the_lists(tournament):
    moves_every_list(
        lambda: Tournament.objects.filter(pk=tournament.pk).update(record_visibility="owners")
    )


def test_a_result_alone_moves_nothing(tournament):
    """A result moves ``results_version``, which no list shows: stored lists stay."""
    before = marks.tournament_list_mark()
    Tournament.objects.filter(pk=tournament.pk).update(results_version=7)
    assert marks.tournament_list_mark() == before


def test_the_triggers_watch_every_column_the_list_shows():
    shown = set()
    for name in TournamentSerializer.Meta.fields:
        try:
            shown.add(Tournament._meta.get_field(name).column)
        except Exception:  # noqa: BLE001 - not a column: bots, challengers, entrants, id
            continue
    shown.discard("id")
    assert shown <= set(list_trigger_migration.TOURNAMENT_SHOWN)


BOT_READS = [
    "/bots/",
    "/bots/?q=bot",
    "/bots/?game=pairs",
    "/bots/?after=a",
    # the head-to-head form's name suggestions: names of one game's bots
    "/games/pairs/bot-names/?q=",
    "/games/pairs/bot-names/?q=b",
    "/games/pairs/bot-names/?q=ren",
]
bots_migration = importlib.import_module("tournaments.migrations.0012_bot_list_version")


def moves_the_bot_list(write) -> None:
    ReadVersion.objects.get_or_create(name="bots")
    before = marks.bot_list_mark()
    for url in BOT_READS:
        answer(url)
    write()
    assert marks.bot_list_mark() != before
    for url in BOT_READS:
        assert answer(url) == fresh(url), url


def test_the_bot_list_page_is_stored_and_every_shown_write_moves_it(organiser, tournament):
    ReadVersion.objects.get_or_create(name="bots")
    for url in BOT_READS:
        first = fresh(url)
        with CaptureQueriesContext(connection) as queries:
            assert answer(url) == first, url
        assert len(queries) == 1, url
    from bots.models import Bot

    bot = Bot.objects.order_by("pk").first()
    moves_the_bot_list(lambda: Bot.objects.create(owner=organiser, name="new-bot", game="pairs"))
    moves_the_bot_list(lambda: Bot.objects.filter(pk=bot.pk).update(name="renamed"))
    moves_the_bot_list(lambda: Bot.objects.filter(pk=bot.pk).update(game="venture"))
    moves_the_bot_list(lambda: Bot.objects.filter(pk=bot.pk).update(game="pairs"))
    moves_the_bot_list(
        lambda: get_user_model().objects.filter(pk=organiser.pk).update(username="org3")
    )
    moves_the_bot_list(lambda: Bot.objects.filter(name="new-bot").delete())
    # What the page does not show moves nothing.
    before = marks.bot_list_mark()
    Bot.objects.filter(pk=bot.pk).update(description="changed", accepts_entries=False)
    assert marks.bot_list_mark() == before


def test_the_bot_list_triggers_watch_every_column_the_page_reads(organiser):
    from bots.models import Bot
    from bots.selectors import bot_page

    Bot.objects.create(owner=organiser, name="b", game="pairs")
    row = bot_page()["bots"][0]
    loaded = {f.attname for f in Bot._meta.concrete_fields} - row.get_deferred_fields()
    assert loaded - {"id"} <= set(bots_migration.BOT_SHOWN)
    # The head-to-head form's name suggestions filter on a bot's game and name, and show it.
    assert {"game", "name"} <= set(bots_migration.BOT_SHOWN)
